"""The Socket.IO gateway (DESIGN.md "Socket.IO", "One sequence everywhere"): authenticates connections
on the organization host, subscribes sockets to stream rooms after the same access check as
`events.list`, and delivers every committed event to its room exactly once and in seq order, also to
a client that resumes with `since` while new events are being committed.

How "exactly once, in order" holds on one node, per stream room (`RoomState`):
- Live delivery is serialized per room by a lock and advances the room's cursor `seq` one event at a
  time; an event at or below the cursor is a duplicate and dropped, an event past `seq + 1` first
  fills the gap from the event log (every seq up to a committed one is committed too, because
  storage/events.append hands out seqs under the stream's row lock). So publish order between
  concurrent transactions, or between nodes, does not matter.
- A subscribing socket is first marked "catching up" (with a buffer) and then enters the room. Live
  broadcasts skip marked sockets (`skip_sid`) and append the event to their buffers instead. The
  socket is sent the log from `since` up to the room cursor, then its buffer (skipping seqs already
  sent), and the mark is removed only once the buffer is empty, with no await in between, so the next
  live broadcast reaches it directly with the next seq.
Live broadcasts encode the packet once and queue it on each recipient's Engine.IO socket (`_emit_to_room`).

Several nodes: committed events are handed to every node's gateway through python-socketio's Redis
manager (one internal emit per batch, intercepted by `_FanoutRedisManager`), and each node delivers to
its own sockets with the rules above (`ignore_queue=True`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import engineio.packet
import socketio
import socketio.packet
import structlog
from aiohttp import web

from actors.delivery.event_feed import stream_of
from actors.identity.callers import resolve_caller
from actors.kernel.authorization import authorize
from actors.kernel.events import user_stream, wire_payload
from actors.kernel.node import Node
from protocol import events as spec
from protocol.caller import Caller
from protocol.errors import ApiError, BadRequest, Conflict, FieldError
from protocol.ids import new_id
from storage import events as event_log
from storage.events import StoredEvent
from web.context import SESSION_COOKIE, host_name, org_slug
from web.inputs import decode_input
from web.keys import NODE

log = structlog.get_logger("obeya.live")

# A client more than this many events behind is told TOO_FAR_BEHIND and reloads the screen instead
# (Zulip's "re-register"): a reload is one query, while replaying more would hold the socket for
# seconds and a tier-meeting screen that far behind shows stale data anyway. 10,000 events is about a
# day of a busy board.
MAX_REPLAY = 10_000
# Events read from the log per query during a replay.
REPLAY_PAGE = 500
# The internal event name that carries committed events from the node that committed them to every node.
FANOUT_EVENT = "obeya:committed"
FANOUT_ROOM = "obeya:nodes"

Item = dict[str, Any]  # one committed event on its way to sockets: stream, org, seq, name, payload
Deliver = Callable[[list[Item]], Awaitable[None]]


def _item(event: StoredEvent) -> Item:
    return {"stream": event.stream, "org": event.organization_id, "seq": event.seq, "name": event.name,
            "payload": wire_payload(event)}


def room_of(org_id: str, stream: str) -> str:
    """The Socket.IO room of a stream as read within one organization (a user's stream `user:<id>` holds
    the notifications of each of their organizations; a socket follows those of its host's)."""
    return f"{org_id}/{stream}"


class _FanoutRedisManager(socketio.AsyncRedisManager):  # type: ignore[misc]
    """python-socketio's Redis manager; our fan-out message goes to the gateway of each node (this one
    included, as the manager handles its own emits locally too) instead of to any socket."""

    def __init__(self, url: str, deliver: Deliver) -> None:
        super().__init__(url)
        self._deliver = deliver

    async def _handle_emit(self, message: dict[str, Any]) -> None:
        if message.get("event") == FANOUT_EVENT:
            [items] = message["data"]
            await self._deliver(items)
            return
        await super()._handle_emit(message)


@dataclass
class RoomState:
    """This node's sockets in one stream room and how far the room has been delivered."""

    org_id: str
    stream: str
    seq: int | None = None  # last seq delivered to the room; None until the first subscriber set it
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    members: set[str] = field(default_factory=set)
    catching_up: dict[str, list[tuple[int, str, Any]]] = field(default_factory=dict)


class TooFarBehind(ApiError):
    """The client missed more than MAX_REPLAY events: it reloads instead of replaying (Zulip's
    "re-register"). Only a Socket.IO answer; `data.seq` is where the stream is now."""

    code = "TOO_FAR_BEHIND"
    status = 410


def _error(error: ApiError) -> dict[str, Any]:
    return {"ok": False, "error": {"code": error.code, "message": error.message, **error.data}}


class LiveGateway:
    def __init__(self, redis_url: str | None = None) -> None:
        manager = (_FanoutRedisManager(redis_url, self._deliver) if redis_url is not None
                   else socketio.AsyncManager())
        self._fanout_via_redis = redis_url is not None
        self.sio = socketio.AsyncServer(async_mode="aiohttp", client_manager=manager)
        self._env: Node | None = None
        self._callers: dict[str, Caller] = {}
        self._rooms: dict[str, RoomState] = {}  # room_of(org, stream) -> this node's state of the room
        self._subscriptions: dict[str, set[str]] = {}  # sid -> rooms
        self.sio.on("connect", self._connect)
        self.sio.on("disconnect", self._disconnect)
        self.sio.on("subscribe", self._subscribe)
        self.sio.on("unsubscribe", self._unsubscribe)

    def attach(self, app: web.Application) -> None:
        """Add the `/socket.io/` route; call while building the app (routes freeze at start-up)."""
        self.sio.attach(app, socketio_path="socket.io")

    async def running(self, app: web.Application) -> AsyncIterator[None]:
        """cleanup_ctx lifetime: follow the node's event bus while the app runs."""
        self._env = app[NODE]
        self._env.bus.subscribe(self._on_committed)
        try:
            yield
        finally:
            self._env.bus.unsubscribe(self._on_committed)
            await self.sio.shutdown()

    @property
    def node(self) -> Node:
        assert self._env is not None, "the gateway runs only inside the app's lifetime"
        return self._env

    # -- connections ---------------------------------------------------------------------------------

    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any) -> None:
        request: web.Request = environ["aiohttp.request"]
        token = auth.get("token") if isinstance(auth, dict) else None
        try:
            caller = await resolve_caller(
                self.node, request_id=new_id("req"), org_slug=org_slug(host_name(request), self.node.service_host),
                bearer=token if isinstance(token, str) else None,
                session_token=None if token else request.cookies.get(SESSION_COOKIE))
            if caller.organization is None:
                raise BadRequest("connect on the organization host, <org>.<service host>")
            # Following events is reading them: the same credential, membership, plan and scope rules.
            authorize(spec.LIST, caller)
        except ApiError as error:
            raise socketio.exceptions.ConnectionRefusedError(
                error.message, {"code": error.code, "message": error.message}) from None
        self._callers[sid] = caller
        self._subscriptions[sid] = set()
        # The private room: the user's `notification.created` events, live from now on (resume with
        # `subscribe {room: "user", since}`).
        stream = user_stream(caller.org_id, caller.uid)
        await self._join(sid, self._room(caller.org_id, stream), None)

    async def _disconnect(self, sid: str, *args: Any) -> None:
        self._callers.pop(sid, None)
        for room in self._subscriptions.pop(sid, set()):
            self._forget(sid, room)

    def _room(self, org_id: str, stream: str) -> RoomState:
        return self._rooms.setdefault(room_of(org_id, stream), RoomState(org_id, stream))

    def _forget(self, sid: str, room: str) -> None:
        state = self._rooms.get(room)
        if state is None:
            return
        state.members.discard(sid)
        state.catching_up.pop(sid, None)
        if not state.members:
            del self._rooms[room]

    # -- subscriptions -------------------------------------------------------------------------------

    async def _subscribe(self, sid: str, raw: Any = None) -> dict[str, Any]:
        caller = self._callers.get(sid)
        if caller is None:
            return _error(BadRequest("not connected"))
        try:
            data: spec.SubscribeInput = decode_input(spec.SubscribeInput, raw)
            stream = await stream_of(self.node, caller, data.room, field="room")
            state = self._room(caller.org_id, stream)
            if sid in state.catching_up:
                raise Conflict("a subscription to this room is already catching up")
            sent = await self._join(sid, state, data.since)
        except ApiError as error:
            return _error(error)
        return {"ok": True, "seq": sent}

    async def _join(self, sid: str, state: RoomState, since: int | None) -> int:
        """Enter the room and send the socket what it missed since `since` (None: nothing, live from
        now); returns the last seq the socket has. TOO_FAR_BEHIND when it missed too much."""
        latest = await event_log.last_seq(self.node.pool, state.org_id, state.stream)
        if since is None:
            since = latest
        if since > latest:
            raise BadRequest(f"since {since} is ahead of the stream (at {latest}): reload",
                             details=[FieldError("since", "ahead of the stream")])
        if latest - since > MAX_REPLAY:
            raise TooFarBehind(f"more than {MAX_REPLAY} events missed: reload, then subscribe without since",
                               data={"seq": latest})
        room = room_of(state.org_id, state.stream)
        state.catching_up[sid] = []
        state.members.add(sid)
        self._subscriptions[sid].add(room)
        self._rooms[room] = state  # again: the last member may have left while the log was read
        await self.sio.enter_room(sid, room)
        async with state.lock:
            if state.seq is None:
                state.seq = latest
            else:
                # The room may lag the log (events committed, not yet published): bring it to `latest`.
                await self._fill(state, latest)
        sent = since
        while state.seq is not None and sent < state.seq and sid in state.catching_up:
            missed = await event_log.read(self.node.pool, state.org_id, state.stream, sent,
                                          min(REPLAY_PAGE, state.seq - sent))
            for event in missed:
                await self._send(sid, event.name, wire_payload(event))
                sent = event.seq
            if not missed:
                break
        while (buffered := state.catching_up.get(sid)) is not None:
            if not buffered:
                del state.catching_up[sid]  # no await since the check: the next broadcast reaches it
                break
            state.catching_up[sid] = []
            for seq, name, payload in buffered:
                if seq > sent:
                    await self._send(sid, name, payload)
                    sent = seq
        return sent

    async def _unsubscribe(self, sid: str, raw: Any = None) -> dict[str, Any]:
        caller = self._callers.get(sid)
        if caller is None:
            return _error(BadRequest("not connected"))
        try:
            data: spec.UnsubscribeInput = decode_input(spec.UnsubscribeInput, raw)
        except ApiError as error:
            return _error(error)
        try:
            stream = await stream_of(self.node, caller, data.room, field="room")
        except ApiError:
            stream = data.room  # access lost since subscribing: still leave the room
        room = room_of(caller.org_id, stream)
        if room in self._subscriptions.get(sid, set()):
            self._subscriptions[sid].discard(room)
            self._forget(sid, room)
            await self.sio.leave_room(sid, room)
        return {"ok": True}

    # -- delivery ------------------------------------------------------------------------------------

    async def _on_committed(self, events: Sequence[StoredEvent]) -> None:
        items = [_item(event) for event in events]
        if self._fanout_via_redis:
            await self.sio.emit(FANOUT_EVENT, items, room=FANOUT_ROOM)
        else:
            await self._deliver(items)

    async def _deliver(self, items: list[Item]) -> None:
        for item in items:
            state = self._rooms.get(room_of(item["org"], item["stream"]))
            if state is None:
                continue  # nobody on this node follows the stream
            async with state.lock:
                if state.seq is None:
                    state.seq = item["seq"] - 1
                if item["seq"] <= state.seq:
                    continue  # already delivered (published twice, or filled from the log)
                await self._fill(state, item["seq"] - 1)
                await self._broadcast(state, item["seq"], item["name"], item["payload"])

    async def _fill(self, state: RoomState, upto: int) -> None:
        """Deliver events the room missed up to `upto` from the log; call with the room's lock held."""
        assert state.seq is not None
        while state.seq < upto:
            missed = await event_log.read(self.node.pool, state.org_id, state.stream, state.seq,
                                          min(REPLAY_PAGE, upto - state.seq))
            if not missed:
                return  # the rest of the range belongs to another organization (a user's stream)
            for event in missed:
                await self._broadcast(state, event.seq, event.name, wire_payload(event))

    async def _broadcast(self, state: RoomState, seq: int, name: str, payload: Any) -> None:
        # Cursor and buffers change before the emit, whose recipient list is taken without an await:
        # a socket marked after this point reads this event from the log instead.
        state.seq = seq
        for buffer in state.catching_up.values():
            buffer.append((seq, name, payload))
        await self._emit_to_room(name, payload, room_of(state.org_id, state.stream), set(state.catching_up))

    async def _emit_to_room(self, name: str, payload: Any, room: str, skip: set[str]) -> None:
        """python-socketio's room emit minus its asyncio task per recipient (bench/board_load.py: 47 -> 40 us of
        server CPU per delivery to 1,000 sockets): the packet is encoded once and put on each recipient's
        Engine.IO queue in turn, with no await that suspends, so the recipient list stays the one taken here."""
        encoded = self.sio.packet_class(socketio.packet.EVENT, namespace="/", data=[name, payload]).encode()
        packets = [engineio.packet.Packet(engineio.packet.MESSAGE, part)
                   for part in (encoded if isinstance(encoded, list) else [encoded])]
        for sid, eio_sid in self.sio.manager.get_participants("/", room):
            if sid not in skip:
                for packet in packets:
                    await self.sio.eio.send_packet(eio_sid, packet)

    async def _send(self, sid: str, name: str, payload: Any) -> None:
        await self.sio.emit(name, payload, to=sid, ignore_queue=True)
