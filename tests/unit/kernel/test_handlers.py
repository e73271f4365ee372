"""The handler table: each procedure implemented once within a module's list and across the lists the server
gathers, and every declared procedure implemented by the server's table."""

from __future__ import annotations

from typing import Any

import pytest

from actors.kernel.handlers import HandlerTable, Implementations
from protocol import boards
from protocol.caller import Caller
from protocol.registry import REGISTRY
from server.domains import HANDLERS


async def _handler(node: Any, caller: Caller, data: Any) -> Any:
    return data


def test_a_procedure_implemented_twice_in_one_list_is_refused() -> None:
    procedures = Implementations()
    procedures.implement(boards.CREATE)(_handler)

    with pytest.raises(ValueError, match="boards.create implemented twice"):
        procedures.implement(boards.CREATE)(_handler)


def test_a_procedure_implemented_in_two_lists_is_refused() -> None:
    first, second = Implementations(), Implementations()
    first.implement(boards.CREATE)(_handler)
    second.implement(boards.CREATE)(_handler)

    with pytest.raises(ValueError, match="boards.create implemented twice"):
        HandlerTable(first, second)


def test_the_table_finds_each_implementation_and_names_the_missing_ones() -> None:
    procedures = Implementations()
    procedures.implement(boards.GET)(_handler)
    table = HandlerTable(procedures)

    assert table[boards.GET.name] is _handler
    assert table.unimplemented() == sorted(set(REGISTRY) - {boards.GET.name})


def test_the_server_implements_every_declared_procedure() -> None:
    assert HANDLERS.unimplemented() == []
