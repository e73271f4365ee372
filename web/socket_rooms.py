"""This node's Socket.IO stream rooms: who is in each, how far the room was delivered live, and how far each
socket that is not (yet) live has been sent from the log. Plain state, changed only between awaits by the
gateway (web/socket_gateway.py), which holds no lock across a read of the event log.

A socket in a room is either live (it gets every broadcast past the room's `seq`), or catching up (the
broadcasts skip it and the log is replayed to it from its own `Cursor` until it reaches the room's `seq`,
then it turns live with no await in between), or held (its access is being re-checked: nothing is sent to
it until the check lets it go on from its cursor, or takes it out of the room).
"""

from __future__ import annotations

from dataclasses import dataclass, field


def room_of(org_id: str, stream: str) -> str:
    """The Socket.IO room of a stream as read within one organization."""
    return f"{org_id}/{stream}"


@dataclass
class Cursor:
    """A socket of the room that is not live: the last seq it was sent."""

    seq: int
    held: bool = False  # access being re-checked: send nothing
    replaying: bool = False  # a task is sending it the log
    stalled: bool = False  # its replay failed (the log could not be read): the next access check restarts it


@dataclass
class Room:
    org_id: str
    stream: str
    seq: int  # the last seq broadcast to the live sockets (or known committed when the room was made)
    live: set[str] = field(default_factory=set)
    catching_up: dict[str, Cursor] = field(default_factory=dict)
    # Live sockets that were answered a seq beyond the room's (the room lagged the log when they joined):
    # broadcasts up to that seq skip them.
    ahead: dict[str, int] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return room_of(self.org_id, self.stream)

    def empty(self) -> bool:
        return not self.live and not self.catching_up

    def skip_for(self, seq: int) -> list[str]:
        """The sockets a broadcast of `seq` must not reach; call after advancing `self.seq` to it."""
        skip = list(self.catching_up)
        if self.ahead:
            skip.extend(sid for sid, upto in self.ahead.items() if upto >= seq)
            self.ahead = {sid: upto for sid, upto in self.ahead.items() if upto > seq}
        return skip

    def hold(self, sid: str) -> None:
        """Stop sending to the socket until its access is re-checked; it resumes from where it was."""
        cursor = self.catching_up.get(sid)
        if cursor is not None:
            cursor.held = True
            return
        if sid in self.live:
            self.live.discard(sid)
            self.catching_up[sid] = Cursor(max(self.seq, self.ahead.pop(sid, self.seq)), held=True)

    def remove(self, sid: str) -> None:
        self.live.discard(sid)
        self.catching_up.pop(sid, None)
        self.ahead.pop(sid, None)

    def go_live(self, sid: str, cursor: Cursor) -> None:
        """The socket has everything up to the room's seq (or beyond): broadcasts reach it from now on."""
        del self.catching_up[sid]
        if cursor.seq > self.seq:
            self.ahead[sid] = cursor.seq
        self.live.add(sid)
