"""Deciders for comments: list, replies, create, update, delete, pin and react.

Threads are one level deep: a reply's parent is a top-level comment of the same item. The list shows
top-level comments, pinned ones first, then newest first; replies read oldest first. Comments of an
item in the trash are out of reach (404) until it is restored. Mentions of members notify them; the
author is never notified of their own comment, and reactions notify nobody.

Events on the board's stream: `item.commented` when a comment is added, `comment.updated`
when its body, pin or reactions change and `comment.deleted`, so live screens follow every change.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

import msgspec

from actors.board.changes import BoardChange
from actors.board.commands import Command, Outcome, decides
from actors.board.items import find_item
from actors.board.markdown import mention_candidates, render
from actors.board.paging import page_by_key, page_reply
from actors.board.state import BoardState, CommentRow, ItemRow
from actors.files.views import file_url
from actors.runtime.actor import Decision
from protocol import comments as spec
from protocol.errors import BadRequest, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import page_limit
from protocol.registry import Role

# A mention notification quotes the start of the comment; the comment itself is one click away.
EXCERPT_CHARS = 200
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Profile(msgspec.Struct, frozen=True):
    name: str
    avatar: str | None
    active: bool  # an active member may be mentioned


Input = TypeVar("Input")


class CommentCall(msgspec.Struct, Generic[Input], frozen=True):
    """A comment procedure's input with the organization's member profiles, which the service reads so
    that deciding stays free of I/O: authors' names and avatars, and who may be mentioned."""

    input: Input
    profiles: dict[str, Profile]
    base_url: str = ""  # the organization's, for the attachments' download urls


def _find(state: BoardState, comment_id: str, field: str = "id") -> CommentRow:
    comment = state.comments.get(comment_id)
    item = state.items.get(comment.item_id) if comment is not None else None
    if comment is None or item is None or item.deleted_at is not None:
        raise NotFound("comment not found", details=[FieldError(field, "no such comment")])
    return comment


def _author(call: CommentCall[Any], user_id: str | None) -> dict[str, Any] | None:
    if user_id is None:
        return None  # the author's account was deleted
    profile = call.profiles.get(user_id)
    return {"id": user_id, "name": profile.name if profile else None, "avatar": profile.avatar if profile else None}


def comment_view(call: CommentCall[Any], comment: CommentRow, reply_count: int) -> dict[str, Any]:
    return {
        "id": comment.id, "itemId": comment.item_id, "parentId": comment.parent_id, "body": comment.body,
        "bodyHtml": comment.body_html, "mentions": comment.mentions,
        "attachments": _attachments(call, comment),
        "reactions": [{"emoji": code, "users": comment.reactions[code]} for code in spec.REACTIONS
                      if comment.reactions.get(code)],
        "author": _author(call, comment.author_id), "replyCount": reply_count, "isPinned": comment.is_pinned,
        "createdAt": iso(comment.created_at), "updatedAt": iso(comment.updated_at)}


def _attachments(call: CommentCall[Any], comment: CommentRow) -> list[dict[str, Any]]:
    """Each attachment as it was when the comment was made; a comment older than the file store knows only ids."""
    described = {a["id"]: a for a in comment.attachments}
    views = []
    for file_id in comment.attachment_ids:
        about = described.get(file_id)
        views.append({"id": file_id, "name": about["name"], "url": file_url(call.base_url, file_id),
                      "size": about["size"], "type": about["type"]} if about is not None else
                     {"id": file_id, "name": None, "url": None, "size": None, "type": None})
    return views


def _described_files(state: BoardState, file_ids: list[str]) -> list[dict[str, Any]]:
    """The descriptions of a new comment's attachments, which must be files of the organization."""
    unknown = [file_id for file_id in file_ids if file_id not in state.files]
    if unknown:
        raise ValidationFailed.of("attachmentIds", f"not files of this organization: {', '.join(unknown)}")
    return [{"id": f.id, "name": f.name, "size": f.size, "type": f.content_type}
            for f in (state.files[file_id] for file_id in file_ids)]


def _replies(state: BoardState, comment: CommentRow) -> list[CommentRow]:
    return [c for c in state.comments.values() if c.parent_id == comment.id]


