"""The guessing throttle: exponential backoff per subject, shared by every node through PostgreSQL and timed
by the node's clock (docs/decisions.md "Passwords and the guessing throttle").

A subject is what a guesser aims at, where a guess can succeed: an account (password sign-in from an unknown
device), or one browser's device cookie for that account (actors/identity/device_cookies.py: a browser that
signed in before is throttled on its own, so a stranger's failures never delay the owner there). A form's
one-time codes are bounded by their own rules, per e-mail, not here (actors/forms/otp.py: the 5th wrong guess
voids a code, an e-mail gets at most 5 codes an hour in an organization, each lives 10 minutes). Bearer
credentials and session tokens are not throttled here: they carry 160+ random bits, and a client address is
shared by a whole site (docs/security.md "One address, a whole site"). The first few failures within the
window cost nothing; from then on each attempt locks the subject for 2, 4, 8, ... seconds, capped, and an
attempt inside the lock is answered 429 with `Retry-After` without being checked or counted. A success
forgets the subject. The cap and the window bound what a stranger can do to the real owner: at worst one
attempt per cap keeps the account waiting that long between tries on an unknown device, never locked out
for good.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from actors.kernel.node import Node
from protocol.errors import TooManyRequests
from storage import throttle as repo


@dataclass(frozen=True)
class Policy:
    name: str               # what is throttled, in the 429 message
    free_failures: int      # failures within the window before any delay (>= 2)
    window: timedelta       # failures older than this, counted from the last one, are forgotten
    cap: timedelta          # the longest delay


# Five wrong passwords in a row are a typo streak; after that 2 s, 4 s, ... up to 15 minutes per attempt, so
# a guesser gets about four tries an hour, and the owner never waits more than 15 minutes. The window (one
# hour since the last failure) is longer than the cap, so waiting out a delay does not restore free tries.
ACCOUNT = Policy("sign-in attempts for this account", free_failures=5, window=timedelta(hours=1),
                 cap=timedelta(minutes=15))
# A known browser's own attempts (its device cookie): the account's backoff, but the failures are its own.
DEVICE = Policy("sign-in attempts from this browser", free_failures=5, window=timedelta(hours=1),
                cap=timedelta(minutes=15))


def account_key(email: str) -> str:
    """The subject of password guesses at an e-mail, registered or not (so the throttle tells nothing)."""
    return "account:" + email.strip().lower()


def device_key(nonce: str) -> str:
    """The subject of password attempts from one browser that signed in to the account before."""
    return "device:" + nonce


def _refusal(policy: Policy, until: datetime, now: datetime) -> TooManyRequests:
    retry_after = max(1, math.ceil((until - now).total_seconds()))
    return TooManyRequests(f"too many {policy.name}; retry in {retry_after} s", retry_after=retry_after)


async def attempt(node: Node, policy: Policy, key: str) -> None:
    """Count an attempt before checking it (atomic, so concurrent guesses cannot slip past a lock), or raise
    429 with `Retry-After` while the subject is locked. Call `succeeded` when the attempt was right."""
    now = node.clock.now()
    async with node.pool.acquire() as conn:
        counted = await repo.count_attempt(conn, key, now, now - policy.window, policy.free_failures,
                                           policy.cap.total_seconds())
        if counted is None:
            until = await repo.locked_until(conn, key, now)
            raise _refusal(policy, until or now, now)
        if counted == 1:  # a fresh subject: a good moment to drop a few stale ones
            await repo.prune(conn, now - policy.window)


async def succeeded(node: Node, key: str) -> None:
    """A right attempt: the subject's failures are forgotten."""
    await repo.forget(node.pool, key)
