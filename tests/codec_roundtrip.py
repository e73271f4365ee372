"""The suite-wide proof of the actor codecs (docs/forwarding.md, "On the wire"): while `round_trips()` is on,
every local `ask` and `query` of an actor type with a `codec` hands the actor its message, and the caller its
reply, through the codec (encoded, then decoded), as they would arrive from another node; and what comes out
must equal what went in. So every test that talks to a board, a KPI or a flow also proves that its messages
and replies cross nodes unchanged.

A difference is raised where it happens (the caller gets a 500) and recorded in `MISMATCHES`, which the
suite's autouse fixture turns into the failing test's message."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from actors.runtime.actor import Actor
from actors.runtime.lifecycle import Activation
from actors.runtime.system import ActorSystem, _codec

MISMATCHES: list[str] = []


def _crossed(what: str, value: Any, encode: Callable[[Any], bytes], decode: Callable[[bytes], Any]) -> Any:
    crossed = decode(encode(value))
    if crossed != value:
        MISMATCHES.append(f"{what} changed crossing nodes:\n  sent     {value!r}\n  received {crossed!r}")
        raise AssertionError(MISMATCHES[-1])
    return crossed


@contextlib.contextmanager
def round_trips() -> Iterator[None]:
    """Patch `ActorSystem` so that local asks (`_reply_of`, which every ask reaches) and queries
    (`_query_here`) go through their actor type's codec."""
    reply_of = ActorSystem._reply_of
    query_here = ActorSystem._query_here

    async def _reply_of(self: ActorSystem, activation: Activation[Any, Any, Any], message: Any) -> Any:
        codec = _codec(type(activation.actor))
        if codec is None:
            return await reply_of(self, activation, message)
        kind = activation.actor.kind
        # Nothing awaits before the post: concurrent first messages keep their order, as without the codec.
        message = _crossed(f"{kind} message", message, codec.encode_message, codec.decode_message)
        reply = await reply_of(self, activation, message)
        return _crossed(f"{kind} reply to {message!r}", reply, codec.encode_reply, codec.decode_reply)

    async def _query_here(self: ActorSystem, actor_type: type[Actor[Any, Any, Any]], actor_id: str,
                          organization_id: str, message: Any) -> Any:
        codec = _codec(actor_type)
        if codec is None:
            return await query_here(self, actor_type, actor_id, organization_id, message)
        message = _crossed(f"{actor_type.kind} query", message, codec.encode_message, codec.decode_message)
        reply = await query_here(self, actor_type, actor_id, organization_id, message)
        return _crossed(f"{actor_type.kind} reply to {message!r}", reply, codec.encode_reply, codec.decode_reply)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ActorSystem, "_reply_of", _reply_of)
        patch.setattr(ActorSystem, "_query_here", _query_here)
        yield
