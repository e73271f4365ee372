"""What one user, one address and one socket may take of the Socket.IO gateway (web/socket_gateway.py), so
that nobody's sockets slow anyone else's:

- connections: at most `max_per_user` sockets of one user (or credential without a user) and
  `max_per_address` of one client address on this node; the next is refused at connect with
  TOO_MANY_REQUESTS (python-socketio's `connect_error`, whose data names the limit);
- events: every client event (`subscribe`, `unsubscribe`, any other) takes a token from its user's bucket,
  which holds the user's plan's HTTP rate (`requests_per_minute`) and refills at that rate:
  sockets do not multiply the HTTP limit. An event without a token is answered TOO_MANY_REQUESTS at once,
  and a socket refused `FLOOD_STRIKES` events in a row is disconnected;
- work: at most `CONCURRENT_EVENTS` events of one user are handled at once (each reads the database); the
  others wait their turn, so one user's burst holds at most that many pooled connections;
- rooms: a socket follows at most `MAX_ROOMS` rooms (its private room included);
- messages: an Engine.IO message is at most `MAX_MESSAGE_BYTES` (a longer one closes the connection), and a
  Socket.IO packet announces at most `MAX_ATTACHMENTS` binary attachments (python-socketio would otherwise
  hold every later message of the socket as an attachment, up to ten billion of them); a packet that is not
  JSON, nests past what the JSON decoder reads or has a type clients do not send is answered BAD_REQUEST
  (`MALFORMED`) instead of raising inside python-socketio, which engineio logs as a server error.

Plain state on the gateway, changed without awaits between a check and its update.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from protocol.errors import ApiError, TooManyRequests
from protocol.plans import plan
from web.engineio_internals import screened_packet_class

# Sized for a site (docs/decisions.md "Limits sized for a site behind one address"): a screen wall or a
# benchmark under one account, and a plant's tablets and wall screens behind one NAT address.
MAX_PER_USER = 500
MAX_PER_ADDRESS = 2000
MAX_ROOMS = 100
# Refused events in a row after which a socket is disconnected: a client that ignores TOO_MANY_REQUESTS.
FLOOD_STRIKES = 100
CONCURRENT_EVENTS = 4
# The event a flooding socket gets before it is disconnected.
RATE_LIMITED = "rate_limited"
# Client events are small objects ({room, since}); 64 KiB leaves room for any later one.
MAX_MESSAGE_BYTES = 64 * 1024
# No client event of ours carries binary data; a few are decoded (and refused as not an object).
MAX_ATTACHMENTS = 4


# What a malformed packet becomes: an event of this name whose argument says what was wrong, answered
# BAD_REQUEST and counted like any event (python-socketio would raise, and engineio log a traceback).
MALFORMED = "malformed packet"
# python-socketio's packet, turning a malformed one into a MALFORMED event (web/engineio_internals.py).
BoundedPacket = screened_packet_class(MALFORMED, MAX_ATTACHMENTS)


class TooManyRooms(ApiError):
    """The socket already follows MAX_ROOMS rooms: unsubscribe from one first."""

    code = "TOO_MANY_ROOMS"
    status = 409


@dataclass
class Bucket:
    """A token bucket: `capacity` tokens, refilled at `rate` per second."""

    capacity: float
    rate: float
    tokens: float
    at: float

    def refilled(self, now: float) -> float:
        return min(self.capacity, self.tokens + max(0.0, now - self.at) * self.rate)

    def take(self, now: float) -> bool:
        self.tokens = self.refilled(now)
        self.at = max(self.at, now)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def retry_after(self) -> float:
        return (1 - self.tokens) / self.rate


@dataclass
class UserShare:
    """One user's sockets on this node: how many, their event bucket and their turns at the database."""

    bucket: Bucket
    connections: int = 0
    turns: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(CONCURRENT_EVENTS))


class SocketLimits:
    def __init__(self, max_per_user: int = MAX_PER_USER, max_per_address: int = MAX_PER_ADDRESS) -> None:
        self.max_per_user = max_per_user
        self.max_per_address = max_per_address
        self._addresses: dict[str, int] = {}
        # Users with sockets, and those whose last socket closed while their bucket was not full again (so a
        # reconnect does not refill it); swept once a minute.
        self._users: dict[str, UserShare] = {}
        self._swept_at = 0.0

    def open_address(self, address: str) -> None:
        """Count a connection of `address`; TooManyRequests (nothing counted) past the limit."""
        count = self._addresses.get(address, 0)
        if count >= self.max_per_address:
            raise TooManyRequests(f"at most {self.max_per_address} live connections from one address",
                                  data={"limit": self.max_per_address})
        self._addresses[address] = count + 1

    def close_address(self, address: str) -> None:
        count = self._addresses.get(address, 0) - 1
        if count > 0:
            self._addresses[address] = count
        else:
            self._addresses.pop(address, None)

    def open_user(self, user: str, plan_name: str, now: float) -> UserShare:
        """Count a connection of `user`; TooManyRequests (nothing counted) past the limit."""
        if now - self._swept_at >= 60:
            self._swept_at = now
            self._users = {key: share for key, share in self._users.items()
                           if share.connections > 0 or share.bucket.refilled(now) < share.bucket.capacity}
        share = self._users.get(user)
        if share is None:
            per_minute = plan(plan_name).requests_per_minute
            share = UserShare(Bucket(per_minute, per_minute / 60, per_minute, now))
        if share.connections >= self.max_per_user:
            raise TooManyRequests(f"at most {self.max_per_user} live connections per user: close another "
                                  "screen first", data={"limit": self.max_per_user})
        share.connections += 1
        self._users[user] = share
        return share

    def close_user(self, user: str) -> None:
        share = self._users.get(user)
        if share is None:
            return
        share.connections = max(0, share.connections - 1)
