"""Runs one procedure call for either router: authorize, decode the input, call the implementation."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import structlog
from aiohttp import web

from actors.kernel.authorization import authorize
from actors.kernel.handlers import HandlerTable
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.registry import Procedure
from web.inputs import decode_input
from web.keys import CALLER, CALLS, HANDLER_TABLE, NODE, PROCEDURE, RETURNS_SECRET


async def run_procedure(handlers: HandlerTable, node: Node, caller: Caller, procedure: Procedure, raw_input: Any, *,
                        from_query: bool = False) -> Any:
    """Authorize, decode the input, run the implementation in `handlers`: every call, from the web or from the
    CLI."""
    authorize(procedure, caller)
    data = decode_input(procedure.input, raw_input, from_query=from_query)
    return await handlers[procedure.name](node, caller, data)


async def call_procedure(request: web.Request, procedure: Procedure, raw_input: Any, *,
                         from_query: bool = False) -> Any:
    request[PROCEDURE] = procedure.name
    if procedure.returns_secret:  # one such call makes the whole response (a batch too) one not to keep
        request[RETURNS_SECRET] = True
    structlog.contextvars.bind_contextvars(procedure=procedure.name)
    caller = request[CALLER]
    if caller.idempotency is not None:  # each call of a batch is a call of its own to the actors
        number = request.get(CALLS, 0)
        request[CALLS] = number + 1
        caller = replace(caller, idempotency=f"{caller.idempotency}.{number}")
    return await run_procedure(request.app[HANDLER_TABLE], request.app[NODE], caller, procedure, raw_input,
                               from_query=from_query)
