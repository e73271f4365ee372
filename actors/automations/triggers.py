"""The automation triggers that come from outside the board: `webhook.received` (an external system posts
to the rule's inbound URL) and `form.submitted` (the forms module announces a submission).

Inbound webhooks (docs/decisions.md "Inbound webhooks"): the sender proves it knows the rule's secret with
`X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body>` (the scheme of our outbound webhooks) or, when
it cannot sign, `X-Svc-Token: <secret>`. The body is a JSON object (or empty); an `itemId` of the rule's
board makes the run act on that item. A `webhook-id` or `X-Svc-Delivery` header makes a re-sent webhook
run once. The body is held to the bounds of every input (at most 64 levels deep, 64-bit integers: 400
naming it otherwise). The job is stored before the 202 answer, so an accepted webhook is never lost.
"""

from __future__ import annotations

import hmac
from typing import Any

import msgspec

from actors.delivery.webhook_sender import sign_hex
from actors.kernel.events import board_stream
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol.errors import BadRequest, Conflict, FieldError, NotFound, PayloadTooLarge, Unauthorized
from protocol.ids import Prefix, new_id
from protocol.json_bounds import INT_MAX, INT_MIN, MAX_DEPTH, depth_exceeds, oversized_ints
from protocol.storable import nul_paths
from storage import automation_jobs as jobs
from storage import automations as repo

MAX_INBOUND_BYTES = 256 * 1024
MAX_DELIVERY_ID = 200


def _header_bytes(value: str) -> bytes:
    # A header may hold any text (bytes that are not UTF-8 arrive as surrogates); compared as bytes, since
    # hmac.compare_digest refuses texts with non-ASCII characters.
    return value.encode("utf-8", "surrogateescape")


def _authentic(secret: str, body: bytes, signature: str | None, token: str | None) -> bool:
    if signature is not None:
        return hmac.compare_digest(_header_bytes(signature.strip().lower()),
                                   ("sha256=" + sign_hex(secret, body)).encode())
    return token is not None and hmac.compare_digest(_header_bytes(token), secret.encode())


def _refuse_body(field: str, message: str) -> BadRequest:
    return BadRequest(f"{field} {message}", details=[FieldError(field, message)])


def _payload(body: bytes) -> dict[str, Any]:
    """The body as a JSON object, held to the bounds of every input (protocol/json_bounds.py)."""
    if not body.strip():
        return {}
    try:
        payload = msgspec.json.decode(body)
    except msgspec.DecodeError:
        raise _refuse_body("body", "is not valid JSON") from None
    except RecursionError:
        raise _refuse_body("body", f"nests more than {MAX_DEPTH} levels deep") from None
    if not isinstance(payload, dict):
        raise _refuse_body("body", "must be a JSON object")
    if depth_exceeds(payload):
        raise _refuse_body("body", f"nests more than {MAX_DEPTH} levels deep")
    oversized = oversized_ints(payload)
    if oversized:
        raise BadRequest(f"body.{oversized[0]} must be an integer from {INT_MIN} to {INT_MAX}",
                         details=[FieldError(f"body.{path}", f"must be an integer from {INT_MIN} to {INT_MAX}")
                                  for path in oversized])
    if nul_paths(payload):
        raise _refuse_body("body", "must not hold the character U+0000")
    return payload


async def receive_webhook(node: Node, *, automation_id: str, org_id: str | None, body: bytes, signature: str | None,
                          token: str | None, delivery_id: str | None) -> str | None:
    """Store the run of an inbound webhook; the job id, or None when this delivery was taken before."""
    rule = await repo.get_any(node.pool, automation_id)
    if rule is None or rule["organization_id"] != org_id or rule["trigger"]["type"] != "webhook.received":
        raise NotFound("automation not found")
    if len(body) > MAX_INBOUND_BYTES:
        raise PayloadTooLarge(f"an inbound webhook body may hold at most {MAX_INBOUND_BYTES} bytes")
    if rule["hook_secret"] is None or not _authentic(rule["hook_secret"], body, signature, token):
        raise Unauthorized("signature or token does not match the automation's secret")
    if not rule["enabled"]:
        raise Conflict("the automation is disabled")
    payload = _payload(body)
    item_id = payload.get("itemId")
    if item_id is not None and not (isinstance(item_id, str)
                                    and await repo.item_on_board(node.pool, rule["board_id"], item_id)):
        raise BadRequest("itemId is not an item of the automation's board",
                         details=[FieldError("itemId", "is not an item of the automation's board")])
    if delivery_id is not None and not 0 < len(delivery_id) <= MAX_DELIVERY_ID:
        delivery_id = None
    async with node.pool.acquire() as conn, conn.transaction():
        job_id = await jobs.add(conn, org_id=rule["organization_id"], automation_id=rule["id"],
                                board_id=rule["board_id"], trigger_type="webhook.received",
                                key=f"hook:{delivery_id or new_id(Prefix.AUTOMATION_HOOK_CALL)}", now=node.clock.now(),
                                item_id=item_id, context={"body": payload})
        await jobs.wake_engines(conn)
    return job_id


def form_submitted(uow: UnitOfWork, *, board_id: str, form_id: str, submission_id: str,
                   item: dict[str, Any] | None, answers: dict[str, Any]) -> None:
    """The hook for the forms module: `form.submitted` on the board's stream, in the unit of work that
    stores the submission (published once it commits). Rules with a `form.submitted` trigger for `form_id`
    then run, on `item` (the item the submission made) if any."""
    uow.emit(board_stream(board_id), "form.submitted",
             {"formId": form_id, "submissionId": submission_id, "boardId": board_id, "item": item,
              "answers": answers})