def _view(state: BoardState, call: CommentCall[Any], comment: CommentRow) -> dict[str, Any]:
    return comment_view(call, comment, len(_replies(state, comment)) if comment.parent_id is None else 0)


def _item_ref(item: ItemRow) -> dict[str, Any]:
    return {"id": item.id, "name": item.name, "boardId": item.board_id}


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


@decides(spec.LIST, CommentCall[spec.ListCommentsInput])
def list_comments(state: BoardState, command: Command) -> Decision[BoardChange]:
    call: CommentCall[spec.ListCommentsInput] = command.data
    data = call.input
    limit = page_limit(data.limit)
    item = find_item(state, data.itemId, "itemId")
    comments = [c for c in state.comments.values() if c.item_id == item.id]
    replies = Counter(c.parent_id for c in comments if c.parent_id is not None)

    def key(c: CommentRow) -> tuple[int, int, str]:  # pinned first, then newest first
        return (0 if c.is_pinned else 1, -_micros(c.created_at), c.id)

    top = [c for c in comments if c.parent_id is None]
    return Decision(reply=page_reply(page_by_key(top, key, 3, data.cursor, limit, "comments",
                                                 lambda c: comment_view(call, c, replies[c.id]))))


@decides(spec.REPLIES, CommentCall[spec.RepliesInput])
def list_replies(state: BoardState, command: Command) -> Decision[BoardChange]:
    call: CommentCall[spec.RepliesInput] = command.data
    data = call.input
    limit = page_limit(data.limit)
    comment = _find(state, data.commentId, "commentId")

    def key(c: CommentRow) -> tuple[int, str]:  # oldest first: threads read top-down
        return (_micros(c.created_at), c.id)

    return Decision(reply=page_reply(page_by_key(_replies(state, comment), key, 2, data.cursor, limit, "replies",
                                                 lambda c: comment_view(call, c, 0))))


def _rendered(call: CommentCall[Any], body: str) -> tuple[str, list[str]]:
    if not body.strip():
        raise ValidationFailed("a comment needs some text", details=[FieldError("body", "is blank")])
    members = {uid for uid in mention_candidates(body) if (p := call.profiles.get(uid)) is not None and p.active}
    rendered = render(body, members)
    return rendered.html, rendered.mentions


def _notify_mentioned(out: Outcome, call: CommentCall[Any], item: ItemRow, comment: CommentRow,
                      users: list[str]) -> None:
    author = _author(call, comment.author_id)
    name = (author or {}).get("name") or "Someone"
    excerpt = comment.body if len(comment.body) <= EXCERPT_CHARS else comment.body[:EXCERPT_CHARS - 1] + "…"
    for user_id in users:
        if user_id != comment.author_id:
            out.notify(user_id, "mention", f"{name} mentioned you on {item.name}", excerpt, "item", item.id)


@decides(spec.CREATE, CommentCall[spec.CreateCommentInput])
def create_comment(state: BoardState, command: Command) -> Decision[BoardChange]:
    call: CommentCall[spec.CreateCommentInput] = command.data
    data = call.input
    board = state.board
    assert board is not None
    item = find_item(state, data.itemId, "itemId")
    if data.parentId is not None:
        parent = _find(state, data.parentId, "parentId")
        if parent.item_id != item.id:
            raise BadRequest("the parent comment is on another item",
                             details=[FieldError("parentId", "not a comment of this item")])
        if parent.parent_id is not None:
            raise BadRequest("a reply cannot be replied to; reply to the top-level comment",
                             details=[FieldError("parentId", "is a reply")])
    html, mentions = _rendered(call, data.body)
    attachment_ids = list(dict.fromkeys(data.attachmentIds))
    comment = CommentRow(
        id=new_id(Prefix.COMMENT), organization_id=board.organization_id, board_id=board.id, item_id=item.id,
        parent_id=data.parentId, author_id=command.caller.user_id, body=data.body, body_html=html,
        mentions=mentions, attachment_ids=attachment_ids, attachments=_described_files(state, attachment_ids),
        reactions={}, is_pinned=False, created_at=command.now, updated_at=command.now)
    out = Outcome(command)
    out.put(comment)
    view = comment_view(call, comment, 0)
    out.log("item", item.id, "comment.created", commentId=comment.id, parentId=comment.parent_id)
    out.emit("item.commented", {"comment": view, "item": _item_ref(item)})
    _notify_mentioned(out, call, item, comment, mentions)
    return out.decision(view)


