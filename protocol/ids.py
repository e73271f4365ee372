"""Ids, secrets and timestamps as they appear on the wire.

Ids are a prefix from the spec plus 20 random base32 characters; timestamps are ISO 8601 UTC with
milliseconds (`2026-11-21T10:00:00.000Z`).
"""

from __future__ import annotations

import base64
import secrets
from datetime import UTC, datetime


def new_id(prefix: str) -> str:
    """`<prefix>_` + 20 lowercase base32 characters (100 random bits)."""
    raw = base64.b32encode(secrets.token_bytes(15)).decode("ascii").lower()
    return f"{prefix}_{raw[:20]}"


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime | None) -> str | None:
    """Render a datetime as ISO 8601 UTC with milliseconds and a `Z`; None stays None."""
    if moment is None:
        return None
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> datetime:
    """Parse an ISO 8601 timestamp; a naive one is taken as UTC. Raises ValueError."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
