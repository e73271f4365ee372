"""Comments on items: inputs and procedure declarations."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.fields import Cursor, Id
from protocol.registry import declare

# The spec gives no length; 10,000 characters holds a long shift hand-over note and keeps a board's
# in-memory comments bounded.
Body = Annotated[str, msgspec.Meta(min_length=1, max_length=10_000)]
# Pre-uploaded files are named by the spec's file ids (`att_`, `file_`); at most 20 on one comment.
AttachmentId = Annotated[str, msgspec.Meta(pattern=r"^(att|file)_[A-Za-z0-9]{1,60}$")]
AttachmentIds = Annotated[list[AttachmentId], msgspec.Meta(max_length=20)]
REACTIONS = ("thumbsup", "thumbsdown", "heart", "check", "eyes", "rocket", "party", "thinking")
Reaction = Literal["thumbsup", "thumbsdown", "heart", "check", "eyes", "rocket", "party", "thinking"]


class ListCommentsInput(msgspec.Struct):
    itemId: Id
    cursor: Cursor | None = None
    limit: int | None = None


class RepliesInput(msgspec.Struct):
    commentId: Id
    cursor: Cursor | None = None
    limit: int | None = None


class CreateCommentInput(msgspec.Struct):
    itemId: Id
    body: Body
    parentId: Id | None = None
    attachmentIds: AttachmentIds = msgspec.field(default_factory=list)


class UpdateCommentInput(msgspec.Struct):
    id: Id
    body: Body


class CommentIdInput(msgspec.Struct):
    id: Id


class PinCommentInput(msgspec.Struct):
    id: Id
    pinned: bool


class ReactInput(msgspec.Struct):
    commentId: Id
    emoji: Reaction


READ, WRITE = "read:items", "write:items"

LIST = declare("comments.list", "query", ListCommentsInput, key_scope=READ,
               summary="An item's top-level comments, pinned first, then newest first")
REPLIES = declare("comments.replies", "query", RepliesInput, key_scope=READ,
                  summary="The replies to a comment, oldest first")
CREATE = declare("comments.create", "mutation", CreateCommentInput, key_scope=WRITE,
                 summary="Comment on an item or reply to a comment; @<user_id> mentions notify members")
UPDATE = declare("comments.update", "mutation", UpdateCommentInput, key_scope=WRITE,
                 summary="Edit the body of one's own comment")
DELETE = declare("comments.delete", "mutation", CommentIdInput, key_scope=WRITE, token_scope="delete",
                 summary="Delete a comment and its replies (the author, or an admin)")
PIN = declare("comments.pin", "mutation", PinCommentInput, key_scope=WRITE, summary="Pin or unpin a comment")
REACT = declare("comments.react", "mutation", ReactInput, key_scope=WRITE,
                summary="Toggle the caller's reaction on a comment")
