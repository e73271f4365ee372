"""Idempotency keys (run by web/edge.py): a write under `/api/` (RPC POST, REST POST/PUT/PATCH/DELETE) that names
a key runs once per credential and key; a retry gets the stored response byte for byte, marked with
`Idempotent-Replayed: true`. Only responses below 400 are kept: a refused or failed write changed
nothing, so its key is released and a retry runs again. A reply that holds a shown-once secret (a procedure
declared `returns_secret`) is never kept: only that it succeeded, so a retry is 409 and mints nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from aiohttp import web

import web.idempotency_store as idempotency
from protocol.caller import Caller
from web.keys import CALLER, NODE, NOTHING_DONE, RETURNS_SECRET

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_WRITES = {"POST", "PUT", "PATCH", "DELETE"}
REPLAYED_HEADER = "Idempotent-Replayed"


def _replay(stored: idempotency.StoredResponse) -> web.Response:
    headers = {REPLAYED_HEADER: "true"}
    if stored.content_type is not None:
        headers["Content-Type"] = stored.content_type
    return web.Response(body=stored.body, status=stored.status, headers=headers)


async def idempotent(request: web.Request, handler: Handler, caller: Caller) -> web.StreamResponse:
    """`handler(request)` for an identified `/api/` request, run once per credential and key when it is a
    write that names one."""
    key = request.headers.get(idempotency.HEADER)
    # Anonymous writes have no credential to scope a key to (a client address is shared by strangers),
    # so their key is ignored.
    # Multipart bodies are uploads their route streams under its own cap (web/routes_files.py); reading one
    # whole here to hash it would defeat that, so an upload's key is ignored.
    if key is None or request.method not in _WRITES or caller.credential_id is None \
            or request.content_type.startswith("multipart/"):
        return await handler(request)
    idempotency.check_key(key)
    node, scope = request.app[NODE], caller.credential_id
    digest = idempotency.request_hash(request.method, caller.organization.id if caller.organization else "",
                                      request.path_qs, await request.read())
    stored = await idempotency.begin(node, scope, key, digest)
    if stored is not None:
        return _replay(stored)
    # The actors this request writes to keep their replies under this digest (Caller.idempotency): if the
    # response is lost after they applied it (a 503 releases the key), the retry is answered from those.
    request[CALLER] = replace(caller, idempotency=idempotency.call_digest(scope, key, digest))
    try:
        response = await handler(request)
    except BaseException:
        await idempotency.release(node, scope, key, digest)
        raise
    done = response.status < 400 and not request.get(NOTHING_DONE, False)
    if done and request.get(RETURNS_SECRET, False):
        await idempotency.finish_withheld(node, scope, key, digest, response.status)
    elif done and isinstance(response, web.Response) and isinstance(response.body, bytes):
        await idempotency.finish(node, scope, key, digest, idempotency.StoredResponse(
            response.status, response.body, response.headers.get("Content-Type")))
    else:
        await idempotency.release(node, scope, key, digest)
    return response
