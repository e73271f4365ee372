"""The two bounds every decoded JSON value from outside is held to, whoever decodes it (RPC and REST inputs,
web/inputs.py; inbound automation webhooks, actors/automations/triggers.py; Socket.IO events through
`decode_input`): it nests at most MAX_DEPTH levels, and every integer fits in 64 bits. Both walks are
iterative, so a value too deep for a recursive walk is still measured."""

from __future__ import annotations

from typing import Any

from protocol.storable import paths_where

# The deepest a request's JSON may nest, its envelope included (`{"json": ...}`, a batch's `{"0": ...}`): far
# beyond any input of ours, and far below what exhausts the stack of a decoder or a recursive walk.
MAX_DEPTH = 64
# PostgreSQL's bigint: a larger integer fails when sent as a parameter.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests deeper than `limit` (a scalar is depth 0, `[]` depth 1). Iterative, and it stops
    at the first container past the limit."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        current, depth = pending.pop()
        if isinstance(current, dict):
            children: Any = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        if depth + 1 > limit:
            return True
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _oversized(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX


def oversized_ints(value: Any) -> list[str]:
    """The paths of every integer outside 64 bits (see protocol/storable.py `paths_where`)."""
    return paths_where(value, _oversized)
