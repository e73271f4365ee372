"""Rate limits at the edge: every `/api/` request is counted against its credential's
bucket, limited by the organization's plan, and every `/api/` response carries `X-RateLimit-Limit`,
`X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds). Over the limit: 429 TOO_MANY_REQUESTS
with `Retry-After`.

A display link (docs/displays.md) counts in a bucket of its own at DISPLAY_RATE_LIMIT whatever the plan: a wall
screen never spends its creator's budget, nor a person the screen's.

Requests without a credential (public forms and their uploads, sign-in, OAuth and single sign-on) count per
client address at `OBEYA_ANONYMOUS_RATE_LIMIT`, sized for a site whose tablets share one NAT address; a
public submission also counts per form and address, once its form is found (`count_submission`, from the
submit route). A request refused before it was counted (unknown
organization, invalid or revoked credential, CSRF) counts against the bucket of the credential it
presented, never its address's: a stale tablet hammering with a revoked key spends only its own budget
(docs/security.md "One address, a whole site"). So that a fresh made-up credential per request buys no fresh
budget, a refusal its credential's bucket still allowed also counts in its address's bucket of refusals;
once that is full, the address's credentials this node has not verified yet are answered 429 before they
are looked up, while credentials already verified here (the cache) go on.

web/edge.py calls `check_refusals` before an unverified credential is looked up, `count` once the caller is
known, `count_refused` when a request was refused first, and `add_headers` on every response, errors
included.
"""

from __future__ import annotations

import structlog
from aiohttp import web

from actors.kernel.credential_cache import secret_digest
from protocol.caller import Caller, CredentialKind
from protocol.errors import TooManyRequests
from protocol.plans import PLANS, plan
from web.context import SESSION_COOKIE
from web.keys import CALLER, NODE
from web.rate_limiter import Decision, LimiterUnavailable, RateLimiter

log = structlog.get_logger("obeya.rate_limit")

RATE_LIMITER = web.AppKey("rate_limiter", RateLimiter)
# Requests per minute of one client address without a credential (server/config.py OBEYA_ANONYMOUS_RATE_LIMIT).
ANONYMOUS_RATE_LIMIT = web.AppKey("anonymous_rate_limit", int)
# The limit a request was counted against and the limiter's decision, for the response's headers.
COUNTED = web.RequestKey("rate_limit_counted", tuple[int, Decision])

# Requests per minute of one display link. A wall screen loads its board in about ten calls (board, items, KPIs,
# actions, meetings) and then follows it live; 120 lets it load again every five seconds, reconnects included, and
# holds a looping screen to two requests a second.
DISPLAY_RATE_LIMIT = 120

# Requests per minute of a credential that was refused (unknown, revoked, expired, another organization's):
# the smallest plan's rate, counted against that credential alone.
REFUSED_CREDENTIAL_LIMIT = PLANS["free"].requests_per_minute
# Refusals per minute from one client address are limited like its anonymous requests, but never below twice
# one credential's refusals: a stale tablet's revoked key alone (60 a minute) can never fill its address's.
MIN_REFUSALS_LIMIT = 2 * REFUSED_CREDENTIAL_LIMIT


def _bucket(request: web.Request, caller: Caller | None) -> tuple[str, int]:
    """The counter a request goes to and its limit per minute."""
    if caller is None or caller.credential_id is None:
        return f"ip:{request.remote}", request.app[ANONYMOUS_RATE_LIMIT]
    if caller.credential is CredentialKind.DISPLAY:
        return f"display:{caller.credential_id}", DISPLAY_RATE_LIMIT
    plan_name = caller.organization.plan if caller.organization else "free"
    return f"credential:{caller.credential_id}", plan(plan_name).requests_per_minute


