"""How a file looks on the wire: `{id, name, size, type, url}`, `url` serving it on the organization's host."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def file_url(base_url: str, file_id: str) -> str:
    return f"{base_url}/api/v1/files/{file_id}"


def file_view(base_url: str, row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "name": row["name"], "size": row["size"], "type": row["content_type"],
            "url": file_url(base_url, row["id"])}
