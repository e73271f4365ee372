"""Where each actor lives: the `Directory` seam and `LocalDirectory`, which places every actor on this
node. A Redis directory (leases with TTL, claimed by compare-and-set) implements the same protocol."""

from __future__ import annotations

from typing import Protocol


class Directory(Protocol):
    node_id: str

    async def locate(self, key: str) -> str | None:
        """The node that owns `key`, or None while nobody does."""
        ...

    async def claim(self, key: str) -> bool:
        """Make this node the owner of `key` unless another node owns it; True if this node owns it now."""
        ...

    async def release(self, key: str) -> None:
        """Give up `key` if (and only if) this node owns it."""
        ...

    async def lease_left(self, key: str) -> float:
        """Seconds until the current owner's claim on `key` lapses if it is not renewed."""
        ...


class LocalDirectory:
    """A single node: every claim succeeds; entries are kept so `locate` answers truthfully."""

    def __init__(self, node_id: str = "local") -> None:
        self.node_id = node_id
        self._owned: set[str] = set()

    async def locate(self, key: str) -> str | None:
        return self.node_id if key in self._owned else None

    async def claim(self, key: str) -> bool:
        self._owned.add(key)
        return True

    async def release(self, key: str) -> None:
        self._owned.discard(key)

    async def lease_left(self, key: str) -> float:
        return 0.0  # one node: nobody else ever holds a key
