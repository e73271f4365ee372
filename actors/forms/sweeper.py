"""The submission sweeper: a submission stored (step 1) whose later steps did not finish (the node stopped
between them, the board's actor was unavailable) is finished a while later by redoing steps 2-4, each safe to
repeat (actors/forms/pipeline.py). The respondent was already told it was received, so a mapped answer
the board now refuses (its column changed meanwhile) is left out of the item instead of losing the item;
the submission keeps every answer. Each sweep walks every unfinished submission in (submitted_at, id) order,
a batch at a time, so submissions that keep failing do not keep the later ones waiting."""

from __future__ import annotations

from datetime import timedelta

import asyncpg
import structlog

from actors.forms.pipeline import finish_acknowledged, system_caller
from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from protocol.errors import ApiError
from storage import form_submissions as repo
from storage.forms import get_form

log = structlog.get_logger("obeya.forms")

# A submission still unfinished this long after it was stored is one whose later steps were lost.
STALLED_SECONDS = 60.0
SWEEP_SECONDS = 60.0
BATCH = 100


async def finish_stalled_submissions(node: Node) -> int:
    """Try once to finish every submission stalled past STALLED_SECONDS, oldest first, BATCH at a time; how many
    were finished. One that fails, whatever the failure, is logged and left for the next sweep: it never keeps
    the ones after it waiting."""
    before = node.clock.now() - timedelta(seconds=STALLED_SECONDS)
    done, after = 0, None
    while rows := await repo.unfinished(node.pool, before, after, BATCH):
        for row in rows:
            if await _finished(node, row):
                done += 1
        last = rows[-1]
        after = (last["submitted_at"], last["id"])
    return done


async def _finished(node: Node, row: asyncpg.Record) -> bool:
    org_id = row["organization_id"]
    try:
        form = await get_form(node.pool, org_id, row["form_id"])
        if form is None:
            return False  # deleted with its form meanwhile
        if not await finish_acknowledged(node, system_caller(org_id, row["submitted_by"], "form-sweeper"), form, row):
            return False  # removed by its first request meanwhile
    except (ApiError, TimeoutError) as error:  # the next sweep tries again
        log.warning("form_submission_unfinished", submission=row["id"], error=str(error))
        return False
    except Exception:  # a fault of this submission alone: the others still go on
        log.exception("form_submission_failed", submission=row["id"])
        return False
    return True


async def sweep_submissions_forever(node: Node) -> None:
    """A worker (node.workers): every SWEEP_SECONDS, stalled submissions are finished."""
    while True:
        finished = await finish_stalled_submissions(node) if await leads(node.leadership, "form-sweeper") else 0
        if finished:
            log.info("form_submissions_finished", submissions=finished)
        await rest(node.clock, SWEEP_SECONDS)
