"""The Socket.IO gateway (docs/architecture.md, "The event log and seq"): authenticates connections
on the organization host, subscribes sockets to stream rooms after the same access check as
`events.list`, delivers every committed event to each socket of its room exactly once and in seq order
(also to a client that resumes with `since` while new events are being committed), and takes sockets out
of the rooms they may no longer see when access changes.

It is a consumer of the node's bus (actors/runtime/bus.py): it runs in its own task, never inside an actor
turn or a writer's transaction, and holds no lock. How "exactly once, in order" holds (web/socket_rooms.py):
- Live delivery is done by one task and advances the room's `seq` one event at a time; an event at or
  below it is a duplicate and dropped, an event past `seq + 1` first fills the gap from the event log
  (every seq up to a committed one is committed too: storage/events.append numbers under the stream's
  row lock). So publish order between concurrent transactions, or between nodes, does not matter.
- A subscribing socket enters the room "catching up" with its own cursor (its `since`); broadcasts skip
  it; its own task sends it the log from the cursor up to the room's `seq`, re-reading `seq` after every
  read, and turns it live at a moment (no await) when the cursor has reached it. The next broadcast then
  carries the next seq.
- Access changes (a member removed or re-roled, a credential revoked, a logout) hold the affected
  sockets at once, before any later event is delivered; a re-check then lets each room go on from where
  it stopped (replaying what came meanwhile) or takes the socket out of it with an `access.revoked`
  event, or disconnects it when its credential no longer admits it. A re-check of every socket each
  second catches what changed on another node.

Several nodes: each node's gateway publishes the committed events it is handed on a Redis channel
(web/socket_fanout.py) and every node delivers them to its own sockets with the rules above. When that
channel comes back after Redis was away, every room of the node fills, from the event log, the gap up to the
stream's last seq, as a room does that hears a seq past its own: screens get what was committed meanwhile, in
order and once, without subscribing again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

import socketio
import structlog
from aiohttp import web

from actors.delivery.event_feed import stream_of
from actors.identity.accounts import session_digest
from actors.identity.callers import resolve_caller
from actors.kernel.authorization import authorize
from actors.kernel.events import StoredEvent, wire_payload
from actors.kernel.invalidation import MembershipChanged
from actors.kernel.node import Node
from actors.runtime.bus import AccessChange
from actors.runtime.db_errors import as_api_error
from protocol import events as spec
from protocol.caller import Caller, CredentialKind
from protocol.errors import ApiError, BadRequest, Conflict, FieldError, NotFound, TooManyRequests, Unauthorized
from protocol.ids import Prefix, new_id
from web.context import SESSION_COOKIE, host_name, org_slug
from web.engineio_internals import disconnect_all, request_of, room_members
from web.inputs import decode_input
from web.keys import NODE
from web.socket_fanout import RedisFanout
from web.socket_frames import DirectFrames
from web.socket_limits import (
    FLOOD_STRIKES,
    MALFORMED,
    MAX_MESSAGE_BYTES,
    MAX_PER_ADDRESS,
    MAX_PER_USER,
    MAX_ROOMS,
    RATE_LIMITED,
    BoundedPacket,
    SocketLimits,
    TooManyRooms,
    UserShare,
)
from web.socket_rooms import Cursor, Room, room_of

log = structlog.get_logger("obeya.live")

# Where clients reach Engine.IO (the client libraries' default path).
SOCKET_IO_PATH = "/socket.io/"
# A client more than this many events behind is told TOO_FAR_BEHIND and reloads the screen instead
# (Zulip's "re-register"): a reload is one query, while replaying more would hold the socket for
# seconds and a tier-meeting screen that far behind shows stale data anyway. 10,000 events is about a
# day of a busy board.
MAX_REPLAY = 10_000
# Events read from the log per query during a replay.
REPLAY_PAGE = 500
# Events sent in a row during a replay before the loop serves others: a page sent at once held the loop for over
# 100 ms (measured in the suite by the loop guard, 139 ms of CPU).
REPLAY_BURST = 100
# Committed batches the gateway may have waiting on the bus before it catches up from the log instead.
BUS_CAPACITY = 4096
# The safety net for access changed on another node: every socket's access is checked this often.
RECHECK_SECONDS = 1.0
# Sockets the safety net checks between two turns of the event loop.
RECHECK_BATCH = 100
# The event a socket gets when it leaves a room (room set) or is disconnected (room null) for lost access.
ACCESS_REVOKED = "access.revoked"
# The event a display's socket gets before it is disconnected because the display no longer admits it (revoked).
DISPLAY_REVOKED = "display.revoked"
# Organization events after which the named member's sockets are re-checked.
MEMBERSHIP_EVENTS = frozenset({"member.removed", "member.role_changed"})

Item = dict[str, Any]  # one committed event on its way to sockets: stream, org, seq, name, payload


def _item(event: StoredEvent) -> Item:
    return {"stream": event.stream, "org": event.organization_id, "seq": event.seq, "name": event.name,
            "payload": wire_payload(event)}


@dataclass
class Connection:
    """One socket: who it is, the credential it came with (to check it again), and its rooms."""

    caller: Caller
    slug: str | None
    bearer: str | None
    session_token: str | None
    rooms: dict[str, str] = field(default_factory=dict)  # room key -> the room name it subscribed to
    checking: bool = False
    check_again: bool = False
    # Its share of the limits (web/socket_limits.py): the address and user it was counted under, the
    # user's bucket, and the events refused in a row.
    address: str = ""
    user_key: str = ""
    share: UserShare | None = None
    strikes: int = 0

    def matches(self, change: AccessChange) -> bool:
        caller = self.caller
        return ((change.organization_id is None or caller.org_id == change.organization_id)
                and (change.user_id is None or caller.user_id == change.user_id)
                and (change.credential_id is None or caller.credential_id == change.credential_id)
                and (change.session_digest is None or (self.session_token is not None
                                                       and session_digest(self.session_token)
                                                       == change.session_digest)))


class TooFarBehind(ApiError):
    """The client missed more than MAX_REPLAY events: it reloads instead of replaying (Zulip's
    "re-register"). Only a Socket.IO answer; `data.seq` is where the stream is now."""

    code = "TOO_FAR_BEHIND"
    status = 410


def _error(error: ApiError) -> dict[str, Any]:
    return {"ok": False, "error": {"code": error.code, "message": error.message, **error.data}}


class LiveGateway:
    def __init__(self, redis_url: str | None = None, *, max_per_user: int = MAX_PER_USER,
                 max_per_address: int = MAX_PER_ADDRESS) -> None:
        # Sockets are only ever sent to by the node they are connected to (events reach every node over
        # our own Redis channel), so python-socketio's own manager needs no message queue.
        self.sio = socketio.AsyncServer(async_mode="aiohttp", client_manager=socketio.AsyncManager(),
                                        serializer=BoundedPacket, max_http_buffer_size=MAX_MESSAGE_BYTES)
        self._frames = DirectFrames(self.sio)
        self.fanout = RedisFanout(redis_url, self._deliver, self._catch_up_rooms) if redis_url is not None else None
        self._node: Node | None = None
        self._connections: dict[str, Connection] = {}
        self._rooms: dict[str, Room] = {}
        self._tasks: set[asyncio.Task[Any]] = set()  # replays and re-checks started by access changes
        self._delivering = 0  # deliveries in progress (the bus consumer, the Redis listener)
        self._websockets: dict[int, web.Request] = {}  # open WebSocket requests (by id), closed on shutdown
        # Told how long each committed batch took to reach this node's sockets (/metrics sets it).
        self.on_fanout: Callable[[float], None] | None = None
        self.limits = SocketLimits(max_per_user, max_per_address)
        self.sio.on("connect", self._connect)
        self.sio.on("disconnect", self._disconnect)
        self.sio.on("subscribe", self._limited(self._subscribe))
        self.sio.on("unsubscribe", self._limited(self._unsubscribe))
        self.sio.on(MALFORMED, self._limited(self._malformed))
        self.sio.on("*", self._other_event)

    def attach(self, app: web.Application) -> None:
        """Add the `/socket.io/` routes (Engine.IO's: what `sio.attach` adds, GET kept track of); call while
        building the app (routes freeze at start-up)."""
        handle = self.sio.handle_request
        app.router.add_get(SOCKET_IO_PATH, self._track_websockets)
        app.router.add_post(SOCKET_IO_PATH, handle)
        app.router.add_route("OPTIONS", SOCKET_IO_PATH, handle)
        app[GATEWAY] = self

    async def _track_websockets(self, request: web.Request) -> web.StreamResponse:
        """Engine.IO's GET, with an open WebSocket kept track of until it ends (closed on shutdown). A route
        handler, not a middleware: every other request would pay for the check (issue 13)."""
        if request.headers.get("Upgrade", "").lower() != "websocket":
            response: web.StreamResponse = await self.sio.handle_request(request)
            return response
        self._websockets[id(request)] = request
        try:
            response = await self.sio.handle_request(request)
            return response
        finally:
            del self._websockets[id(request)]

    async def running(self, app: web.Application) -> AsyncIterator[None]:
        """cleanup_ctx lifetime: follow the node's event bus and access signals while the app runs."""
        node = self._node = app[NODE]
        node.bus.subscribe("socket.io", self._on_committed, capacity=BUS_CAPACITY, read=node.events.read)
        node.bus.watch_access(self._access_changed)
        if self.fanout is not None:
            await self.fanout.start()
        safety_net = asyncio.get_running_loop().create_task(self._recheck_forever(), name="gateway:recheck")
        try:
            yield
        finally:
            safety_net.cancel()
            await asyncio.gather(safety_net, return_exceptions=True)
            node.bus.unwatch_access(self._access_changed)
            node.bus.unsubscribe("socket.io")
            if self.fanout is not None:
                await self.fanout.stop()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.sio.shutdown()

    async def closing(self, app: web.Application) -> None:
        """on_shutdown: disconnect every live socket, so a stopping node waits for no open WebSocket (the
        clients reconnect, through the load balancer, to a node still running). Each is sent Engine.IO's close
        packet, then its connection is closed: once stopping, aiohttp reads nothing more from a connection, so
        it would never hear the client's closing handshake and would hold the node until the shutdown timeout."""
        await disconnect_all(self.sio)
        for request in list(self._websockets.values()):
            if request.transport is not None:
                request.transport.close()  # what is buffered (the close packet) is sent first

    @property
    def node(self) -> Node:
        assert self._node is not None, "the gateway runs only inside the app's lifetime"
        return self._node

    async def settled(self) -> None:
        """Return once the bus is drained and no replay or re-check started by an access change is running
        (a barrier for tests)."""
        await self.node.bus.drained()
        while self._tasks:
            await asyncio.wait(list(self._tasks))
            await self.node.bus.drained()

    def _spawn(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("gateway_task_failed", task=task.get_name(), exc_info=task.exception())

    # -- connections ---------------------------------------------------------------------------------

    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any) -> None:
        request = request_of(environ)
        token = auth.get("token") if isinstance(auth, dict) else None
        bearer = token if isinstance(token, str) else None
        slug = org_slug(host_name(request), self.node.settings.service_host)
        session_token = None if bearer else request.cookies.get(SESSION_COOKIE)
        address = request.remote or ""
        user_key = ""
        try:
            self.limits.open_address(address)
            try:
                caller = await self._admit(slug, bearer, session_token)
                # The private room: the user's `notification.created` events of this organization, live from
                # now on (resume with `subscribe {room: "user", since}`). A display has none (its creator's
                # notifications are not the wall's), and its sockets count as its own, not its creator's.
                display = caller.credential is CredentialKind.DISPLAY
                private = None if display else await stream_of(self.node, caller, "user")
                user_key = (caller.credential_id if display else caller.user_id) or caller.credential_id or ""
                share = self.limits.open_user(user_key, caller.organization.plan if caller.organization else "",
                                              self.node.clock.monotonic())
            except BaseException:
                self.limits.close_address(address)
                raise
            self._connections[sid] = Connection(caller, slug, bearer, session_token, address=address,
                                                user_key=user_key, share=share)
            if private is not None:
                await self._join(sid, private, "user", None)
        except Exception as exc:
            # Refused with a reason (over a limit: 429; a database outage: 503, retry) rather than left
            # unanswered, and with nothing of the socket kept (its slots are given back).
            await self._disconnect(sid)
            error = as_api_error(exc)
            if not isinstance(exc, ApiError):
                log.warning("socket_connect_failed", error=type(exc).__name__)
            raise socketio.exceptions.ConnectionRefusedError(
                error.message, {"code": error.code, "message": error.message, **error.data}) from None

    async def _admit(self, slug: str | None, bearer: str | None, session_token: str | None) -> Caller:
        """The socket's caller, at connect and on re-checks."""
        caller = await resolve_caller(self.node, request_id=new_id(Prefix.HTTP_REQUEST), org_slug=slug, bearer=bearer,
                                      session_token=session_token)
        if caller.organization is None:
            raise BadRequest("connect on the organization host, <org>.<service host>")
        # Following events is reading them: the same credential, membership, plan and scope rules. A display
        # follows its board's room only, which `stream_of` holds it to.
        if caller.credential is not CredentialKind.DISPLAY:
            authorize(spec.LIST, caller)
        return caller

    async def _disconnect(self, sid: str, *args: Any) -> None:
        connection = self._connections.pop(sid, None)
        for key in connection.rooms if connection else ():
            self._forget(sid, key)
        if connection is not None:
            self.limits.close_address(connection.address)
            self.limits.close_user(connection.user_key)

    # -- event limits (web/socket_limits.py) ---------------------------------------------------------

    def _limited(self, handler: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[Any]]:
        """The handler of a client event behind its user's bucket and turns."""

        async def limited(sid: str, *args: Any) -> Any:
            connection = self._connections.get(sid)
            if connection is None or connection.share is None:
                return await handler(sid, *args)  # answers "not connected"
            refused = self._refusal(sid, connection, connection.share)
            if refused is not None:
                return refused
            if len(args) > 1:
                return _error(BadRequest("one argument expected: an object"))
            async with connection.share.turns:
                return await handler(sid, *args)

        return limited

    def _refusal(self, sid: str, connection: Connection, share: UserShare) -> dict[str, Any] | None:
        """None when the event may run; else its TOO_MANY_REQUESTS answer (and a flooding socket is
        disconnected)."""
        if share.bucket.take(self.node.clock.monotonic()):
            connection.strikes = 0
            return None
        connection.strikes += 1
        retry_after = round(share.bucket.retry_after(), 3)
        error = TooManyRequests(f"more than {share.bucket.capacity:.0f} socket events a minute; retry in "
                                f"{retry_after} s", data={"retryAfter": retry_after})
        if connection.strikes == FLOOD_STRIKES:
            log.warning("socket_flood_disconnected", sid=sid, user=connection.user_key)
            self._spawn(self._disconnect_flooder(sid, error), name="gateway:flood")
        return _error(error)

    async def _disconnect_flooder(self, sid: str, error: ApiError) -> None:
        await self.sio.emit(RATE_LIMITED, {"error": {"code": error.code, "message": f"{FLOOD_STRIKES} events "
                                                     "refused in a row: disconnected"}}, to=sid, ignore_queue=True)
        await self.sio.disconnect(sid, ignore_queue=True)

    async def _malformed(self, sid: str, why: Any = None) -> dict[str, Any]:
        """A packet web/socket_limits.py `BoundedPacket` could not read: BAD_REQUEST saying why."""
        return _error(BadRequest(f"malformed packet: {why}"))

    async def _other_event(self, event: str, sid: str, *args: Any) -> dict[str, Any]:
        """Any client event but subscribe and unsubscribe: counted, and answered BAD_REQUEST."""

        async def unknown(sid: str, *args: Any) -> dict[str, Any]:
            return _error(BadRequest(f"unknown event {str(event)[:64]!r}: subscribe or unsubscribe"))

        answer: dict[str, Any] = await self._limited(unknown)(sid, *args)
        return answer

    def _forget(self, sid: str, key: str) -> None:
        room = self._rooms.get(key)
        if room is None:
            return
        room.remove(sid)
        if room.empty():
            del self._rooms[key]

    # -- subscriptions -------------------------------------------------------------------------------

    async def _subscribe(self, sid: str, raw: Any = None) -> dict[str, Any]:
        connection = self._connections.get(sid)
        if connection is None:
            return _error(BadRequest("not connected"))
        try:
            data: spec.SubscribeInput = decode_input(spec.SubscribeInput, raw)
            stream = await stream_of(self.node, connection.caller, data.room, field="room")
            sent = await self._join(sid, stream, data.room, data.since)
        except ApiError as error:
            return _error(error)
        except Exception as exc:  # the log could not be read (a database outage): the client retries
            log.warning("socket_subscribe_failed", error=type(exc).__name__)
            return _error(as_api_error(exc))
        return {"ok": True, "seq": sent}

    async def _join(self, sid: str, stream: str, name: str, since: int | None) -> int:
        """Enter the room and send the socket what it missed since `since` (None: nothing, live from
        now); returns the last seq the socket has. TOO_FAR_BEHIND when it missed too much."""
        connection = self._connections.get(sid)
        assert connection is not None
        org_id = connection.caller.org_id
        latest = await self.node.events.last_seq(org_id, stream)
        if since is None:
            since = latest
        if since > latest:
            raise BadRequest(f"since {since} is ahead of the stream (at {latest}): reload",
                             details=[FieldError("since", "ahead of the stream")])
        if latest - since > MAX_REPLAY:
            raise TooFarBehind(f"more than {MAX_REPLAY} events missed: reload, then subscribe without since",
                               data={"seq": latest})
        if self._connections.get(sid) is not connection:
            raise BadRequest("not connected")  # gone while the log was read
        key = room_of(org_id, stream)
        if key not in connection.rooms and len(connection.rooms) >= MAX_ROOMS:
            raise TooManyRooms(f"a socket follows at most {MAX_ROOMS} rooms: unsubscribe from one first",
                               data={"limit": MAX_ROOMS})
        room = self._rooms.get(key)
        if room is None:
            room = self._rooms[key] = Room(org_id, stream, seq=latest)
        if sid in room.catching_up:
            raise Conflict("a subscription to this room is already catching up")
        if sid in room.live and since >= room.seq:
            return max(room.seq, room.ahead.get(sid, room.seq))
        room.remove(sid)
        cursor = room.catching_up[sid] = Cursor(since)
        connection.rooms[key] = name
        await self.sio.enter_room(sid, key)
        try:
            await self._catch_up(sid, room, cursor)
        except Exception:
            await self._leave(sid, key)  # not left catching up (skipped by every broadcast) for good
            raise
        return cursor.seq

    async def _catch_up(self, sid: str, room: Room, cursor: Cursor) -> None:
        """Send the socket the log from its cursor to the room's seq, then turn it live. Stops early when the
        socket leaves, or is held for an access check (which calls this again). A failed read marks the
        cursor stalled: the next access check (at the latest the safety net's) starts it again."""
        if cursor.replaying:
            return
        cursor.replaying = True
        cursor.stalled = False
        try:
            while self._rooms.get(room.key) is room and room.catching_up.get(sid) is cursor and not cursor.held:
                if cursor.seq >= room.seq:
                    room.go_live(sid, cursor)
                    return
                target = room.seq
                limit = min(REPLAY_PAGE, target - cursor.seq)
                missed = await self.node.events.read(room.org_id, room.stream, cursor.seq, limit)
                for index, event in enumerate(missed):
                    if index and index % REPLAY_BURST == 0:
                        await asyncio.sleep(0)
                    if room.catching_up.get(sid) is not cursor or cursor.held:
                        return
                    if cursor.seq < event.seq <= target:
                        await self.sio.emit(event.name, wire_payload(event), to=sid, ignore_queue=True)
                        cursor.seq = event.seq
                if len(missed) < limit or missed[-1].seq >= target:
                    # The log holds nothing more up to `target` for this organization.
                    cursor.seq = max(cursor.seq, target)
        except BaseException:
            cursor.stalled = True
            raise
        finally:
            cursor.replaying = False

    async def _unsubscribe(self, sid: str, raw: Any = None) -> dict[str, Any]:
        connection = self._connections.get(sid)
        if connection is None:
            return _error(BadRequest("not connected"))
        try:
            data: spec.UnsubscribeInput = decode_input(spec.UnsubscribeInput, raw)
        except ApiError as error:
            return _error(error)
        try:
            stream = await stream_of(self.node, connection.caller, data.room, field="room")
        except ApiError:
            stream = data.room  # access lost since subscribing: still leave the room
        await self._leave(sid, room_of(connection.caller.org_id, stream))
        return {"ok": True}

    async def _leave(self, sid: str, key: str) -> None:
        connection = self._connections.get(sid)
        if connection is not None and connection.rooms.pop(key, None) is not None:
            self._forget(sid, key)
            await self.sio.leave_room(sid, key)

    # -- delivery ------------------------------------------------------------------------------------

    async def _on_committed(self, events: Sequence[StoredEvent]) -> None:
        """Bus consumer: runs in the bus's task for the gateway, never in a writer's."""
        items = [_item(event) for event in events]
        if self.fanout is not None:
            await self.fanout.publish(items)
        else:
            await self._deliver(items)

    async def _deliver(self, items: list[Item]) -> None:
        self._delivering += 1
        started = time.perf_counter()
        try:
            for item in items:
                if item["name"] in MEMBERSHIP_EVENTS and item["stream"].startswith("org:"):
                    user_id = (item["payload"].get("data") or {}).get("userId")
                    if isinstance(user_id, str):  # before this event or any later one is delivered
                        # The event may come from another node ahead of that node's cache invalidation (another
                        # channel): the re-check must not admit the socket from this node's stale role.
                        self.node.drop_stale(MembershipChanged(item["org"], user_id))
                        self._access_changed(AccessChange(organization_id=item["org"], user_id=user_id))
                await self._deliver_one(item)
        finally:
            self._delivering -= 1
            if self.on_fanout is not None:
                self.on_fanout(time.perf_counter() - started)

    async def _deliver_one(self, item: Item) -> None:
        key = room_of(item["org"], item["stream"])
        room = self._rooms.get(key)
        if room is None or item["seq"] <= room.seq:
            return  # nobody on this node follows the stream, or already delivered
        if await self._fill_gap(room, item["seq"] - 1) and item["seq"] > room.seq:
            await self._broadcast(room, item["seq"], item["name"], item["payload"])

    async def _fill_gap(self, room: Room, upto: int) -> bool:
        """Broadcast the log's events of the room past its seq up to `upto` (committed, but not published yet,
        or missed); False when the room went away meanwhile."""
        while room.seq < upto:
            limit = min(REPLAY_PAGE, upto - room.seq)
            missed = await self.node.events.read(room.org_id, room.stream, room.seq, limit)
            if self._rooms.get(room.key) is not room:
                return False
            for event in missed:
                if room.seq < event.seq <= upto:
                    await self._broadcast(room, event.seq, event.name, wire_payload(event))
            if len(missed) < limit or missed[-1].seq >= upto:
                room.seq = max(room.seq, upto)  # the rest belongs to no stream of this organization
        return True

    async def _catch_up_rooms(self) -> None:
        """The fan-out's subscription came back after Redis was away (called before it reads on): every room
        of this node takes what was committed meanwhile from the log, as for a gap."""
        self._delivering += 1
        try:
            for room in list(self._rooms.values()):
                if self._rooms.get(room.key) is not room:
                    continue  # left meanwhile
                latest = await self.node.events.last_seq(room.org_id, room.stream)
                await self._fill_gap(room, latest)
        finally:
            self._delivering -= 1

    async def _broadcast(self, room: Room, seq: int, name: str, payload: Any) -> None:
        # The cursor and the skip list are set before the recipients are taken, with no await between: a
        # socket turning live after this point has read this event from the log.
        room.seq = seq
        skip = set(room.skip_for(seq))
        recipients = [eio_sid for sid, eio_sid in room_members(self.sio, room.key) if sid not in skip]
        if recipients:
            await self._frames.send(recipients, name, payload)  # web/socket_frames.py

    # -- access re-checks ----------------------------------------------------------------------------

    def _access_changed(self, change: AccessChange) -> None:
        """Hold the affected sockets now (no await), then check each again."""
        for sid, connection in self._connections.items():
            if connection.matches(change):
                self._hold(sid, connection)

    def _hold(self, sid: str, connection: Connection) -> None:
        for key in connection.rooms:
            room = self._rooms.get(key)
            if room is not None:
                room.hold(sid)
        connection.check_again = True
        if not connection.checking:
            connection.checking = True
            self._spawn(self._recheck(sid, connection), name="gateway:access")

    async def _recheck(self, sid: str, connection: Connection) -> None:
        """Check the socket until no access change came in during the check (call with `checking` set)."""
        try:
            while True:
                connection.check_again = False
                await self._check(sid, connection)
                if not connection.check_again:
                    return
        finally:
            connection.checking = False

    async def _check(self, sid: str, connection: Connection) -> None:
        """Resolve the socket's credential again and check each of its rooms; release the rooms it may still
        see that are held or whose replay stalled (they go on from where they stopped). A cursor is held only
        while a check of its socket runs, or after that check failed (the database was away): the next
        check, at the latest the safety net's, lets it go on."""
        try:
            caller = await self._admit(connection.slug, connection.bearer, connection.session_token)
            if caller.org_id != connection.caller.org_id or caller.user_id != connection.caller.user_id:
                raise Unauthorized("the credential no longer names this socket's user")
        except ApiError as error:
            await self._revoke(sid, None, error)
            return
        connection.caller = caller
        for key, name in list(connection.rooms.items()):
            try:
                stream = await stream_of(self.node, caller, name, field="room")
                if room_of(caller.org_id, stream) != key:
                    raise NotFound(f"{name} not found")
            except ApiError as error:
                await self._revoke(sid, key, error)
                continue
            room = self._rooms.get(key)
            cursor = room.catching_up.get(sid) if room is not None else None
            if (room is not None and cursor is not None and (cursor.held or cursor.stalled)
                    and not cursor.replaying and not connection.check_again):
                cursor.held = False
                self._spawn(self._catch_up(sid, room, cursor), name="gateway:replay")

    async def _revoke(self, sid: str, key: str | None, error: ApiError) -> None:
        connection = self._connections.get(sid)
        if connection is None:
            return
        reason = {"code": error.code, "message": error.message}
        if key is None:
            log.info("socket_access_revoked", sid=sid, code=error.code)
            for room_key in list(connection.rooms):
                self._forget(sid, room_key)
            if connection.caller.credential is CredentialKind.DISPLAY:  # its screen goes dark (docs/displays.md)
                await self.sio.emit(DISPLAY_REVOKED, {"id": connection.caller.credential_id}, to=sid,
                                    ignore_queue=True)
            await self.sio.emit(ACCESS_REVOKED, {"room": None, "error": reason}, to=sid, ignore_queue=True)
            await self.sio.disconnect(sid, ignore_queue=True)
            return
        name = connection.rooms.get(key)
        await self._leave(sid, key)
        await self.sio.emit(ACCESS_REVOKED, {"room": name, "error": reason}, to=sid, ignore_queue=True)

    async def _recheck_forever(self) -> None:
        """The safety net: access changed on another node (whose signals do not reach this one)."""
        while True:
            await self.node.clock.sleep(RECHECK_SECONDS)
            for number, (sid, connection) in enumerate(list(self._connections.items()), 1):
                if number % RECHECK_BATCH == 0:
                    # A check answered from the caches never waits: without this, thousands of sockets would
                    # hold the loop (deliveries, requests) for tens of milliseconds each second.
                    await asyncio.sleep(0)
                if connection.checking or self._connections.get(sid) is not connection:
                    continue
                connection.checking = True
                try:
                    await self._recheck(sid, connection)
                except Exception:  # a database outage: the next round tries again
                    log.exception("socket_recheck_failed", sid=sid)


GATEWAY: web.AppKey[LiveGateway] = web.AppKey("live_gateway")
