"""The public paths of forms, on the organization's host, no credential unless the form requires one:
`GET /api/forms/{form_id}` (a published or closed form's definition) and `POST /api/forms/{form_id}/submit`.
`form_id` may also be the form's slug. The logic is actors/forms/submit.py."""

from __future__ import annotations

from functools import partial

from aiohttp import web

import web.idempotency_store as idempotency
from actors.forms.submit import public_definition, submit
from protocol.caller import Caller
from protocol.errors import NotFound
from web.envelopes import json_response
from web.idempotency import REPLAYED_HEADER
from web.keys import CALLER, FORM_SESSION, NODE
from web.rate_limit import count_submission
from web.rest import json_body

FORM_PATH = "/api/forms/{form_id}"
SUBMIT_PATH = "/api/forms/{form_id}/submit"


def _org_id(request: web.Request) -> str:
    caller: Caller = request[CALLER]
    if caller.organization is None:
        raise NotFound("form not found")
    return caller.organization.id


async def get_public_form(request: web.Request) -> web.Response:
    view = await public_definition(request.app[NODE], _org_id(request), request.match_info["form_id"],
                                   token=request.query.get("t") or None,
                                   revision=request.query.get("revision") or None)
    return json_response({"data": view})


async def submit_form(request: web.Request) -> web.Response:
    org_id = _org_id(request)
    key = request.headers.get(idempotency.HEADER)
    if key is not None:
        idempotency.check_key(key)
    body = await json_body(request)
    digest = idempotency.request_hash(request.method, org_id, request.path_qs, await request.read())
    submitted = await submit(request.app[NODE], request[CALLER], request.match_info["form_id"], body,
                             token=request.query.get("t") or None, session_token=request.get(FORM_SESSION),
                             idempotency_key=key, digest=digest, count_form=partial(count_submission, request))
    response = json_response(submitted.reply)
    if submitted.replayed:
        response.headers[REPLAYED_HEADER] = "true"
    return response


def add_public_form_routes(app: web.Application) -> None:
    app.router.add_get(FORM_PATH, get_public_form)
    app.router.add_post(SUBMIT_PATH, submit_form)
