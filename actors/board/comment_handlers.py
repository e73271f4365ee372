"""Comment procedures: each is routed to the actor of the board the item or comment is on,
with the organization's member profiles attached (authors' names and avatars, who may be mentioned),
so the board actor decides and renders without I/O."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from actors.board.comments import CommentCall, Profile
from actors.board.markdown import mention_candidates
from actors.board.routing import ask_board, board_for, read_board
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import comments as spec
from protocol.caller import Caller
from protocol.pagination import Page
from protocol.registry import Procedure
from storage import profiles as repo

procedures = Implementations()


async def member_profiles(node: Node, org_id: str, needed: Iterable[str]) -> dict[str, Profile]:
    """Names, avatars and memberships, cached (`node.profiles`) at most `PROFILES_SECONDS` old; a user the
    cache does not know yet (a new member commenting or being mentioned) makes it reload at once."""
    known, cached = node.profiles.peek(org_id)
    if known and cached is not None and all(user_id in cached for user_id in needed):
        return cached
    profiles = {r["id"]: Profile(r["name"], r["avatar"], r["active"])
                for r in await repo.member_profiles(node.pool, org_id)}
    node.profiles.put(org_id, profiles)
    return profiles


def _base_url(node: Node, caller: Caller) -> str:
    return node.base_url(caller.organization.slug) if caller.organization is not None else ""


async def _ask(node: Node, caller: Caller, board_id: str, procedure: Procedure, data: Any,
               body: str | None = None) -> Any:
    needed = {caller.uid, *(mention_candidates(body) if body is not None else ())}
    call = CommentCall(data, await member_profiles(node, caller.org_id, needed), _base_url(node, caller))
    return await ask_board(node, caller, board_id, procedure.name, call)


async def _read(node: Node, caller: Caller, board_id: str, procedure: Procedure, data: Any) -> Page:
    call = CommentCall(data, await member_profiles(node, caller.org_id, {caller.uid}), _base_url(node, caller))
    if isinstance(data, spec.RepliesInput):
        return Page(**await read_board(node, caller, board_id, procedure.name, call,
                                       comments_of_comment=data.commentId))
    return Page(**await read_board(node, caller, board_id, procedure.name, call, comments_of_item=data.itemId))


@procedures.implement(spec.LIST)
async def list_comments(node: Node, caller: Caller, data: spec.ListCommentsInput) -> Any:
    return await _read(node, caller, await board_for(node, caller, data.itemId), spec.LIST, data)


@procedures.implement(spec.REPLIES)
async def list_replies(node: Node, caller: Caller, data: spec.RepliesInput) -> Any:
    return await _read(node, caller, await board_for(node, caller, data.commentId, "comment"), spec.REPLIES, data)


@procedures.implement(spec.CREATE)
async def create_comment(node: Node, caller: Caller, data: spec.CreateCommentInput) -> Any:
    board_id = await board_for(node, caller, data.itemId)
    comment = await _ask(node, caller, board_id, spec.CREATE, data, data.body)
    node.remember_board(comment["id"], board_id)
    return comment


@procedures.implement(spec.UPDATE)
async def update_comment(node: Node, caller: Caller, data: spec.UpdateCommentInput) -> Any:
    return await _ask(node, caller, await board_for(node, caller, data.id, "comment"), spec.UPDATE, data, data.body)


@procedures.implement(spec.DELETE)
async def delete_comment(node: Node, caller: Caller, data: spec.CommentIdInput) -> Any:
    return await _ask(node, caller, await board_for(node, caller, data.id, "comment"), spec.DELETE, data)


@procedures.implement(spec.PIN)
async def pin_comment(node: Node, caller: Caller, data: spec.PinCommentInput) -> Any:
    return await _ask(node, caller, await board_for(node, caller, data.id, "comment"), spec.PIN, data)


@procedures.implement(spec.REACT)
async def react(node: Node, caller: Caller, data: spec.ReactInput) -> Any:
    return await _ask(node, caller, await board_for(node, caller, data.commentId, "comment"), spec.REACT, data)