def _changed(out: Outcome, state: BoardState, call: CommentCall[Any], after: CommentRow, action: str,
             diff: dict[str, Any]) -> dict[str, Any]:
    out.put(after)
    view = _view(state, call, after)
    out.log("item", after.item_id, action, commentId=after.id, changes=diff)
    out.emit("comment.updated", {"comment": view, "item": _item_ref(state.items[after.item_id]), "changes": diff})
    return view


@decides(spec.UPDATE, CommentCall[spec.UpdateCommentInput])
def update_comment(state: BoardState, command: Command) -> Decision[BoardChange]:
    call: CommentCall[spec.UpdateCommentInput] = command.data
    data = call.input
    comment = _find(state, data.id)
    if comment.author_id is None or comment.author_id != command.caller.user_id:
        raise Forbidden("only the author may edit a comment")
    html, mentions = _rendered(call, data.body)
    out = Outcome(command)
    if data.body == comment.body:
        return out.decision(_view(state, call, comment))
    after = msgspec.structs.replace(comment, body=data.body, body_html=html, mentions=mentions,
                                    updated_at=command.now)
    view = _changed(out, state, call, after, "comment.updated",
                    {"body": {"old": comment.body, "new": data.body}})
    _notify_mentioned(out, call, state.items[comment.item_id], after,
                      [uid for uid in mentions if uid not in comment.mentions])
    return out.decision(view)


@decides(spec.DELETE, CommentCall[spec.CommentIdInput])
def delete_comment(state: BoardState, command: Command) -> Decision[BoardChange]:
    comment = _find(state, command.data.input.id)
    caller = command.caller
    is_admin = caller.role is not None and caller.role >= Role.ADMIN
    if not is_admin and (comment.author_id is None or comment.author_id != caller.user_id):
        raise Forbidden("only the author or an admin may delete a comment")
    gone = [comment, *_replies(state, comment)]
    out = Outcome(command)
    for row in gone:
        out.remove(CommentRow, row.id)
    ids = [row.id for row in gone]
    out.log("item", comment.item_id, "comment.deleted", commentId=comment.id, deletedIds=ids)
    out.emit("comment.deleted", {"comment": {"id": comment.id, "itemId": comment.item_id,
                                             "parentId": comment.parent_id},
                                 "deletedIds": ids, "item": _item_ref(state.items[comment.item_id])})
    return out.decision({"success": True, "id": comment.id})


@decides(spec.PIN, CommentCall[spec.PinCommentInput])
def pin_comment(state: BoardState, command: Command) -> Decision[BoardChange]:
    call: CommentCall[spec.PinCommentInput] = command.data
    data = call.input
    comment = _find(state, data.id)
    if comment.parent_id is not None:
        raise BadRequest("only top-level comments can be pinned", details=[FieldError("id", "is a reply")])
    out = Outcome(command)
    if comment.is_pinned == data.pinned:
        return out.decision(_view(state, call, comment))
    after = msgspec.structs.replace(comment, is_pinned=data.pinned)
    view = _changed(out, state, call, after, "comment.pinned" if data.pinned else "comment.unpinned",
                    {"isPinned": {"old": comment.is_pinned, "new": data.pinned}})
    return out.decision(view)


@decides(spec.REACT, CommentCall[spec.ReactInput])
def react(state: BoardState, command: Command) -> Decision[BoardChange]:
    call: CommentCall[spec.ReactInput] = command.data
    data = call.input
    comment = _find(state, data.commentId, "commentId")
    user_id = command.caller.uid
    users = comment.reactions.get(data.emoji, [])
    toggled = [u for u in users if u != user_id] if user_id in users else [*users, user_id]
    reactions = {code: who for code, who in {**comment.reactions, data.emoji: toggled}.items() if who}
    after = msgspec.structs.replace(comment, reactions=reactions)
    out = Outcome(command)
    view = _changed(out, state, call, after, "comment.reacted",
                    {"reactions": {"old": comment_view(call, comment, 0)["reactions"],
                                   "new": comment_view(call, after, 0)["reactions"]}})
    return out.decision(view)
