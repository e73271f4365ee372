"""Steps 2-4 of a submission, after step 1 stored it durably (actors/forms/submit.py): (2) the board actor
makes the item, with the id chosen in step 1, from the mapped answers; (3) the submission enters the form's
active approval flow; (4) one transaction marks it complete, emits `form.submitted` with the item,
notifies `notifyOnSubmit` and writes the activity entry. Each step is safe to repeat (the item by its id,
the request by the submission, the completion by `completed_at IS NULL`), so the submit path, a retry with
the same Idempotency-Key and the sweeper (actors/forms/sweeper.py) may all run `finish`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from actors.approvals.intake import open_request
from actors.automations.triggers import form_submitted
from actors.board.actor import BoardActor
from actors.board.commands import Command
from actors.board.form_items import FORM_ITEM, FormItem, MappedValue
from actors.forms.answers import answer_text
from actors.kernel.membership_cache import org_members
from actors.kernel.node import Node
from protocol.caller import Caller, Organization
from protocol.form_schema import FormSettings
from storage import access as access_repo
from storage import form_submissions as repo

NAME_LIMIT = 500
DESCRIPTION_LIMIT = 100_000


def system_caller(org_id: str, user_id: str | None, request_id: str) -> Caller:
    """Who a submission's later steps act as when no request carries them (the sweeper): its submitter."""
    return Caller(request_id=request_id, organization=Organization(org_id, "", "", ""), user_id=user_id)


def form_item(form: Mapping[str, Any], submission: Mapping[str, Any], *, lenient: bool = False) -> FormItem:
    """The board command that makes the submission's item from the form's mappings."""
    answers: dict[str, Any] = submission["data"]
    name, description, values = "", None, []
    for mapping in form["mappings"]:
        key = mapping["formField"]
        if mapping["target"] == "column":
            if mapping.get("columnId"):
                values.append(MappedValue(mapping["columnId"], key, answers.get(key)))
            continue
        if key not in answers:
            continue
        if mapping["target"] == "item_name":
            name = answer_text(answers[key]).strip()[:NAME_LIMIT]
        elif mapping["target"] == "item_description":
            description = answer_text(answers[key])[:DESCRIPTION_LIMIT] or None
    settings = msgspec.convert(form["settings"], FormSettings)
    return FormItem(item_id=submission["item_id"], name=name or f"{form['name']} response"[:NAME_LIMIT],
                    description=description, group_id=settings.groupId, values=tuple(values), lenient=lenient)


async def make_item(node: Node, caller: Caller, form: Mapping[str, Any], submission: Mapping[str, Any], *,
                    lenient: bool = False) -> dict[str, Any] | None:
    """Step 2: the item, made once; the column's own validation applies (422 naming the form key). None when
    it was made already and is no longer live on the board (a member trashed, moved or purged it since)."""
    org_id, board_id = submission["organization_id"], form["board_id"]
    command = Command(FORM_ITEM, caller, form_item(form, submission, lenient=lenient), node.clock.now(),
                      await org_members(node, org_id), board_id)
    item: dict[str, Any] | None = await node.actors.ask(BoardActor, board_id, org_id, command)
    if item is not None:
        node.remember_board(item["id"], board_id)
    return item


async def complete(node: Node, caller: Caller, form: Mapping[str, Any], submission: Mapping[str, Any],
                   item: dict[str, Any] | None) -> None:
    """Step 4: completion, `form.submitted`, notifications and the activity entry, once. `item` None: the
    item is no longer live on the board; the event carries `item: null` and the notification names no item."""
    org_id, submission_id = submission["organization_id"], submission["id"]
    settings = msgspec.convert(form["settings"], FormSettings)
    async with node.write(caller, org_id=org_id) as uow:
        if await repo.complete(uow.conn, org_id, submission_id, uow.now) is None:
            return  # finished already (a retry or the sweeper got here first)
        form_submitted(uow, board_id=form["board_id"], form_id=form["id"], submission_id=submission_id, item=item,
                       answers=submission["data"])
        active = set(await access_repo.member_ids(uow.conn, org_id))
        for user_id in dict.fromkeys(settings.notifyOnSubmit):
            if user_id in active and user_id != caller.user_id:
                if item is None:
                    await uow.notify(user_id, "form_submitted", f"New response to {form['name']}")
                else:
                    await uow.notify(user_id, "form_submitted", f"New response to {form['name']}", item["name"],
                                     "item", item["id"])
        await uow.activity("form_submission", submission_id, "form.submitted",
                           {"formId": form["id"], "boardId": form["board_id"], "itemId": submission["item_id"]})


async def finish_acknowledged(node: Node, caller: Caller, form: Mapping[str, Any],
                              submission: Mapping[str, Any]) -> bool:
    """Finish a submission the respondent was told was received (a retry of it, the sweeper): acknowledge it
    first, so its first request, if still deciding, can no longer remove it, then steps 2-4 leniently (a mapped
    answer the board now refuses is left out of the item). False when it was removed already."""
    org_id = submission["organization_id"]
    async with node.pool.acquire() as conn:
        if await repo.acknowledge(conn, org_id, submission["id"], node.clock.now()) is None:
            return False
    await finish(node, caller, form, submission, lenient=True)
    return True


async def finish(node: Node, caller: Caller, form: Mapping[str, Any], submission: Mapping[str, Any], *,
                 lenient: bool = False) -> dict[str, Any] | None:
    """Steps 2-4 of a stored submission; the item (None: no longer live on the board)."""
    item = await make_item(node, caller, form, submission, lenient=lenient)
    await open_request(node, submission["organization_id"], form["id"], submission["id"])
    await complete(node, caller, form, submission, item)
    return item
