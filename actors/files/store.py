"""The FileStore interface: where the bytes of a file live, apart from its description (`files` table). The node
carries one (`node.plugins[FILE_STORE]`, plugged by server/node_services.py); PostgreSQL is the default
(postgres_store.py), an object store can be added behind the same two calls."""

from __future__ import annotations

from typing import Protocol

from actors.kernel.plugins import Slot


class FileStore(Protocol):
    async def put(self, org_id: str, file_id: str, data: bytes) -> None:
        """Keep `data` as the bytes of the organization's file `file_id` (written once: files never change)."""

    async def read(self, org_id: str, file_id: str) -> bytes | None:
        """The bytes of the organization's file; None when it holds no such file."""


FILE_STORE: Slot[FileStore] = Slot("file store")
