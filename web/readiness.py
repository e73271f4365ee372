"""Readiness: does the database answer, and is every migration applied? (asked of the node's kernel)"""

from __future__ import annotations

from actors.kernel.node import Node


async def unready_reason(node: Node) -> str | None:
    """None when ready; otherwise why not."""
    return await node.unready_reason()
