"""Rate limits at the edge (spec platform 8): every `/api/` request is counted against its credential's
bucket, limited by the organization's plan, and every `/api/` response carries `X-RateLimit-Limit`,
`X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds). Over the limit: 429 TOO_MANY_REQUESTS
with `Retry-After`. Requests refused before they were counted (unknown organization, invalid credential,
CSRF) are counted too, per client address: they carry the headers, and guessing credentials is limited.

web/edge.py calls `count` once the caller is known, `count_refused` when a request was refused first, and
`add_headers` on every response, errors included.
"""

from __future__ import annotations

import structlog
from aiohttp import web

from protocol.caller import Caller
from protocol.errors import TooManyRequests
from protocol.plans import PLANS, plan
from web.keys import CALLER, NODE
from web.rate_limiter import Decision, LimiterUnavailable, RateLimiter

log = structlog.get_logger("obeya.rate_limit")

RATE_LIMITER = web.AppKey("rate_limiter", RateLimiter)
# The limit a request was counted against and the limiter's decision, for the response's headers.
COUNTED = web.RequestKey("rate_limit_counted", tuple[int, Decision])

# The spec leaves public endpoints open; they are counted per client address at the smallest plan's rate.
ANONYMOUS_LIMIT = PLANS["free"].requests_per_minute


def _bucket(request: web.Request, caller: Caller | None) -> tuple[str, int]:
    """The counter a request goes to and its limit per minute."""
    if caller is None or caller.credential_id is None:
        return f"ip:{request.remote}", ANONYMOUS_LIMIT
    plan_name = caller.organization.plan if caller.organization else "free"
    return f"credential:{caller.credential_id}", plan(plan_name).requests_per_minute


async def count(request: web.Request, caller: Caller | None) -> None:
    """Count one request of `caller` (None: not identified); TooManyRequests past the limit."""
    key, limit = _bucket(request, caller)
    app = request.app
    now = app[NODE].clock.now().timestamp()
    try:
        decision = await app[RATE_LIMITER].hit(key, limit, now)
    except LimiterUnavailable as error:
        # Counting is a guard, not a dependency: an unreachable counter must not take the API down.
        log.warning("rate_limiter_unavailable", error=str(error))
        return
    request[COUNTED] = limit, decision
    if not decision.allowed:
        retry_after = decision.retry_after(now)
        raise TooManyRequests(f"rate limit of {limit} requests per minute exceeded; retry in {retry_after} s",
                              retry_after=retry_after)


async def count_refused(request: web.Request) -> None:
    """Count an `/api/` request refused before `count` ran for it (or when the counter was away then)."""
    if COUNTED not in request:
        await count(request, request.get(CALLER))


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
