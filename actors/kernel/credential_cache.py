"""Verified bearer credentials, cached in memory by the SHA-256 of the secret so that bcrypt is not on the
hot path, plus the last-used times that are flushed to the database in the background."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from actors.runtime.clock import Clock

# How long a verified credential is trusted without asking the database again (issue: at most 60 s).
CACHE_SECONDS = 60.0
# Sessions are cached more briefly: a logout on another node must take effect within seconds.
SESSION_CACHE_SECONDS = 5.0
# Secrets proven against a stored hash, kept at most this many (then forgotten all at once and proven anew).
PROVEN_KEPT = 10_000
# Cached sessions are pruned of stale entries once there are this many (then whenever their number doubles).
SESSIONS_PRUNED_FROM = 1024


@dataclass(frozen=True)
class VerifiedCredential:
    id: str
    kind: str  # "api_key" | "personal_token" | "mcp_key" | "oauth_token" | "display"
    organization_id: str
    user_id: str
    scopes: tuple[str, ...]
    expires_at: datetime | None
    board_id: str | None = None  # a display's board


def secret_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class CredentialCache:
    def __init__(self, clock: Clock, ttl: float = CACHE_SECONDS) -> None:
        self._clock = clock
        self._ttl = ttl
        self._entries: dict[str, tuple[float, VerifiedCredential]] = {}
        self._last_used: dict[str, datetime] = {}
        self._noted: dict[str, datetime] = {}  # credential id -> its last use noted by `touch_every`
        self._sessions: dict[str, tuple[float, tuple[str, str, str | None]]] = {}
        # Ids dropped within the last `ttl` seconds: a bcrypt check that began before a revoke must not
        # put the credential back into the cache when it finishes.
        self._dropped: dict[str, float] = {}
        self._dropped_sessions: dict[str, float] = {}  # the same for logged-out sessions
        self._sessions_prune_at = SESSIONS_PRUNED_FROM
        # digest -> the secret hash it was verified against. Outlives the entries: when one expires, the
        # credential's row is read again (still active?) but bcrypt, which would only give the same answer, is
        # not run again. Otherwise every key in use expires into bcrypt within the same few seconds, a stall
        # of seconds on a busy node (issue 13: items.list p99 900 ms, 406 ms over 75 s with 64 keys).
        self._proven: dict[str, str] = {}

    def get(self, digest: str) -> VerifiedCredential | None:
        entry = self._entries.get(digest)
        if entry is None:
            return None
        stored_at, credential = entry
        if self._clock.monotonic() - stored_at > self._ttl:
            del self._entries[digest]
            return None
        return credential

    def put(self, digest: str, credential: VerifiedCredential) -> None:
        dropped_at = self._dropped.get(credential.id)
        if dropped_at is not None and self._clock.monotonic() - dropped_at <= self._ttl:
            return
        self._entries[digest] = (self._clock.monotonic(), credential)

    def proven(self, digest: str, secret_hash: str) -> bool:
        """Whether the secret of this digest was verified against `secret_hash` before."""
        return self._proven.get(digest) == secret_hash

    def prove(self, digest: str, secret_hash: str) -> None:
        if len(self._proven) >= PROVEN_KEPT:
            self._proven.clear()
        self._proven[digest] = secret_hash

    def drop(self, credential_id: str) -> None:
        """Forget a credential at once (revoke, rotate, delete)."""
        now = self._clock.monotonic()
        self._dropped = {cid: at for cid, at in self._dropped.items() if now - at <= self._ttl}
        self._dropped[credential_id] = now
        for digest in [d for d, (_, c) in self._entries.items() if c.id == credential_id]:
            del self._entries[digest]

    def clear(self) -> None:
        """Forget every verified credential and session (changes made elsewhere may have been missed)."""
        self._entries.clear()
        self._sessions.clear()

    def touch(self, credential_id: str, moment: datetime) -> None:
        self._last_used[credential_id] = moment

    def touch_every(self, credential_id: str, moment: datetime, seconds: float) -> None:
        """`touch`, at most once in `seconds` per credential: a display in use all day is written once a minute,
        not at every flush."""
        noted = self._noted.get(credential_id)
        if noted is None or (moment - noted).total_seconds() >= seconds:
            self._noted[credential_id] = moment
            self._last_used[credential_id] = moment

    def last_used(self, credential_id: str) -> datetime | None:
        return self._last_used.get(credential_id)

    def take_last_used(self) -> dict[str, datetime]:
        taken, self._last_used = self._last_used, {}
        return taken

    def get_session(self, digest: str) -> tuple[str, str, str | None] | None:
        """(user id, e-mail, the organization it is limited to or None) of a verified session cookie, while fresh."""
        entry = self._sessions.get(digest)
        if entry is None or self._clock.monotonic() - entry[0] > SESSION_CACHE_SECONDS:
            self._sessions.pop(digest, None)
            return None
        return entry[1]

    def put_session(self, digest: str, user_id: str, email: str, org_id: str | None = None) -> None:
        dropped_at = self._dropped_sessions.get(digest)
        if dropped_at is not None and self._clock.monotonic() - dropped_at <= SESSION_CACHE_SECONDS:
            return  # read before the logout deleted it: not put back
        now = self._clock.monotonic()
        if len(self._sessions) >= self._sessions_prune_at:
            # Sessions that never came back would otherwise stay for the node's lifetime: drop the stale
            # ones whenever the table has doubled since the last pruning (amortized constant time).
            self._sessions = {d: entry for d, entry in self._sessions.items()
                              if now - entry[0] <= SESSION_CACHE_SECONDS}
            self._sessions_prune_at = max(SESSIONS_PRUNED_FROM, 2 * len(self._sessions))
        self._sessions[digest] = (now, (user_id, email, org_id))

    def drop_session(self, digest: str) -> None:
        """Forget a session at once (logout), also against a lookup that read it before and puts it after."""
        now = self._clock.monotonic()
        self._dropped_sessions = {d: at for d, at in self._dropped_sessions.items()
                                  if now - at <= SESSION_CACHE_SECONDS}
        self._dropped_sessions[digest] = now
        self._sessions.pop(digest, None)