async def _hit(request: web.Request, key: str, limit: int) -> None:
    """Count one request against `key`; TooManyRequests past `limit`. The headers describe the bucket
    nearest its limit among those the request was counted against."""
    app = request.app
    now = app[NODE].clock.now().timestamp()
    try:
        decision = await app[RATE_LIMITER].hit(key, limit, now)
    except LimiterUnavailable as error:
        # Counting is a guard, not a dependency: an unreachable counter must not take the API down.
        log.warning("rate_limiter_unavailable", error=str(error))
        return
    counted = request.get(COUNTED)
    if counted is None or not decision.allowed or decision.remaining < counted[1].remaining:
        request[COUNTED] = limit, decision
    if not decision.allowed:
        retry_after = decision.retry_after(now)
        raise TooManyRequests(f"rate limit of {limit} requests per minute exceeded; retry in {retry_after} s",
                              retry_after=retry_after)


async def count(request: web.Request, caller: Caller | None) -> None:
    """Count one request of `caller` (None: not identified); TooManyRequests past the limit."""
    key, limit = _bucket(request, caller)
    await _hit(request, key, limit)


def form_submission_limit(anonymous_limit: int) -> int:
    """Public submissions of one form from one client address per minute, on top of the address's limit: half
    of it, so raising the one raises the other. Fifty tablets behind one NAT at a shift change submit a form
    once or twice each (docs/decisions.md "Limits sized for a site behind one address"); a script flooding one
    form's results is stopped here, and the address's other forms keep the other half."""
    return max(1, anonymous_limit // 2)


async def count_submission(request: web.Request, form_id: str) -> None:
    """Count a public submission to the form `form_id` (its id, whether the path named it by id or by slug)
    against the form's bucket of the client address, when the caller has no credential; TooManyRequests past
    `form_submission_limit`."""
    caller: Caller | None = request.get(CALLER)
    if caller is None or caller.credential_id is None:
        limit = form_submission_limit(request.app[ANONYMOUS_RATE_LIMIT])
        await _hit(request, f"form:{form_id}:{request.remote}", limit)


def _presented_credential(request: web.Request) -> str | None:
    """What the request offered as its credential: the Authorization header, else the session cookie."""
    return request.headers.get("Authorization") or request.cookies.get(SESSION_COOKIE) or None


def _refusals(request: web.Request) -> tuple[str, int]:
    """The bucket of refused credentials of the request's client address and its limit per minute."""
    return f"refused-ip:{request.remote}", max(request.app[ANONYMOUS_RATE_LIMIT], MIN_REFUSALS_LIMIT)


async def check_refusals(request: web.Request) -> None:
    """TooManyRequests when the client's address has spent its refusals this minute: called before a
    credential this node has not verified yet is looked up (and bcrypt-checked), so a spray of made-up
    credentials costs neither lookups nor counters; a credential verified here before never comes here."""
    key, limit = _refusals(request)
    now = request.app[NODE].clock.now().timestamp()
    try:
        decision = await request.app[RATE_LIMITER].peek(key, limit, now)
    except LimiterUnavailable as error:
        log.warning("rate_limiter_unavailable", error=str(error))
        return
    if not decision.allowed:
        request[COUNTED] = limit, decision
        retry_after = decision.retry_after(now)
        raise TooManyRequests(f"too many refused credentials from this address; retry in {retry_after} s",
                              retry_after=retry_after)


async def count_refused(request: web.Request) -> None:
    """Count an `/api/` request refused before `count` ran for it (or when the counter was away then): one
    that presented a credential and was not identified by it, against that credential's own bucket (a
    digest of it) and, when that allowed it, its address's refusals; any other as `count` does."""
    if COUNTED in request:
        return
    caller: Caller | None = request.get(CALLER)
    presented = _presented_credential(request)
    if (caller is None or caller.credential_id is None) and presented is not None:
        await check_refusals(request)  # spent: no counter is made for yet another made-up credential
        await _hit(request, "refused:" + secret_digest(presented), REFUSED_CREDENTIAL_LIMIT)
        await _hit(request, *_refusals(request))
        return
    await count(request, caller)


def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """The `X-RateLimit-*` headers of a counted request, and `Retry-After` when it was refused for it."""
    counted = request.get(COUNTED)
    if counted is None:
        return
    limit, decision = counted
    headers = response.headers
    headers["X-RateLimit-Limit"] = str(limit)
    headers["X-RateLimit-Remaining"] = str(decision.remaining)
    headers["X-RateLimit-Reset"] = str(decision.reset_at)
