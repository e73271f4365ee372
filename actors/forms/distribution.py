"""Distribution of a published form (docs/forms-and-approvals.md): `forms.createDistribution`
e-mails each recipient a link `<publicUrl>?t=<token>` with a tracking token of their own,
`forms.getDistributionStatus` shows how far each got (sent, opened, started, completed) and the response rate,
`forms.sendReminders` e-mails the same link again to everyone who has not completed the form.

A recipient's token is derived from its id under the forms key (actors/forms/keyed.py): the database keeps
only its SHA-256, and a reminder can still send the very link the first e-mail carried. The stages move
forward through `actors/forms/respondents.py recipient_stage` (the public form paths call it)."""

from __future__ import annotations

from typing import Any

import asyncpg

from actors.forms import keyed
from actors.forms.access import visible_form
from actors.forms.respondents import token_hash
from actors.kernel.app_links import form_url
from actors.kernel.handlers import Implementations
from actors.kernel.mailer import queue_mail
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol import form_distribution as proto
from protocol.caller import Caller
from protocol.errors import BadRequest, NotFound
from protocol.ids import Prefix, iso, new_id
from storage import form_respondents as repo

procedures = Implementations()


def _require_published(form: asyncpg.Record) -> None:
    if form["status"] != "published":
        raise BadRequest(f"the form is {form['status']}: only a published form can be distributed")


async def _mail_link(node: Node, uow: UnitOfWork, caller: Caller, form: asyncpg.Record, *, recipient_id: str,
                     email: str, name: str | None, reminder: bool) -> str:
    """Queue the e-mail carrying the recipient's link; the token hash of that link."""
    assert caller.organization is not None
    token = await keyed.tracking_token(uow.conn, node.settings.secret_key, recipient_id)
    link = f"{form_url(node.base_url(caller.organization.slug), form['slug'])}?t={token}"
    greeting = f"Hello {name}," if name else "Hello,"
    ask = "A reminder: please fill in" if reminder else "You are asked to fill in"
    await queue_mail(
        uow.conn, org_id=caller.org_id, kind="form_reminder" if reminder else "form_distribution", to=email,
        subject=f"{'Reminder: ' if reminder else ''}{form['name']} ({caller.organization.name})",
        body=f"{greeting}\n\n{ask} the form \"{form['name']}\" of {caller.organization.name}:\n{link}\n\n"
             "The link is yours alone: it tells the sender that you opened and completed the form.\n",
        smtp_configured=node.settings.smtp is not None, secrets=[token], secret_key=node.settings.secret_key)
    return token_hash(token)


@procedures.implement(proto.CREATE_DISTRIBUTION)
async def create_distribution(node: Node, caller: Caller, data: proto.CreateDistributionInput) -> dict[str, Any]:
    """One recipient row and one e-mail per new address (repeats in the call collapse, case-insensitively;
    an address that already is a recipient of the form is not sent a second first e-mail — reminders do
    that), with the activity entry, in one transaction."""
    form = await visible_form(node, caller, data.formId)
    _require_published(form)
    wanted: dict[str, proto.Recipient] = {}
    for recipient in data.recipients:
        wanted.setdefault(recipient.email.lower(), recipient)
    async with node.write(caller, missing=NotFound("form not found")) as uow:
        await repo.lock_recipients(uow.conn, caller.org_id, form["id"])
        known = await repo.recipient_emails(uow.conn, caller.org_id, form["id"], list(wanted))
        sent = 0
        for address, recipient in wanted.items():
            if address in known:
                continue
            recipient_id = new_id(Prefix.DISTRIBUTION_RECIPIENT)
            name = recipient.name.strip() if recipient.name and recipient.name.strip() else None
            hashed = await _mail_link(node, uow, caller, form, recipient_id=recipient_id, email=recipient.email,
                                      name=name, reminder=False)
            await repo.insert_recipient(uow.conn, recipient_id=recipient_id, org_id=caller.org_id,
                                        form_id=form["id"], email=recipient.email, name=name, token_hash=hashed,
                                        now=uow.now)
            sent += 1
        await uow.activity("form", form["id"], "form.distributed",
                           {"boardId": form["board_id"], "name": form["name"], "sentCount": sent,
                            "alreadyRecipients": len(known)})
    message = f"Sent the form to {sent} recipient{'' if sent == 1 else 's'}"
    if known:
        message += f"; {len(known)} already had it (use forms.sendReminders to send their link again)"
    return {"success": True, "sentCount": sent, "message": message}


def _recipient_view(row: asyncpg.Record) -> dict[str, Any]:
    return {"id": row["id"], "email": row["email"], "name": row["name"], "status": row["status"],
            "sentAt": iso(row["sent_at"]), "openedAt": iso(row["opened_at"]), "startedAt": iso(row["started_at"]),
            "completedAt": iso(row["completed_at"]), "reminderCount": row["reminder_count"]}


def distribution_stats(rows: list[asyncpg.Record]) -> dict[str, Any]:
    """`opened` counts everyone who got at least that far (started and completed ones opened the form)."""
    total = len(rows)
    completed = sum(row["completed_at"] is not None for row in rows)
    return {"total": total, "opened": sum(row["opened_at"] is not None for row in rows),
            "started": sum(row["started_at"] is not None for row in rows), "completed": completed,
            "responseRate": round(completed * 100 / total, 1) if total else 0.0}


@procedures.implement(proto.DISTRIBUTION_STATUS)
async def distribution_status(node: Node, caller: Caller, data: proto.FormIdInput) -> dict[str, Any]:
    form = await visible_form(node, caller, data.formId)
    rows = await repo.recipients(node.pool, caller.org_id, form["id"])
    return {"recipients": [_recipient_view(row) for row in rows], "stats": distribution_stats(rows)}


@procedures.implement(proto.SEND_REMINDERS)
async def send_reminders(node: Node, caller: Caller, data: proto.FormIdInput) -> dict[str, Any]:
    """Every recipient not completed gets their link again and `reminderCount` + 1, in one transaction."""
    form = await visible_form(node, caller, data.formId)
    _require_published(form)
    async with node.write(caller, missing=NotFound("form not found")) as uow:
        reminded = []
        for row in await repo.unfinished_recipients(uow.conn, caller.org_id, form["id"]):
            hashed = await _mail_link(node, uow, caller, form, recipient_id=row["id"], email=row["email"],
                                      name=row["name"], reminder=True)
            reminded.append((row["id"], hashed))
        await repo.mark_reminded(uow.conn, caller.org_id, reminded, uow.now)
        await uow.activity("form", form["id"], "form.reminders_sent",
                           {"boardId": form["board_id"], "name": form["name"], "remindersSent": len(reminded)})
    count = len(reminded)
    return {"success": True, "remindersSent": count,
            "message": f"Sent {count} reminder{'' if count == 1 else 's'}" if count
            else "Every recipient has completed the form: no reminder sent"}
