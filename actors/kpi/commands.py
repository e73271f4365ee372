"""The message a KPI actor takes (a procedure call with its caller, decoded input and the time) and the
builder of one decision: pieces of change applied as they are added, so that later steps of the same
decision (the second value of a batch) see the earlier ones; every event goes to the KPI's stream and to its
board's stream, so that screens following either see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from actors.kernel.events import board_stream, event_payload, user_stream
from actors.kernel.trail import ActivityEntry, NotificationEntry
from actors.kpi.changes import KpiChange, apply_change, merge
from actors.kpi.state import KpiRow, KpiState
from actors.runtime.actor import Decision, Event
from protocol.caller import Caller
from protocol.ids import Prefix, iso, new_id


@dataclass(frozen=True)
class Command:
    procedure: str
    caller: Caller
    data: Any
    now: datetime
    members: frozenset[str] = frozenset()  # the organization's active members, for commands that notify


@dataclass
class Outcome:
    command: Command
    state: KpiState
    pieces: list[KpiChange] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def kpi(self) -> KpiRow:
        assert self.state.kpi is not None
        return self.state.kpi

    def change(self, piece: KpiChange) -> None:
        self.pieces.append(piece)
        self.state = apply_change(self.state, piece)

    def log(self, action: str, **metadata: Any) -> None:
        entry = ActivityEntry("kpi", self.kpi.id, action, self.command.caller.user_id,
                              {"boardId": self.kpi.board_id, "name": self.kpi.name, **metadata})
        self.pieces.append(KpiChange(activity=[entry]))

    def emit(self, name: str, data: dict[str, Any], board_id: str | None = None) -> None:
        """`name` on the KPI's stream and on its board's (`board_id` when the KPI is already deleted)."""
        caller = self.command.caller
        payload = event_payload(name, caller.org_id, data, caller, self.command.now)
        self.events.append((name, payload))
        self.events.append((board_stream(board_id or self.kpi.board_id), name, payload))

    def notify(self, user_id: str, type: str, title: str, body: str) -> None:
        """A notification about this KPI, written in the turn; `notification.created` on the user's stream."""
        note = NotificationEntry(new_id(Prefix.NOTIFICATION), user_id, type, title, body, "kpi", self.kpi.id)
        self.pieces.append(KpiChange(notifications=[note]))
        view = {"id": note.id, "type": type, "title": title, "body": body, "entityType": "kpi",
                "entityId": self.kpi.id, "read": False, "createdAt": iso(self.command.now)}
        caller = self.command.caller
        self.events.append((user_stream(caller.org_id, user_id), "notification.created",
                            event_payload("notification.created", caller.org_id, view, caller, self.command.now)))

    def decision(self, reply: Any) -> Decision[KpiChange]:
        return Decision(reply=reply, change=merge(self.pieces) if self.pieces else None, events=self.events)
