"""What every handler and service is given: the pool, the clock, the caches and the node's settings.

Built once by `server/` at start-up; handlers never reach for globals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import asyncpg

from actors.kernel.bus import EventBus
from actors.kernel.credential_cache import CredentialCache
from actors.kernel.mailer import SmtpTarget
from actors.kernel.supervisor import Supervisor
from actors.runtime.clock import Clock, SystemClock
from actors.runtime.system import ActorSystem


@dataclass
class Node:
    pool: asyncpg.Pool
    service_host: str = "localhost"
    production: bool = False
    clock: Clock = field(default_factory=SystemClock)
    credentials: CredentialCache = field(default_factory=CredentialCache)
    bus: EventBus = field(default_factory=EventBus)
    # Set by the server's start-up order; None in one-shot CLI commands, which run no actors.
    actors: ActorSystem | None = None
    smtp: SmtpTarget | None = None  # None: e-mails are stored and logged, not sent
    # Outbound HTTP (webhook deliveries, call_webhook): the longest a receiver may take to answer.
    http_timeout: float = 10.0
    # bcrypt cost of new password, API key and token hashes (server/config.py: OBEYA_BCRYPT_ROUNDS).
    bcrypt_rounds: int = 10
    # The node's background workers, on the node's clock.
    workers: Supervisor = field(init=False)

    def __post_init__(self) -> None:
        self.workers = Supervisor(self.clock)

    def base_url(self, slug: str) -> str:
        scheme = "https" if self.production else "http"
        return f"{scheme}://{slug}.{self.service_host}"
