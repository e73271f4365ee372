"""Rate limits at the edge (spec platform 8): every `/api/` request is counted against its credential's
bucket, limited by the organization's plan, and every `/api/` response carries `X-RateLimit-Limit`,
`X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds). Over the limit: 429 TOO_MANY_REQUESTS
with `Retry-After`.

The headers are kept on the request under `RATE_LIMIT_HEADERS` and added by `request_context`, which
renders every response, errors included.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog
from aiohttp import web

from protocol.caller import Caller
from protocol.errors import ApiError, TooManyRequests
from protocol.plans import PLANS, plan
from web.keys import CALLER, NODE
from web.rate_limiter import LimiterUnavailable, RateLimiter

log = structlog.get_logger("obeya.rate_limit")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

RATE_LIMITER = web.AppKey("rate_limiter", RateLimiter)
RATE_LIMIT_HEADERS = web.RequestKey("rate_limit_headers", dict[str, str])

# The spec leaves public endpoints open; they are counted per client address at the smallest plan's rate.
ANONYMOUS_LIMIT = PLANS["free"].requests_per_minute


def _bucket(request: web.Request, caller: Caller | None) -> tuple[str, int]:
    """The counter a request goes to and its limit per minute."""
    if caller is None or caller.credential_id is None:
        return f"ip:{request.remote}", ANONYMOUS_LIMIT
    plan_name = caller.organization.plan if caller.organization else "free"
    return f"credential:{caller.credential_id}", plan(plan_name).requests_per_minute


async def _count(request: web.Request, caller: Caller | None) -> None:
    key, limit = _bucket(request, caller)
    now = request.app[NODE].clock.now().timestamp()
    try:
        decision = await request.app[RATE_LIMITER].hit(key, limit, now)
    except LimiterUnavailable as error:
        # Counting is a guard, not a dependency: an unreachable counter must not take the API down.
        log.warning("rate_limiter_unavailable", error=str(error))
        return
    headers = {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(decision.remaining),
               "X-RateLimit-Reset": str(decision.reset_at)}
    request[RATE_LIMIT_HEADERS] = headers
    if not decision.allowed:
        retry_after = decision.retry_after(now)
        headers["Retry-After"] = str(retry_after)
        raise TooManyRequests(f"rate limit of {limit} requests per minute exceeded; retry in {retry_after} s")


@web.middleware
async def rate_limit(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Counts an identified request against its credential (runs after `resolve_identity`)."""
    if request.path.startswith("/api/"):
        await _count(request, request[CALLER])
    return await handler(request)


@web.middleware
async def rate_limit_refusals(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Counts the requests that `resolve_identity` refused (unknown organization, invalid credential,
    CSRF) and so never reached `rate_limit`: they carry the headers too, and guessing credentials is
    limited per client address (runs before `resolve_identity`)."""
    try:
        return await handler(request)
    except ApiError:
        if request.path.startswith("/api/") and RATE_LIMIT_HEADERS not in request:
            await _count(request, request.get(CALLER))
        raise
