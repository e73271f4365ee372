"""BoardActor: one in-memory board per id. Every mutation of a board's groups, columns, items and
comments is decided here against memory, committed in the turn's one transaction, then applied."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

import asyncpg
from immutables import Map

from actors.board import comments, form_items, items, people, structure, trash  # noqa: F401  (register their deciders)
from actors.board.changes import BoardChange, add_change_writes, apply_change, index_items, persist_changes
from actors.board.commands import DATA_TYPES, DECIDERS, Command
from actors.board.on_demand import NEEDS, Needs, comments_for_read, load_needed, named_files
from actors.board.state import BoardRow, BoardState, ColumnRow, GroupRow, ItemRow
from actors.kernel.records import row_from_record
from actors.runtime.actor import Actor, Decision
from actors.runtime.codecs import ProcedureCodec
from actors.runtime.forwarding import ActorCodec
from protocol.errors import NotFound
from storage import boards as repo
from storage.turn_statement import TurnStatement

CREATE_BOARD = "boards.create"


class BoardActor(Actor[BoardState, Command, BoardChange]):
    kind = "board"
    codec: ClassVar[ActorCodec] = ProcedureCodec(Command, DATA_TYPES)

    async def load(self, conn: asyncpg.Connection) -> BoardState:
        return await read_state(conn, self.organization_id, self.actor_id)

    async def prepare(self, pool: asyncpg.Pool, state: BoardState, messages: list[Command]) -> BoardState:
        if state.board is None:
            return state
        needs = Needs()
        for message in messages:
            need = NEEDS.get(message.procedure)
            if need is not None:
                need(state, message, needs)
            named_files(message.data, needs.files)
        if not needs:
            return state
        return await load_needed(pool, state, needs)

    @staticmethod
    def call_key(message: Command) -> str | None:
        return message.caller.call_key(message.procedure)

    def decide(self, state: BoardState, message: Command) -> Decision[BoardChange]:
        if state.board is None and message.procedure != CREATE_BOARD:
            raise NotFound("board not found")
        return DECIDERS[message.procedure](state, message)

    @staticmethod
    async def query_state(pool: asyncpg.Pool, organization_id: str, actor_id: str, state: BoardState,
                          message: Command) -> BoardState:
        """A read that shows an item's comments reads them from the database (read after the write it may
        follow was committed, so a reader sees their own comment)."""
        if message.comments_of_item is None and message.comments_of_comment is None:
            return state
        shown = await comments_for_read(pool, organization_id, actor_id, item_id=message.comments_of_item,
                                        comment_id=message.comments_of_comment)
        return replace(state, comments=shown)

    @staticmethod
    def query(state: BoardState, message: Command) -> Any:
        """A read's reply from committed state (`ActorSystem.query`): a query decider, nothing changed."""
        if state.board is None:
            raise NotFound("board not found")
        decision = DECIDERS[message.procedure](state, message)
        assert decision.change is None and not decision.events, f"{message.procedure} is not a read"
        return decision.reply

    def add_writes(self, statement: TurnStatement, changes: list[BoardChange]) -> bool:
        return add_change_writes(statement, self.organization_id, changes)

    async def persist(self, conn: asyncpg.Connection, changes: list[BoardChange]) -> None:
        await persist_changes(conn, self.organization_id, changes)

    @staticmethod
    def apply(state: BoardState, change: BoardChange) -> BoardState:
        return apply_change(state, change)


async def read_state(conn: asyncpg.Connection, organization_id: str, board_id: str) -> BoardState:
    """The board's state as committed: what an activation loads, and what a meeting's start renders the board from
    (actors/meetings/snapshot.py). An empty state when the board does not exist."""
    board = await repo.board_row(conn, organization_id, board_id)
    if board is None:
        return BoardState()  # only `boards.create` is accepted by an empty board

    def rows(row_type: type, records: list[asyncpg.Record]) -> Map[str, Any]:
        return Map({r["id"]: row_from_record(row_type, r) for r in records})

    # Live state only: items in the trash, items on their way to another board and every comment
    # stay in the database until a message needs them (`prepare`).
    live = rows(ItemRow, await repo.live_items(conn, board_id))
    ends, children = index_items(live.values())
    return BoardState(
        board=row_from_record(BoardRow, board),
        groups=rows(GroupRow, await repo.board_groups(conn, board_id)),
        columns=rows(ColumnRow, await repo.board_columns(conn, board_id)),
        items=live, ends=ends, children=children)


def replay(state: BoardState, changes: Sequence[BoardChange]) -> BoardState:
    """Fold changes into a state: what recovery and tests use to check memory against the database."""
    for change in changes:
        state = apply_change(state, change)
    return state
