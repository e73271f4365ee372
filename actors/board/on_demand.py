"""What a board keeps out of memory until a message needs it: items in the trash, items arriving from
another board, comments, and the organization's files a message names (comment attachments, `file` column
values: every `file_...` string of a message's input, so any command that sets values is covered). Before a
turn, `BoardActor.prepare` asks each message what it needs (`NEEDS`, by procedure) and reads it all in one
round of queries; what was read stays in memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

import asyncpg
import msgspec
from immutables import Map

from actors.board.changes import index_items
from actors.board.commands import Command
from actors.board.comments import CommentCall
from actors.board.form_items import FORM_ITEM
from actors.board.items import TAKE_ITEM, TRASH_DAYS
from actors.board.state import BoardState, CommentRow, FileRef, ItemRow
from actors.board.trash import PURGE_TRASH
from actors.kernel.records import row_from_record
from protocol import comments as comment_spec
from protocol import items as item_spec
from protocol.ids import Prefix
from storage import boards as repo
from storage import files as file_repo


@dataclass
class Needs:
    trashed: set[str] = field(default_factory=set)          # item ids (with their sub-items)
    expired_before: Any = None                               # every trashed item deleted before this time
    arriving: set[str] = field(default_factory=set)          # item ids moving to this board
    comments_of_items: set[str] = field(default_factory=set)
    comments_by_id: set[str] = field(default_factory=set)    # comment ids: their items' comments
    files: set[str] = field(default_factory=set)             # file ids the messages name
    made: set[str] = field(default_factory=set)              # form item ids: were they made already?

    def __bool__(self) -> bool:
        return bool(self.trashed or self.expired_before or self.arriving or self.comments_of_items
                    or self.comments_by_id or self.files or self.made)


Need = Callable[[BoardState, Command, Needs], None]
NEEDS: dict[str, Need] = {}


def _needs(*procedures: str) -> Callable[[Need], Need]:
    def register(need: Need) -> Need:
        for procedure in procedures:
            NEEDS[procedure] = need
        return need
    return register


def _items_comments(state: BoardState, needs: Needs, item_ids: list[str]) -> None:
    for item_id in item_ids:
        if item_id not in state.comments_of:
            needs.comments_of_items.add(item_id)


@_needs(comment_spec.CREATE.name, comment_spec.LIST.name)
def _comment_item(state: BoardState, command: Command, needs: Needs) -> None:
    _items_comments(state, needs, [command.data.input.itemId])


@_needs(comment_spec.UPDATE.name, comment_spec.DELETE.name, comment_spec.PIN.name)
def _comment_by_id(state: BoardState, command: Command, needs: Needs) -> None:
    if command.data.input.id not in state.comments:
        needs.comments_by_id.add(command.data.input.id)


@_needs(comment_spec.REACT.name, comment_spec.REPLIES.name)
def _comment_by_comment_id(state: BoardState, command: Command, needs: Needs) -> None:
    if command.data.input.commentId not in state.comments:
        needs.comments_by_id.add(command.data.input.commentId)


@_needs(item_spec.RESTORE.name)
def _restore(state: BoardState, command: Command, needs: Needs) -> None:
    if command.data.id not in state.items:
        needs.trashed.add(command.data.id)


@_needs(item_spec.GET.name)
def _get(state: BoardState, command: Command, needs: Needs) -> None:
    _items_comments(state, needs, [command.data.id])


@_needs(PURGE_TRASH)
def _purge(state: BoardState, command: Command, needs: Needs) -> None:
    needs.expired_before = command.now - timedelta(days=TRASH_DAYS)


@_needs(FORM_ITEM)
def _form_item(state: BoardState, command: Command, needs: Needs) -> None:
    item_id = command.data.item_id
    if item_id not in state.items and item_id not in state.made:
        needs.made.add(item_id)


@_needs(TAKE_ITEM)
def _take(state: BoardState, command: Command, needs: Needs) -> None:
    needs.arriving.add(command.data.item_id)


FILE_PREFIX = f"{Prefix.FILE}_"


def named_files(data: Any, found: set[str]) -> None:
    """Add every `file_...` string in a message's input to `found` (a comment call: its input, not the
    member profiles that travel with it)."""
    stack = [data.input if isinstance(data, CommentCall) else data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if value.startswith(FILE_PREFIX):
                found.add(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
        elif isinstance(value, msgspec.Struct):
            stack.extend(getattr(value, name) for name in value.__struct_fields__)


def _files_of_turn(state: BoardState, needs: Needs, rows: list[Any]) -> Map[str, FileRef]:
    known = {i: state.files[i] for i in needs.files if i in state.files}
    known.update({r["id"]: FileRef(id=r["id"], name=r["name"], size=r["size"], content_type=r["content_type"])
                  for r in rows})
    return Map(known)


async def load_needed(pool: asyncpg.Pool, state: BoardState, needs: Needs) -> BoardState:
    assert state.board is not None
    board_id, org_id = state.board.id, state.board.organization_id
    async with pool.acquire() as conn:
        items: list[asyncpg.Record] = []
        if needs.trashed:
            items += await repo.trashed_items(conn, org_id, board_id, list(needs.trashed))
        if needs.expired_before is not None:
            items += await repo.expired_items(conn, org_id, board_id, needs.expired_before)
        arriving = []
        if needs.arriving:
            arriving = await repo.arriving_items(conn, org_id, board_id, list(needs.arriving))
        comment_items = set(needs.comments_of_items)
        if needs.comments_by_id:
            comment_items |= await repo.items_commented(conn, org_id, board_id, list(needs.comments_by_id))
        if needs.expired_before is not None:
            comment_items |= {r["id"] for r in items}
        comment_items -= state.comments_of
        comments = await repo.comments_on(conn, org_id, board_id, list(comment_items)) if comment_items else []
        made = await repo.made_items(conn, org_id, list(needs.made)) if needs.made else set()
        unknown = [i for i in needs.files if i not in state.files]
        files = await file_repo.files_by_ids(conn, org_id, unknown) if unknown else []
    found = {i.id: i for i in (row_from_record(ItemRow, r) for r in items) if i.id not in state.items}
    fields: dict[str, Any] = {}
    if made:
        fields["made"] = state.made | made
    if needs.files:
        fields["files"] = _files_of_turn(state, needs, files)
    if needs.arriving:
        # Not this board's items yet: held apart, so nothing but `board.takeItem` sees them.
        fields["arriving"] = Map({r["id"]: row_from_record(ItemRow, r) for r in arriving})
    if found:
        _, children = index_items(found.values())
        merged_children = state.children.mutate()
        for parent_id, ids in children.items():
            merged_children[parent_id] = state.children.get(parent_id, frozenset()) | ids
        fields.update(items=state.items.update(found), children=merged_children.finish())
    if comment_items:
        fields["comments"] = state.comments.update({r["id"]: row_from_record(CommentRow, r) for r in comments})
        fields["comments_of"] = state.comments_of | comment_items
    return replace(state, **fields) if fields else state


async def comments_for_read(pool: asyncpg.Pool, org_id: str, board_id: str, *, item_id: str | None = None,
                            comment_id: str | None = None) -> Map[str, CommentRow]:
    """An item's comments for a read outside the mailbox (named by the item, or by one of its comments).
    Read after the write it may follow was committed, so a reader sees its own comment."""
    if comment_id is not None:
        rows = await repo.comments_beside(pool, org_id, board_id, comment_id)
    else:
        assert item_id is not None
        rows = await repo.comments_on_item(pool, org_id, board_id, item_id)
    return Map({r["id"]: row_from_record(CommentRow, r) for r in rows})
