"""Readiness: does the database answer, and is every migration applied?"""

from __future__ import annotations

from actors.kernel.node import Node
from storage.migrate import pending_migrations


async def unready_reason(node: Node) -> str | None:
    """None when ready; otherwise why not."""
    try:
        async with node.pool.acquire(timeout=2) as conn:
            pending = await pending_migrations(conn)
    except Exception as error:  # any failure to reach the database means not ready
        return f"database unavailable: {type(error).__name__}"
    return f"migrations pending: {', '.join(pending)}" if pending else None
