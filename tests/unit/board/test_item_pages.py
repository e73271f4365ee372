"""`items.list` pages are listed and encoded once per board state and query (actors/board/item_queries.py): the
same state answers the same bytes, any committed change starts afresh, and a state keeps at most MAX_PAGES."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from actors.board.actor import BoardActor
from actors.board.commands import Command
from actors.board.item_queries import MAX_PAGES, list_items
from actors.board.state import BoardState
from protocol import boards as board_spec
from protocol import items as spec
from protocol.caller import Caller, Organization
from protocol.encoded import EncodedList
from protocol.pagination import Page
from web.envelopes import rest_body, rpc_result

ORG = Organization("org_pages", "pages", "Pages", "enterprise")
CALLER = Caller(request_id="test", organization=ORG, user_id="usr_pages")
NOW = datetime(2026, 11, 26, 10, 0, tzinfo=UTC)
ACTOR = BoardActor("brd_pages", ORG.id, None)  # type: ignore[arg-type]


def step(state: BoardState, procedure: str, data: Any) -> tuple[BoardState, Any]:
    decision = ACTOR.decide(state, Command(procedure, CALLER, data, NOW, frozenset({"usr_pages"}), "brd_pages"))
    if decision.change is not None:
        state = BoardActor.apply(state, decision.change)
    return state, decision.reply


def board(items: int) -> BoardState:
    state, view = step(BoardState(), board_spec.CREATE.name,
                       board_spec.CreateBoardInput(projectId="prj_pages", name="Pages"))
    for index in range(items):
        state, _ = step(state, spec.CREATE.name, spec.CreateItemInput(
            boardId="brd_pages", groupId=view["groups"][0]["id"], name=f"Item {index}"))
    return state


def encoded(page: Page) -> bytes:
    return msgspec.json.encode(rpc_result(page))


def plain(page: Page) -> bytes:
    return msgspec.json.encode(rpc_result(Page(list(page.items), page.next_cursor, page.limit, page.key)))


def test_one_state_lists_and_encodes_a_page_once() -> None:
    state = board(5)
    query = spec.ListItemsInput(boardId="brd_pages", limit=3)
    first = list_items(state, query)
    assert isinstance(first.items, EncodedList) and len(first.items) == 3
    assert list_items(state, spec.ListItemsInput(boardId="brd_pages", limit=3)) is first
    assert encoded(first) == plain(first)
    assert msgspec.json.encode(rest_body(first)) == msgspec.json.encode(
        rest_body(Page(list(first.items), first.next_cursor, first.limit)))


def test_a_committed_change_gives_a_new_encoding() -> None:
    state = board(3)
    query = spec.ListItemsInput(boardId="brd_pages")
    before = list_items(state, query)
    item_id = before.items[0]["id"]
    state, _ = step(state, spec.UPDATE.name, spec.UpdateItemInput(id=item_id, name="Renamed"))
    after = list_items(state, query)
    assert after is not before
    assert b'"Renamed"' in encoded(after) and b'"Renamed"' not in encoded(before)
    assert encoded(after) == plain(after)


def test_a_state_keeps_at_most_max_pages() -> None:
    state = board(2)
    for limit in range(1, MAX_PAGES + 6):
        list_items(state, spec.ListItemsInput(boardId="brd_pages", limit=limit))
    assert len(state.item_pages) == MAX_PAGES
    latest = list_items(state, spec.ListItemsInput(boardId="brd_pages", limit=MAX_PAGES + 5))
    assert latest.limit == MAX_PAGES + 5


def test_an_encoded_page_crosses_nodes_as_a_plain_list() -> None:
    page = list_items(board(2), spec.ListItemsInput(boardId="brd_pages"))
    crossed = msgspec.msgpack.decode(msgspec.msgpack.encode(page.items))
    assert type(crossed) is list and crossed == list(page.items)
