"""The services of the domains a node carries (`node.plugins`): the kernel holds them without knowing their types.

The kernel imports no domain, yet some of a domain's services must live as long as the node and be reached
through it: where the bytes of files are kept, the queue of one-time-code requests, the payment processor, the
cache of OpenID providers. Each domain declares a `Slot` beside the service's interface, naming the service and
its type; the server plugs one implementation into each slot when it builds a node (server/node_services.py, the
one list of them); a service takes its own with `node.plugins[SLOT]`, typed as the slot says.

A slot rather than the service's class is the key because most services are Protocols, which mypy does not take
where a `type[T]` is expected. A service the kernel itself had to call would be a Protocol the kernel owns, not a
plug-in; none is so far.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


class Slot(Generic[T]):
    """Where a node carries one kind of service; `T` is the type of the service plugged there."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name  # what the error says is missing

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


class Plugins:
    def __init__(self) -> None:
        self._services: dict[Slot[Any], Any] = {}

    def plug(self, slot: Slot[T], service: T) -> None:
        """Give the node `service` in `slot`; once per slot, so that two places never each think theirs is used."""
        if slot in self._services:
            raise ValueError(f"the node already has a {slot.name}")
        self._services[slot] = service

    def __getitem__(self, slot: Slot[T]) -> T:
        try:
            return cast(T, self._services[slot])
        except KeyError:
            raise KeyError(f"no {slot.name} is plugged into this node (server/node_services.py plugs them)") from None
