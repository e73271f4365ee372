"""Procedure implementations and the table of them. Each module that implements procedures keeps its own list,
`procedures = Implementations()`, and marks each handler with `@procedures.implement(procedure)`; the server
lists every domain's lists once (server/domains.py) and builds the `HandlerTable` the edge calls through. Each
procedure declared in `protocol/` is implemented exactly once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from protocol.caller import Caller
from protocol.registry import REGISTRY, Procedure

if TYPE_CHECKING:
    from actors.kernel.node import Node

Handler = Callable[["Node", Caller, Any], Awaitable[Any]]
H = TypeVar("H", bound=Handler)


class Implementations:
    """One module's (or package's) procedure implementations, by procedure name."""

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}

    def implement(self, procedure: Procedure) -> Callable[[H], H]:
        """Mark `handler` as the implementation of `procedure`; a procedure implemented twice is refused."""
        def add(handler: H) -> H:
            if procedure.name in self._handlers:
                raise ValueError(f"procedure {procedure.name} implemented twice")
            self._handlers[procedure.name] = handler
            return handler
        return add

    def __iter__(self) -> Iterator[tuple[str, Handler]]:
        return iter(self._handlers.items())


class HandlerTable:
    """Every procedure's implementation, gathered from many `Implementations`: read-only once built, and a
    procedure implemented in two of them is refused."""

    def __init__(self, *implementations: Implementations) -> None:
        handlers: dict[str, Handler] = {}
        for each in implementations:
            for name, handler in each:
                if name in handlers:
                    raise ValueError(f"procedure {name} implemented twice")
                handlers[name] = handler
        self._handlers: Mapping[str, Handler] = MappingProxyType(handlers)

    def __getitem__(self, procedure_name: str) -> Handler:
        return self._handlers[procedure_name]

    def unimplemented(self) -> list[str]:
        """Declared procedures with no implementation; the app refuses to start while any remain."""
        return sorted(set(REGISTRY) - set(self._handlers))
