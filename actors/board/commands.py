"""The one message a board actor takes: a procedure call with its caller, decoded input and the time,
and the table of decide functions, one per procedure: the board's own area modules register theirs with
`@decides` (actors/board/actor.py imports each), and a command another domain decides is added by the server
with `add_command` (server/domains.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar, overload

from actors.board.changes import BoardChange, BoardLimit, Put, Remove
from actors.board.state import BoardState, Row
from actors.kernel.events import event_payload, user_stream
from actors.kernel.trail import ActivityEntry, NotificationEntry
from actors.runtime.actor import Decision, Event
from protocol.caller import Caller
from protocol.ids import Prefix, iso, new_id
from protocol.registry import Procedure


@dataclass(frozen=True)
class Command:
    procedure: str
    caller: Caller
    data: Any
    now: datetime
    # The organization's member ids, for people values; filled by the service when the call may need it.
    members: frozenset[str] = field(default_factory=frozenset)
    # The board a call addresses when it creates the board (the actor's own id otherwise).
    board_id: str | None = None
    # A read whose reply shows comments: the item whose comments, or the comment whose item's comments, are
    # read from the database for it (`BoardActor.query_state`; memory holds only comments a write needed).
    comments_of_item: str | None = None
    comments_of_comment: str | None = None


Decider = Callable[[BoardState, Command], Decision[BoardChange]]
DECIDERS: dict[str, Decider] = {}
# The type of `Command.data` per procedure: how a command is decoded when it comes from another node.
DATA_TYPES: dict[str, Any] = {}
D = TypeVar("D", bound=Decider)
_INPUT: Any = object()


@overload
def decides(procedure: Procedure, data: Any = ...) -> Callable[[D], D]: ...


@overload
def decides(procedure: str, data: Any) -> Callable[[D], D]: ...


def decides(procedure: Procedure | str, data: Any = _INPUT) -> Callable[[D], D]:
    """Register the decider of a procedure, whose command's `data` is the procedure's input unless `data`
    names another type, or of an internal command named by a string, whose `data` type must be named."""
    if isinstance(procedure, str):
        if data is _INPUT:
            raise TypeError(f"the internal command {procedure} must name its data type")
        name = procedure
    else:
        name, data = procedure.name, procedure.input if data is _INPUT else data

    def register(decider: D) -> D:
        add_command(name, decider, data)
        return decider
    return register


def add_command(name: str, decider: Decider, data: Any) -> None:
    """Add the decider of the command `name`, whose `data` is of type `data`."""
    DECIDERS[name] = decider
    DATA_TYPES[name] = data


@dataclass
class Outcome:
    """Builder for one decision: ops, activity entries and events, then `decision(reply)`."""

    command: Command
    ops: list[Put | Remove] = field(default_factory=list)
    activity: list[ActivityEntry] = field(default_factory=list)
    notifications: list[NotificationEntry] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    board_limit: BoardLimit | None = None
    comments_to: tuple[str, tuple[str, ...]] | None = None

    def put(self, row: Row) -> None:
        self.ops.append(Put(row))

    def remove(self, row_type: type[Any], row_id: str) -> None:
        self.ops.append(Remove(row_type, row_id))

    def log(self, entity_type: str, entity_id: str, action: str, **metadata: Any) -> None:
        self.activity.append(ActivityEntry(entity_type, entity_id, action, self.command.caller.user_id, metadata))

    def emit(self, name: str, data: dict[str, Any]) -> None:
        caller = self.command.caller
        self.events.append((name, event_payload(name, caller.org_id, data, caller, self.command.now)))

    def notify(self, user_id: str, type: str, title: str, body: str | None = None,
               entity_type: str | None = None, entity_id: str | None = None) -> None:
        """Notify a user in the turn's transaction; `notification.created` goes to their stream of this organization."""
        note = NotificationEntry(new_id(Prefix.NOTIFICATION), user_id, type, title, body, entity_type, entity_id)
        self.notifications.append(note)
        view = {"id": note.id, "type": type, "title": title, "body": body, "entityType": entity_type,
                "entityId": entity_id, "read": False, "createdAt": iso(self.command.now)}
        caller = self.command.caller
        self.events.append((user_stream(caller.org_id, user_id), "notification.created",
                            event_payload("notification.created", caller.org_id, view, caller, self.command.now)))

    def decision(self, reply: Any) -> Decision[BoardChange]:
        touched = self.ops or self.activity or self.notifications
        change = BoardChange(self.ops, self.activity, self.notifications, self.board_limit,
                             self.comments_to) if touched else None
        return Decision(reply=reply, change=change, events=self.events)
