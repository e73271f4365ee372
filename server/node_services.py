"""How a node is built, with the domains' services it carries (actors/kernel/plugins.py) listed once.

The kernel imports no domain, so it cannot make these itself: the server plugs them in here. `obeya serve`
(server/app.py), the one-shot commands (server/cli.py) and the tests all build their nodes with `build_node`,
so none repeats the list and none gets a node without a service a handler may ask for.
"""

from __future__ import annotations

import asyncpg

from actors.files.postgres_store import PostgresFileStore
from actors.files.store import FILE_STORE
from actors.forms.otp_queue import OTP_REQUESTS, OtpQueue
from actors.identity.sso_provider import SSO_PROVIDER_SECONDS, SSO_PROVIDERS
from actors.kernel.node import Node
from actors.kernel.settings import NodeSettings
from actors.kernel.ttl_cache import TtlCache
from actors.runtime.clock import Clock
from actors.runtime.directory import Directory
from actors.runtime.system import ActorSystem, RuntimeSettings
from actors.tenancy.billing_processors import PAYMENT_PROCESSOR, Processor, SandboxProcessor


def build_node(pool: asyncpg.Pool, settings: NodeSettings | None = None, *, clock: Clock | None = None,
               processor: Processor | None = None, runtime: RuntimeSettings | None = None,
               directory: Directory | None = None) -> Node:
    """A node on `pool` with `settings` (a development node's when None), its actor system (not started: whoever
    runs it starts and stops it) and every domain service. Start-up passes what it built from the environment:
    the payment processor (the sandbox when None; server/app.py billing_processor), the actor runtime's limits
    and, on a node of a cluster, the Redis actor directory (server/cluster.py)."""
    settings = settings or NodeSettings()
    actors = ActorSystem(pool, clock=clock, directory=directory, settings=runtime, secret_key=settings.secret_key)
    node = Node(settings=settings, actors=actors)
    plugins = node.plugins
    # Where the bytes of uploaded files live: PostgreSQL; an object-store adapter would be chosen here.
    plugins.plug(FILE_STORE, PostgresFileStore(pool))
    plugins.plug(OTP_REQUESTS, OtpQueue())
    plugins.plug(PAYMENT_PROCESSOR, processor or SandboxProcessor())
    plugins.plug(SSO_PROVIDERS, TtlCache(SSO_PROVIDER_SECONDS, node.clock))
    return node
