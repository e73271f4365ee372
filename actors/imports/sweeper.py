"""The import sweeper: every minute, on one node of the cluster, import sessions not executed within their hour
are deleted with their file, sessions left `running` by a node that stopped are recorded as failed, and history
older than 90 days is deleted."""

from __future__ import annotations

from datetime import timedelta

import structlog

from actors.imports.handlers import announce
from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from protocol.imports import HISTORY_DAYS
from storage import imports as repo

log = structlog.get_logger("obeya.imports")

# A session may outlive its hour by up to this long before its bytes leave the database (it is refused at once).
SWEEP_SECONDS = 60.0


async def sweep_imports(node: Node) -> tuple[int, int, int]:
    """One sweep now: (expired sessions deleted, old history deleted, abandoned runs marked failed). An abandoned
    run's end is announced like that of a run that failed (`import.failed` on the board's stream)."""
    now = node.clock.now()
    failed = 0
    for row in await repo.abandoned(node.pool, now):
        async with node.write(None, org_id=row["organization_id"]) as uow:
            done = await repo.abandon(uow.conn, row["organization_id"], row["id"], now)
            if done is not None:  # another node's sweep may have recorded it meanwhile
                await announce(uow, done)
                failed += 1
    expired, old = await repo.sweep(node.pool, now, now - timedelta(days=HISTORY_DAYS))
    return expired, old, failed


async def sweep_imports_forever(node: Node) -> None:
    """A worker (node.workers); a failed sweep is logged by the supervisor and tried again after its backoff."""
    while True:
        if await leads(node.leadership, "import-sweeper"):
            expired, old, abandoned = await sweep_imports(node)
            if expired or old or abandoned:
                log.info("imports_swept", expired=expired, history=old, abandoned=abandoned)
        await rest(node.clock, SWEEP_SECONDS)
