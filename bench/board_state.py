"""Board state benchmark (run by hand; prints figures, asserts nothing): the time one message costs the
board actor in memory, decide plus apply, on a board of 100 items and on one of 10,000, and their ratio.
A ratio near 1 means a message costs time proportional to what it changes, not to the board's size.

    python bench/board_state.py

No database and no server: it builds the state in memory and calls the actor's pure functions, as a turn
does. `items.list` (first page) is the read path's cost for comparison; "items.list, then setValue" lists
the state each change leaves, as screens do (the board order is then handed on, not sorted again)."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from actors.board.actor import BoardActor  # noqa: E402
from actors.board.commands import Command  # noqa: E402
from actors.board.state import BoardState  # noqa: E402
from protocol import boards as board_spec  # noqa: E402
from protocol import items as spec  # noqa: E402
from protocol.caller import Caller, Organization  # noqa: E402

ORG = Organization("org_bench", "bench", "Bench", "enterprise")
CALLER = Caller(request_id="bench", organization=ORG, user_id="usr_bench")
NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
ACTOR = BoardActor("brd_bench", ORG.id, None)  # type: ignore[arg-type]


def step(state: BoardState, procedure: str, data: Any) -> tuple[BoardState, Any]:
    decision = ACTOR.decide(state, Command(procedure, CALLER, data, NOW, frozenset({"usr_bench"}), "brd_bench"))
    if decision.change is not None:
        state = BoardActor.apply(state, decision.change)
    return state, decision.reply


def board_of(size: int) -> BoardState:
    state, view = step(BoardState(), board_spec.CREATE.name,
                       board_spec.CreateBoardInput(projectId="prj_bench", name="Bench"))
    groups = [g["id"] for g in view["groups"]]
    for index in range(size):
        state, _ = step(state, spec.CREATE.name, spec.CreateItemInput(
            boardId="brd_bench", groupId=groups[index % len(groups)], name=f"Item {index}"))
    return state


def per_message(state: BoardState, make: Callable[[BoardState, int], tuple[str, Any]], rounds: int) -> float:
    """Mean microseconds per message, each decided and applied against the state the previous one left."""
    started = time.perf_counter()
    for index in range(rounds):
        procedure, data = make(state, index)
        state, _ = step(state, procedure, data)
    return (time.perf_counter() - started) / rounds * 1e6


def main() -> None:
    random.seed(7)
    boards = {size: board_of(size) for size in (100, 10_000)}
    status = {size: next(c.id for c in s.columns.values() if c.type == "status") for size, s in boards.items()}
    group = {size: next(iter(s.groups)) for size, s in boards.items()}

    def set_value(size: int) -> Callable[[BoardState, int], tuple[str, Any]]:
        ids = list(boards[size].items)
        labels = ["Done", "Stuck", "Working on it"]
        return lambda state, i: (spec.SET_VALUE.name, spec.SetValueInput(
            itemId=random.choice(ids), columnId=status[size], value=labels[i % 3]))

    def create(size: int) -> Callable[[BoardState, int], tuple[str, Any]]:
        return lambda state, i: (spec.CREATE.name, spec.CreateItemInput(
            boardId="brd_bench", groupId=group[size], name=f"New {i}"))

    def listing(size: int, cursor_page: int) -> Callable[[BoardState, int], tuple[str, Any]]:
        def make(state: BoardState, i: int) -> tuple[str, Any]:
            cursor = None
            for _ in range(cursor_page):
                _, page = step(state, spec.LIST.name, spec.ListItemsInput(boardId="brd_bench", cursor=cursor))
                cursor = page["next_cursor"]
            return spec.LIST.name, spec.ListItemsInput(boardId="brd_bench", cursor=cursor)
        return make

    def list_then_set(size: int) -> Callable[[BoardState, int], tuple[str, Any]]:
        change = set_value(size)

        def make(state: BoardState, i: int) -> tuple[str, Any]:
            step(state, spec.LIST.name, spec.ListItemsInput(boardId="brd_bench"))  # a screen reloads after each change
            return change(state, i)
        return make

    cases: list[tuple[str, Callable[[int], Callable[[BoardState, int], tuple[str, Any]]], int]] = [
        ("items.setValue", set_value, 2000),
        ("items.create", create, 500),
        ("items.list (first page)", lambda size: listing(size, 0), 200),
        ("items.list, then setValue", list_then_set, 200),
    ]
    print(f"{'message':28} {'100 items':>12} {'10,000 items':>14} {'ratio':>8}")
    for name, make, rounds in cases:
        small = per_message(boards[100], make(100), rounds)
        large = per_message(boards[10_000], make(10_000), rounds)
        print(f"{name:28} {small:10.1f}µs {large:12.1f}µs {large / small:8.1f}")


if __name__ == "__main__":
    main()
