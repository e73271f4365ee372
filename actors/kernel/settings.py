"""What a node was configured with: one frozen value, read by every service as `node.settings`.

Built once at start-up from the environment (server/config.py `Settings.node_settings`); the defaults are a
development node's, which tests and one-shot commands get unless they say otherwise. Only what services read is
here: how the server itself runs (pool size, timeouts of the HTTP server, Redis) stays in server/config.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from actors.kernel.mailer import SmtpTarget
from actors.kernel.public_url import PublicUrl


@dataclass(frozen=True)
class NodeSettings:
    # Organizations' hosts are `<slug>.<service_host>` (web/context.py org_slug).
    service_host: str = "localhost"
    production: bool = False
    # Where clients reach the server (server/config.py OBEYA_PUBLIC_URL): the scheme and port of every absolute
    # URL the node builds (Node.base_url).
    public_url: PublicUrl = PublicUrl("http", "localhost")
    smtp: SmtpTarget | None = None  # None: e-mails are stored and logged, not sent
    # Outbound HTTP (webhook deliveries, call_webhook): the longest a receiver may take to answer.
    http_timeout: float = 10.0
    # Outbound HTTP may reach private, loopback and link-local addresses (OBEYA_ALLOW_PRIVATE_TARGETS=1;
    # actors/delivery/addresses.py).
    allow_private_targets: bool = False
    # bcrypt cost of new password, API key and token hashes (server/config.py: OBEYA_BCRYPT_ROUNDS).
    bcrypt_rounds: int = 10
    # The key secrets kept at rest are sealed under (actors/kernel/sealing.py; OBEYA_SECRET_KEY); None: a key
    # kept in the database. Never shown in a repr, so never in a log line.
    secret_key: str | None = field(default=None, repr=False)
    # This process's node id (server/config.py OBEYA_NODE_ID, a random suffix per process by default): the holder
    # named on the Idempotency-Key claims its requests make.
    node_id: str = "local"
