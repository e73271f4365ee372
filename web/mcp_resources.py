"""The resources an assistant (MCP) key may read: `obeya://board/<id>` and `obeya://kpi/<id>`.

A key that names resources reads those, as far as its member still may; a key that names none reads every board
and KPI its member may read (docs/assistants.md: empty lists mean the read procedures), found through the
same list procedures the member would call (workspaces, projects, boards, KPIs) and listed in pages of PAGE with
the MCP `cursor`/`nextCursor` (the cursor is the offset of the page's first resource).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
from aiohttp import web

from protocol.errors import Forbidden, NotFound
from protocol.registry import REGISTRY, Procedure
from web.dispatch import call_procedure
from web.envelopes import rpc_payload

PAGE = 50
TEMPLATES = [
    {"uriTemplate": "obeya://board/{id}", "name": "board", "mimeType": "application/json",
     "description": "A board with its groups and columns"},
    {"uriTemplate": "obeya://kpi/{id}", "name": "kpi", "mimeType": "application/json",
     "description": "A KPI with its latest value, target and responsible user"},
]
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode


class BadResource(ValueError):
    """A URI that is not `obeya://board/<id>` or `obeya://kpi/<id>`, or a cursor this server did not give."""


def reader(uri: Any) -> tuple[Procedure, dict[str, Any]]:
    """The procedure and input that read the resource named by `uri`."""
    kind, _, ident = (uri[len("obeya://"):] if isinstance(uri, str) and uri.startswith("obeya://") else "") \
        .partition("/")
    if kind not in ("board", "kpi") or not ident or "/" in ident:
        raise BadResource("uri must be obeya://board/<id> or obeya://kpi/<id>")
    return REGISTRY["boards.get" if kind == "board" else "kpis.get"], {"id": ident}


async def plain(request: web.Request, procedure: Procedure, arguments: dict[str, Any]) -> Any:
    """A procedure's answer as the RPC style renders it, as plain JSON values."""
    return _decode(_encode(rpc_payload(await call_procedure(request, procedure, arguments))))


async def _pages(request: web.Request, name: str, arguments: dict[str, Any]) -> AsyncIterator[Any]:
    """Every row of a list procedure, page after page (its page is `{<key>: rows, nextCursor}` or a plain list)."""
    cursor = None
    while True:
        page = await plain(request, REGISTRY[name], {**arguments, **({"cursor": cursor} if cursor else {})})
        if not isinstance(page, dict):
            for row in page:
                yield row
            return
        for key, rows in page.items():
            if key != "nextCursor" and isinstance(rows, list):
                for row in rows:
                    yield row
        cursor = page.get("nextCursor")
        if not cursor:
            return


async def _readable(request: web.Request) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    async for workspace in _pages(request, "workspaces.list", {}):
        async for project in _pages(request, "projects.list", {"workspaceId": workspace["id"]}):
            async for board in _pages(request, "boards.list", {"projectId": project["id"]}):
                found.append({"uri": f"obeya://board/{board['id']}", "name": str(board.get("name") or board["id"]),
                              "mimeType": "application/json"})
                try:
                    async for kpi in _pages(request, "kpis.list", {"boardId": board["id"]}):
                        found.append({"uri": f"obeya://kpi/{kpi['id']}", "name": str(kpi.get("name") or kpi["id"]),
                                      "mimeType": "application/json"})
                except Forbidden:  # a plan without KPIs: the boards are still there (an outage is the request's)
                    continue
    return found


async def _named(request: web.Request, uris: tuple[str, ...]) -> list[dict[str, Any]]:
    found = []
    for uri in uris:  # the key's own resources, as far as its member can still read them
        procedure, arguments = reader(uri)
        try:
            value = await plain(request, procedure, arguments)
        except (NotFound, Forbidden):  # gone, or out of the member's reach now; an outage is the request's
            continue
        found.append({"uri": uri, "name": str(value.get("name") or uri), "mimeType": "application/json"})
    return found


async def list_resources(request: web.Request, granted: tuple[str, ...], cursor: Any) -> dict[str, Any]:
    """One page of `resources/list`."""
    if cursor is not None and not (isinstance(cursor, str) and cursor.isascii() and cursor.isdigit()
                                   and len(cursor) < 10):
        raise BadResource("cursor is not one this server gave")
    start = int(cursor or 0)
    listed = await (_named(request, granted) if granted else _readable(request))
    page: dict[str, Any] = {"resources": listed[start:start + PAGE]}
    if start + PAGE < len(listed):
        page["nextCursor"] = str(start + PAGE)
    return page
