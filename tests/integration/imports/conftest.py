"""Importing through the real routes: the multipart upload as a browser page sends it (same origin), the other
steps as RPC calls, on a board with one column of every type a CSV can fill."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from tests.harness import Api, Org, Reply
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import screens  # noqa: F401  (the live screens fixture, for test_live.py)

COLUMNS = [
    {"name": "Owner", "type": "people"}, {"name": "Status", "type": "status"},
    {"name": "Due", "type": "date"}, {"name": "Cost", "type": "number", "config": {"decimals": 2}},
    {"name": "Done", "type": "checkbox"}, {"name": "Line", "type": "dropdown", "config": {"options": ["L1", "L2"]}},
    {"name": "Notes", "type": "text"},
]


@pytest.fixture
async def board(org: Org) -> Board:
    return await make_board(org, groups=[{"name": "Backlog"}, {"name": "Done"}], columns=COLUMNS)


async def upload_csv(api: Api, board_id: str, data: bytes, name: str = "items.csv",
                     delimiter: str | None = None) -> Reply:
    form = aiohttp.FormData()
    form.add_field("boardId", board_id)
    if delimiter is not None:
        form.add_field("delimiter", delimiter)
    form.add_field("file", data, filename=name, content_type="text/csv")
    async with api.client.post("/api/trpc/import.uploadCsv", data=form,
                               headers=api.headers({"Origin": f"http://{api.host}"})) as response:
        return await api._reply(response)


async def uploaded(api: Api, board_id: str, data: bytes, **options: Any) -> dict[str, Any]:
    reply = await upload_csv(api, board_id, data, **options)
    assert reply.status == 200, reply.body
    return dict(reply.data)


def column_id(board: Board, name: str) -> str:
    return str(next(c["id"] for c in board.view["columns"] if c["name"] == name))


async def mapped(board: Board, data: bytes, mappings: list[dict[str, Any]], **options: Any) -> str:
    """Upload `data` and map it; the import's id."""
    session = await uploaded(board.api, board.id, data)
    reply = await board.api.mutate("import.mapColumns", {"importId": session["importId"], "mappings": mappings,
                                                         **options})
    assert reply.status == 200, reply.body
    return str(session["importId"])
