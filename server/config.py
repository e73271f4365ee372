"""Configuration from the environment (docs/configuration.md), read and checked once at
start-up: a value that cannot be used stops the server with a message naming its variable."""

from __future__ import annotations

import ipaddress
import json
import math
import os
import re
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

from actors.kernel.mailer import smtp_target
from actors.kernel.public_url import PublicUrl
from actors.kernel.settings import NodeSettings
from server.event_loop import default_event_loop, event_loop_from
from web.socket_limits import MAX_PER_ADDRESS, MAX_PER_USER

# The background workers server/app.py can start (Settings.workers selects among them).
WORKERS = frozenset({"idempotency-purge", "trash-sweeper", "mail-sender", "webhook-sender", "automations",
                     "action-escalation", "last-used-flusher", "approval-expiry", "approval-actions",
                     "form-sweeper", "form-otp", "billing-sweeper", "import-sweeper"})

# bcrypt's own bounds are 4..31; below 10 a stolen hash is cheap to attack (the spec's cost for API keys
# is 10), so production refuses it. Tests use 4: each hash then costs about a millisecond instead of 50.
MIN_BCRYPT_ROUNDS = 4
MIN_PRODUCTION_BCRYPT_ROUNDS = 10
MAX_BCRYPT_ROUNDS = 31

# OBEYA_SECRET_KEY seals secrets kept at rest (invitation links in stored e-mails): shorter than this it could
# be guessed, and it is no password a person types.
MIN_SECRET_KEY_LENGTH = 32
# A bearer token a scraper sends on every request: long enough not to be guessed.
MIN_METRICS_TOKEN_LENGTH = 16
# The payment processors (docs/billing.md), the plans a checkout may buy and their intervals.
BILLING_PROCESSORS = ("sandbox", "stripe")
STRIPE_PLANS = ("starter", "business", "enterprise")
STRIPE_INTERVALS = ("monthly", "annual")
# A node id names a Redis channel and fills directory entries: a host or pod name fits.
MAX_NODE_ID_LENGTH = 100
# Where `obeya serve` listens unless told otherwise, and so the port the other commands' links name.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
# Listening on one of these, the server is reached as localhost (its organizations as <slug>.localhost).
LOCAL_LISTEN_HOSTS = frozenset({"127.0.0.1", "::1", "0.0.0.0", "::", "localhost"})
# A DNS name: organizations live on its subdomains, which an IP address cannot have.
_DNS_NAME = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")


def default_node_id() -> str:
    return f"{socket.gethostname()}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class StripeSettings:
    """OBEYA_BILLING=stripe: the account's secret key, the webhook endpoint's signing secret, and the price of each
    plan per interval (`OBEYA_STRIPE_PRICES` = {"starter": {"monthly": "price_...", "annual": "price_..."}, ...}).
    `api_base` (OBEYA_STRIPE_API_BASE) points the SDK at another Stripe API, such as stripe-mock or a test's."""
    secret_key: str = field(repr=False)
    webhook_secret: str = field(repr=False)
    prices: Mapping[str, Mapping[str, str]]
    api_base: str | None = None


