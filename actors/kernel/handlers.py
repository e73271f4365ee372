"""The table of procedure implementations: each procedure declared in `protocol/` is implemented once,
by a function registered here with `@implement(procedure)`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from protocol.caller import Caller
from protocol.registry import REGISTRY, Procedure

if TYPE_CHECKING:
    from actors.kernel.node import Node

Handler = Callable[["Node", Caller, Any], Awaitable[Any]]
HANDLERS: dict[str, Handler] = {}
H = TypeVar("H", bound=Handler)


def implement(procedure: Procedure) -> Callable[[H], H]:
    def register(handler: H) -> H:
        if procedure.name in HANDLERS:
            raise ValueError(f"procedure {procedure.name} implemented twice")
        HANDLERS[procedure.name] = handler
        return handler
    return register


def unimplemented() -> list[str]:
    """Declared procedures with no implementation; the app refuses to start while any remain."""
    return sorted(set(REGISTRY) - set(HANDLERS))
