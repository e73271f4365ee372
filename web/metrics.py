"""`GET /metrics` in the Prometheus text format, and the node's metrics behind it.

One `CollectorRegistry` per application (never prometheus_client's global one): two nodes in one test process
share nothing. Requests are observed by the edge (web/edge.py) by procedure (or route) and status;
the actor runtime reports each turn's size and commit time, the live gateway each fan-out's duration, the
Redis listeners each resubscription; gauges (active actors, mailbox depth, pool use, delivery backlog) are
read from the node when a scrape arrives.

The endpoint answers on any host but an organization's (`<slug>.<service host>` is 404): Prometheus scrapes a
pod by its address. In production it needs `Authorization: Bearer $OBEYA_METRICS_TOKEN`; without a token
configured there it does not exist (404), so a forgotten token never exposes it.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

import structlog
from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest

from actors.kernel.node import Node
from web.context import host_name, org_slug
from web.keys import NODE

log = structlog.get_logger("obeya.metrics")

# Seconds: a read is a few milliseconds, an actor write a group commit, 10 s the ask timeout.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Messages per turn: 1 when idle, up to RuntimeSettings.max_batch (256) under a burst.
TURN_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# How long the backlog counts may take before a scrape answers without them.
BACKLOG_TIMEOUT_SECONDS = 2.0
# Statuses that ask the client to come back later.
REFUSALS = frozenset({429, 503})


@dataclass(frozen=True)
class MetricsSettings:
    production: bool
    token: str | None


class Metrics:
    def __init__(self, settings: MetricsSettings) -> None:
        self.settings = settings
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Histogram("obeya_request_duration_seconds",
                                  "HTTP requests by procedure (or route) and status, and how long they took",
                                  ["procedure", "status"], buckets=LATENCY_BUCKETS, registry=r)
        self._request_series: dict[tuple[str, int], Histogram] = {}
        self.refusals = Counter("obeya_refusals", "Responses asking the client to come back (429, 503)",
                                ["status", "procedure"], registry=r)
        self.turn_size = Histogram("obeya_actor_turn_messages", "Messages handled in one actor turn",
                                   buckets=TURN_BUCKETS, registry=r)
        self.commit = Histogram("obeya_actor_commit_seconds", "Time an actor turn's commit took",
                                buckets=LATENCY_BUCKETS, registry=r)
        self.fanout = Histogram("obeya_fanout_seconds",
                                "Time to deliver one committed batch of events to this node's live sockets",
                                buckets=LATENCY_BUCKETS, registry=r)
        self.forwarded = Histogram("obeya_forwarded_seconds",
                                   "Asks and queries forwarded to the node that owns the actor, by outcome",
                                   ["op", "outcome"], buckets=LATENCY_BUCKETS, registry=r)
        self.resubscribed = Counter("obeya_redis_resubscribed",
                                    "Redis subscriptions lost (Redis restarted or unreachable) and taken again",
                                    ["channel"], registry=r)
        self.active_actors = Gauge("obeya_active_actors", "Actors active on this node", registry=r)
        self.mailbox_messages = Gauge("obeya_mailbox_messages", "Messages queued in all actor mailboxes",
                                      registry=r)
        self.mailbox_max = Gauge("obeya_mailbox_depth_max", "The deepest actor mailbox on this node", registry=r)
        self.pool = Gauge("obeya_db_pool_connections", "Database connections of this node's pool",
                          ["state"], registry=r)
        self.pool_max = Gauge("obeya_db_pool_max_connections", "Most connections the pool may open", registry=r)
        self.backlog = Gauge("obeya_delivery_backlog", "Deliveries waiting to be sent (webhook, mail)",
                             ["kind"], registry=r)

    def observe_request(self, procedure: str, status: int, seconds: float) -> None:
        # `labels` validates and locks on every call; a request should cost a dict lookup (routes and
        # statuses are few, so the series are too).
        series = self._request_series.get((procedure, status))
        if series is None:
            series = self._request_series[procedure, status] = self.requests.labels(procedure, str(status))
        series.observe(seconds)
        if status in REFUSALS:
            self.refusals.labels(str(status), procedure).inc()

    def observe_turn(self, messages: int, commit_seconds: float | None) -> None:
        self.turn_size.observe(messages)
        if commit_seconds is not None:
            self.commit.observe(commit_seconds)

    def observe_forward(self, op: str, outcome: str, seconds: float) -> None:
        self.forwarded.labels(op, outcome).observe(seconds)

    def observe_fanout(self, seconds: float) -> None:
        self.fanout.observe(seconds)

    def observe_resubscribed(self, channel: str) -> None:
        self.resubscribed.labels(channel).inc()

    async def refresh(self, node: Node) -> None:
        """Read the gauges from the node (a scrape is about to be answered)."""
        depths = node.actors.mailbox_depths()
        self.active_actors.set(len(depths))
        self.mailbox_messages.set(sum(depths))
        self.mailbox_max.set(max(depths, default=0))
        pool = node.pool
        size, idle = pool.get_size(), pool.get_idle_size()
        self.pool.labels("in_use").set(size - idle)
        self.pool.labels("idle").set(idle)
        self.pool_max.set(pool.get_max_size())
        try:
            webhooks, mail = await node.delivery_backlog(BACKLOG_TIMEOUT_SECONDS)
        except Exception as error:  # the database is away: answer with what this node knows
            log.warning("metrics_backlog_unavailable", error=type(error).__name__)
            return
        self.backlog.labels("webhook").set(webhooks)
        self.backlog.labels("mail").set(mail)

    def authorized(self, request: web.Request) -> bool:
        if not self.settings.production:
            return True
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        expected = self.settings.token or ""
        return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), expected.encode())


METRICS = web.AppKey("metrics", Metrics)


def route_label(request: web.Request, procedure: str | None) -> str:
    """The `procedure` label: the procedure called, else the route's pattern (never the raw path: ids would
    make one series per resource), else `unmatched`."""
    if procedure is not None:
        return procedure
    resource = request.match_info.route.resource if request.match_info.route is not None else None
    return resource.canonical if resource is not None else "unmatched"


def observe(request: web.Request, procedure: str | None, status: int, seconds: float) -> None:
    """Count a finished request that took `seconds` (called by web/edge.py); a refusal is also logged as a
    warning."""
    metrics = request.app.get(METRICS)
    label = route_label(request, procedure)
    if metrics is not None:
        metrics.observe_request(label, status, seconds)
    if status in REFUSALS:
        log.warning("request_refused", status=status, method=request.method, path=request.path, procedure=label)


async def metrics_endpoint(request: web.Request) -> web.Response:
    node = request.app[NODE]
    metrics = request.app.get(METRICS)
    if metrics is None or org_slug(host_name(request), node.settings.service_host) is not None:
        raise web.HTTPNotFound()
    if metrics.settings.production and not metrics.settings.token:
        raise web.HTTPNotFound()
    if not metrics.authorized(request):
        raise web.HTTPUnauthorized(headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    await metrics.refresh(node)
    response = web.Response(body=generate_latest(metrics.registry))
    # The 0.0.4 text format: what Prometheus 2 and 3 and every other scraper read.
    response.headers["Content-Type"] = CONTENT_TYPE_PLAIN_0_0_4
    response.headers["Cache-Control"] = "no-store"
    return response