@dataclass(frozen=True)
class Settings:
    database_url: str | None
    redis_url: str | None
    data_dir: Path
    service_host: str
    smtp_url: str | None
    production: bool
    # Where clients reach the server (OBEYA_PUBLIC_URL); None in development when unset: then where `obeya serve`
    # listens (public_url_for).
    public_url: PublicUrl | None = None
    # Two connections are held by LISTEN (mail sender, automations); the rest serve requests, actor turns
    # and workers. 20 stays well under PostgreSQL's default max_connections (100) with a few nodes.
    pool_size: int = 20
    # How long a request waits for a pooled connection before it is answered 503: past a few seconds the
    # database is overloaded, and a quick "retry" beats a client timing out on its own.
    pool_timeout: float = 5.0
    # No statement of ours takes seconds; one that runs this long is stuck (a lock wait) and is cancelled.
    statement_timeout: float = 30.0
    # How often expired idempotency records are purged: they are harmless (a claim overwrites them), so hourly
    # only bounds the table. Also how soon another node takes the purge over from a leader that died.
    idempotency_purge_interval: float = 3600.0
    # How long a request waits for an actor's reply (a turn, with its queue ahead of it).
    ask_timeout: float = 10.0
    # Actors active at once on one node before the least recently used are deactivated.
    max_actors: int = 10_000
    # Outbound webhook deliveries and automations' call_webhook: the receiver must answer within this.
    http_timeout: float = 10.0
    bcrypt_rounds: int = 10
    # The key secrets at rest are sealed under (actors/kernel/sealing.py); None: one kept in the database.
    # Not in the repr: settings may be logged, the key must not be.
    secret_key: str | None = field(default=None, repr=False)
    # Requests per minute of one client address without a credential (web/rate_limit.py): public forms, their
    # uploads, sign-in, OAuth and single sign-on pages. A site's tablets and screens share one NAT address.
    anonymous_rate_limit: int = 600
    # Webhooks and call_webhook may reach private, loopback, link-local addresses (tests, local development).
    allow_private_targets: bool = False
    # Live connections (Socket.IO) of one user, and of one client address, on one node (web/socket_limits.py).
    socket_max_per_user: int = MAX_PER_USER
    socket_max_per_address: int = MAX_PER_ADDRESS
    # Slow clients: a connection has this long to send a request's headers, counted from its opening or its
    # previous response (so an idle keep-alive connection is closed after it too); a body is due this long
    # after its headers (408 past it). An 11 MB CSV upload in 60 s needs about 1.5 Mbit/s.
    header_timeout: float = 15.0
    body_timeout: float = 60.0
    # `GET /metrics` in production needs `Authorization: Bearer <this>`; unset there, it answers 404.
    metrics_token: str | None = field(default=None, repr=False)
    # On SIGTERM: how long requests in flight may take to finish before their connections are closed.
    shutdown_timeout: float = 20.0
    # This node's name in the actor directory (docs/forwarding.md): unique per running process. Unset: the
    # host name with a random suffix, so a restarted process never inherits its predecessor's leases.
    node_id: str = field(default_factory=default_node_id)
    # How long a node's claim on an actor outlives the node (renewed every third of it while alive): the time a
    # dead node's boards wait before another node serves them.
    actor_lease: float = 10.0
    # The event loop `obeya serve` runs on (server/event_loop.py): uvloop when installed.
    event_loop: str = field(default_factory=default_event_loop)
    # The payment processor: None is the sandbox (OBEYA_BILLING=sandbox, the default), else Stripe's settings.
    stripe: StripeSettings | None = None
    # Which background workers run; all of them unless a test asks for fewer (not read from the environment).
    workers: frozenset[str] = WORKERS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        mode = env.get("OBEYA_ENV", "development").strip().lower()
        if mode not in ("development", "production"):
            raise SystemExit(f"OBEYA_ENV must be development or production, not {mode!r}")
        production = mode == "production"
        rounds = _integer(env, "OBEYA_BCRYPT_ROUNDS", 10, MIN_BCRYPT_ROUNDS, MAX_BCRYPT_ROUNDS)
        if production and rounds < MIN_PRODUCTION_BCRYPT_ROUNDS:
            raise SystemExit(f"OBEYA_BCRYPT_ROUNDS must be at least {MIN_PRODUCTION_BCRYPT_ROUNDS} in production, "
                             f"not {rounds}")
        public_url = _public_url(env)
        if production and public_url is not None and public_url.scheme != "https":
            # Session cookies are Secure in production: a browser sent to an http link could not sign in.
            raise SystemExit(f"OBEYA_PUBLIC_URL must be https in production, not {public_url}")
        service_host = _service_host(env, public_url)
        if production and public_url is None:  # as before OBEYA_PUBLIC_URL existed: https on the service host
            public_url = PublicUrl("https", service_host)
        smtp_url = env.get("OBEYA_SMTP_URL") or None
        try:  # checked here so that every command, not only `serve`, stops with one line naming the variable
            smtp_target(smtp_url, service_host)
        except ValueError as error:
            raise SystemExit(str(error)) from None
        return cls(
            database_url=env.get("OBEYA_DATABASE_URL") or None,
            redis_url=env.get("OBEYA_REDIS_URL") or None,
            data_dir=_data_dir(env),
            service_host=service_host,
            smtp_url=smtp_url,
            production=production,
            public_url=public_url,
            # 3: the two LISTEN connections and one to work with.
            pool_size=_integer(env, "OBEYA_POOL_SIZE", 20, 3, 1000),
            pool_timeout=_seconds(env, "OBEYA_POOL_TIMEOUT", 5.0),
            statement_timeout=_seconds(env, "OBEYA_STATEMENT_TIMEOUT", 30.0),
            idempotency_purge_interval=_seconds(env, "OBEYA_IDEMPOTENCY_PURGE_INTERVAL", 3600.0),
            ask_timeout=_seconds(env, "OBEYA_ASK_TIMEOUT", 10.0),
            max_actors=_integer(env, "OBEYA_MAX_ACTORS", 10_000, 1, 10_000_000),
            http_timeout=_seconds(env, "OBEYA_HTTP_TIMEOUT", 10.0),
            bcrypt_rounds=rounds,
            secret_key=_secret_key(env),
            anonymous_rate_limit=_integer(env, "OBEYA_ANONYMOUS_RATE_LIMIT", 600, 1, 1_000_000),
            allow_private_targets=_flag(env, "OBEYA_ALLOW_PRIVATE_TARGETS"),
            socket_max_per_user=_integer(env, "OBEYA_SOCKET_MAX_PER_USER", MAX_PER_USER, 1, 100_000),
            socket_max_per_address=_integer(env, "OBEYA_SOCKET_MAX_PER_ADDRESS", MAX_PER_ADDRESS, 1,
                                                  1_000_000),
            header_timeout=_seconds(env, "OBEYA_HEADER_TIMEOUT", 15.0),
            body_timeout=_seconds(env, "OBEYA_BODY_TIMEOUT", 60.0),
            metrics_token=_metrics_token(env),
            shutdown_timeout=_seconds(env, "OBEYA_SHUTDOWN_TIMEOUT", 20.0),
            node_id=_node_id(env),
            actor_lease=_seconds(env, "OBEYA_ACTOR_LEASE", 10.0),
            event_loop=event_loop_from(env),
            stripe=_stripe(env),
        )

    def public_url_for(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> PublicUrl:
        """Where clients reach a server listening on `host`:`port`: OBEYA_PUBLIC_URL when set (always in
        production), else `http://localhost:<port>` on a local or every address, `http://<host>:<port>` on
        another."""
        if self.public_url is not None:
            return self.public_url
        return PublicUrl("http", "localhost" if host in LOCAL_LISTEN_HOSTS else host, port)

    def node_settings(self) -> NodeSettings:
        """What the node's services read of these (actors/kernel/settings.py), for the server and the one-shot
        commands alike: links name `public_url_for()`'s address. (OBEYA_SMTP_URL was checked by `from_env`.)"""
        return NodeSettings(service_host=self.service_host, production=self.production,
                            public_url=self.public_url_for(), smtp=smtp_target(self.smtp_url, self.service_host),
                            http_timeout=self.http_timeout, allow_private_targets=self.allow_private_targets,
                            bcrypt_rounds=self.bcrypt_rounds, secret_key=self.secret_key, node_id=self.node_id)


def _data_dir(env: Mapping[str, str]) -> Path:
    """OBEYA_DATA_DIR, else the user's data directory (`~/.local/share/obeya` on Linux): one place whichever
    directory a command is run from."""
    return Path(env.get("OBEYA_DATA_DIR") or platformdirs.user_data_dir("obeya", appauthor=False)).absolute()


def _public_url(env: Mapping[str, str]) -> PublicUrl | None:
    text = env.get("OBEYA_PUBLIC_URL", "").strip()
    if not text:
        return None
    shape = f"OBEYA_PUBLIC_URL must be http(s)://host[:port] with no path, query or fragment, not {text!r}"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise SystemExit(shape) from None
    host = (parts.hostname or "").lower()
    if (parts.scheme not in ("http", "https") or not host or parts.path not in ("", "/") or parts.query
            or parts.fragment or "?" in text or "#" in text or parts.username is not None
            or (port is not None and not 1 <= port <= 65535)):  # urlsplit reads `:0` as port 0
        raise SystemExit(shape)
    if not _DNS_NAME.fullmatch(host) or _is_ip_address(host):
        raise SystemExit(f"OBEYA_PUBLIC_URL must name its host by a DNS name (organizations are reached on "
                         f"<slug>.<host>), not {host!r}")
    return PublicUrl(parts.scheme, host, port)


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _service_host(env: Mapping[str, str], public_url: PublicUrl | None) -> str:
    """OBEYA_SERVICE_HOST; unset, the host of OBEYA_PUBLIC_URL, else localhost. Both set, they must agree: the
    links the server prints must lead to the hosts it routes to organizations."""
    given = env.get("OBEYA_SERVICE_HOST", "").strip().lower()
    if public_url is None:
        return given or "localhost"
    if given and given != public_url.host:
        raise SystemExit(f"OBEYA_SERVICE_HOST ({given}) must be the host of OBEYA_PUBLIC_URL ({public_url.host}), "
                         f"or be left unset")
    return public_url.host


def _node_id(env: Mapping[str, str]) -> str:
    value = env.get("OBEYA_NODE_ID", "").strip()
    if not value:
        return default_node_id()
    if len(value) > MAX_NODE_ID_LENGTH or not value.isprintable() or " " in value:
        raise SystemExit(f"OBEYA_NODE_ID must be at most {MAX_NODE_ID_LENGTH} printable characters without "
                         f"spaces, not {value!r}")
    return value


def _stripe(env: Mapping[str, str]) -> StripeSettings | None:
    named = env.get("OBEYA_BILLING", "").strip().lower()
    if not named and env.get("OBEYA_ENV", "").strip().lower() == "production":
        # The sandbox's checkout lets any admin buy a plan without paying: in production it must be asked for.
        raise SystemExit("OBEYA_BILLING must be set in production: stripe, or sandbox to let admins change plans "
                         "without paying")
    processor = named or "sandbox"
    if processor not in BILLING_PROCESSORS:
        raise SystemExit(f"OBEYA_BILLING must be sandbox or stripe, not {processor!r}")
    if processor == "sandbox":
        return None
    # The values themselves are never repeated in a message: they are secrets.
    secret_key = env.get("OBEYA_STRIPE_SECRET_KEY", "").strip()
    if not secret_key.startswith(("sk_", "rk_")):
        raise SystemExit("OBEYA_STRIPE_SECRET_KEY must be set to a Stripe secret key (sk_... or rk_...) "
                         "when OBEYA_BILLING=stripe")
    webhook_secret = env.get("OBEYA_STRIPE_WEBHOOK_SECRET", "").strip()
    if not webhook_secret.startswith("whsec_"):
        raise SystemExit("OBEYA_STRIPE_WEBHOOK_SECRET must be set to the webhook endpoint's signing secret "
                         "(whsec_...) when OBEYA_BILLING=stripe")
    api_base = env.get("OBEYA_STRIPE_API_BASE", "").strip() or None
    if api_base is not None and not api_base.startswith(("https://", "http://")):
        raise SystemExit(f"OBEYA_STRIPE_API_BASE must be an http(s) URL, not {api_base!r}")
    return StripeSettings(secret_key=secret_key, webhook_secret=webhook_secret,
                          prices=_stripe_prices(env.get("OBEYA_STRIPE_PRICES", "")), api_base=api_base)


def _stripe_prices(text: str) -> dict[str, dict[str, str]]:
    shape = ('a JSON object of plan -> price id (monthly) or {"monthly": price id, "annual": price id}, for '
             'example {"starter": {"monthly": "price_123", "annual": "price_456"}, "business": "price_789"}')
    try:
        value = json.loads(text)
    except ValueError:
        raise SystemExit(f"OBEYA_STRIPE_PRICES must be {shape}") from None
    if not isinstance(value, dict) or not value:
        raise SystemExit(f"OBEYA_STRIPE_PRICES must be {shape}")
    prices: dict[str, dict[str, str]] = {}
    seen: set[str] = set()
    for plan_name, given in value.items():
        per_interval = {"monthly": given} if isinstance(given, str) else given  # OBEYA_STRIPE_PRICES' plan -> price id
        if plan_name not in STRIPE_PLANS:
            raise SystemExit(f"OBEYA_STRIPE_PRICES: {plan_name!r} is not a plan that can be bought "
                             f"({', '.join(STRIPE_PLANS)})")
        if not isinstance(per_interval, dict) or not per_interval:
            raise SystemExit(f"OBEYA_STRIPE_PRICES: {plan_name} must map intervals to price ids, {shape}")
        for interval, price in per_interval.items():
            if interval not in STRIPE_INTERVALS:
                raise SystemExit(f"OBEYA_STRIPE_PRICES: {plan_name}.{interval} is not an interval "
                                 f"(monthly or annual)")
            if not isinstance(price, str) or not price.strip() or price in seen:
                raise SystemExit(f"OBEYA_STRIPE_PRICES: {plan_name}.{interval} must be a price id used once")
            seen.add(price)
        prices[plan_name] = dict(per_interval)
    return prices


def _secret_key(env: Mapping[str, str]) -> str | None:
    value = env.get("OBEYA_SECRET_KEY", "")
    if not value:
        return None
    if len(value) < MIN_SECRET_KEY_LENGTH:  # the value itself is never repeated in the message
        raise SystemExit(f"OBEYA_SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters, "
                         f"not {len(value)}")
    return value


def _metrics_token(env: Mapping[str, str]) -> str | None:
    value = env.get("OBEYA_METRICS_TOKEN", "").strip()
    if not value:
        return None
    if len(value) < MIN_METRICS_TOKEN_LENGTH:  # the value itself is never repeated in the message
        raise SystemExit(f"OBEYA_METRICS_TOKEN must be at least {MIN_METRICS_TOKEN_LENGTH} characters, "
                         f"not {len(value)}")
    return value


def _integer(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {text!r}") from None
    if not low <= value <= high:
        raise SystemExit(f"{name} must be between {low} and {high}, not {value}")
    return value


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(f"{name} must be a number of seconds, not {text!r}") from None
    # An hour is longer than any wait of ours may last; 0 or less would fail every wait at once.
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise SystemExit(f"{name} must be more than 0 and at most 3600 seconds, not {text}")
    return value


def _flag(env: Mapping[str, str], name: str, *, default: bool = False) -> bool:
    text = env.get(name, "").strip()
    if text not in ("", "0", "1"):
        raise SystemExit(f"{name} must be 0 or 1, not {text!r}")
    return default if text == "" else text == "1"
