"""Redis away (restarting, failing over, or every pooled connection busy past its wait) as a caller of the
directory or of another node sees it: a 503 to retry, as when an actor moves, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import structlog
from redis.exceptions import RedisError

from protocol.errors import ServiceUnavailable

log = structlog.get_logger(__name__)

# What fails when Redis is away: its client's errors, and the socket's own beneath them.
REDIS_AWAY = (RedisError, OSError)


@contextmanager
def unavailable_without_redis(event: str, **context: object) -> Iterator[None]:
    """Turn a Redis failure inside the block into ServiceUnavailable, logged as `event` with `context`."""
    try:
        yield
    except REDIS_AWAY as exc:
        log.warning(event, **context, error=repr(exc))
        raise ServiceUnavailable("briefly unavailable; retry") from None
