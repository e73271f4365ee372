"""The `obeya` command: serve, migrate, org create, user create, demo."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import gc
import json
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import structlog
from aiohttp import web
from redis.exceptions import RedisError

from actors.kernel.node import Node
from protocol.errors import ApiError
from server import stall_probe
from server.config import DEFAULT_HOST, DEFAULT_PORT, Settings
from server.embedded_db import embedded_postgres
from server.event_loop import new_event_loop
from server.logging_setup import configure_logging
from storage.migrate import apply_migrations
from storage.pool import create_pool

log = structlog.get_logger("obeya.server")


def where_data_is(settings: Settings) -> str:
    """`data in <dir> (embedded PostgreSQL)`, or `database: <url>` without its password and parameters."""
    if not settings.database_url:
        return f"data in {settings.data_dir} (embedded PostgreSQL)"
    try:
        parts = urlsplit(settings.database_url)
        host = f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname
    except ValueError:
        return "database: OBEYA_DATABASE_URL"
    if not parts.scheme or not host:  # a key=value DSN may hold a password anywhere
        return "database: OBEYA_DATABASE_URL"
    user = f"{parts.username}@" if parts.username else ""
    return f"database: {parts.scheme}://{user}{host}{parts.path}"


@contextlib.contextmanager
def database(settings: Settings, *, announce: bool = True) -> Iterator[str]:
    """The configured database, or the embedded one under the data directory; `announce` says on standard
    error which one (`obeya serve` says it in its listening line instead)."""
    if announce:
        print(f"Obeya {where_data_is(settings)}", file=sys.stderr)
    if settings.database_url:
        yield settings.database_url
    else:
        with embedded_postgres(settings.data_dir) as url:
            yield url


# Young-generation threshold: CPython's default (700 allocations) runs a collection every few requests;
# request handling allocates mostly short-lived, acyclic objects, so collect ten times less often.
GC_YOUNG_THRESHOLD = 7000
# The bench's stall probe (server/stall_probe.py), when OBEYA_STALL_LOG asks for it.
STALL_PROBE = web.AppKey("stall_probe", asyncio.Task)


async def _settle_garbage_collector(app: web.Application) -> None:
    """Once started: everything alive now (routes, pool, caches) lives as long as the process, so keep it out
    of every collection (gc.freeze), and collect the young generation less often. A full collection of the
    start-up heap stalls whatever runs at that moment, a broadcast to a tier-meeting screen for instance."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)
    probe = stall_probe.start(os.environ)
    if probe is not None:
        app[STALL_PROBE] = probe


def _port_in_use(host: str, port: int) -> bool:
    """Whether another process listens on `port` of an address `host` names (bound as aiohttp binds it)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return False  # the server's own bind then says what is wrong with the host
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return True
    return False


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from server.app import create_app, runner_options

    # Checked before the database starts, so that the answer is this one line; the bind itself can still lose
    # a race to another process, which ends the same way.
    in_use = f"port {args.port} on {args.host} is already in use: stop the other server or pass --port"
    if _port_in_use(args.host, args.port):
        print(in_use, file=sys.stderr)
        return 1
    settings = replace(settings, public_url=settings.public_url_for(args.host, args.port))
    where = where_data_is(settings)

    def listening(_: str) -> None:
        """Called by run_app once every socket accepts connections (in place of its own banner)."""
        log.info("listening", host=args.host, port=args.port, public_url=str(settings.public_url), data=where)
        print(f"Obeya listening on {settings.public_url} — {where}", flush=True)

    try:
        with database(settings, announce=False) as url:
            app = create_app(settings, url)
            app.on_startup.append(_settle_garbage_collector)
            web.run_app(app, host=args.host, port=args.port, print=listening,
                        loop=new_event_loop(settings.event_loop), **runner_options(settings))
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise
        print(in_use, file=sys.stderr)
        return 1
    except RedisError as error:
        # At start only: once running, a node rides out Redis going away (docs/operations.md). An orchestrator
        # restarts it; the line says what to fix.
        print(f"Redis did not answer at start ({error}): start it, or check OBEYA_REDIS_URL", file=sys.stderr)
        return 1
    return 0


def _node(pool: asyncpg.Pool, settings: Settings) -> Node:
    """The node of a one-shot command: its links name the running server (OBEYA_PUBLIC_URL, or `obeya serve`'s
    default port)."""
    from server.node_services import build_node

    return build_node(pool, settings.node_settings())


async def _with_env(url: str, settings: Settings, work: Callable[[Node], Awaitable[Any]]) -> Any:
    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        async with pool.acquire() as conn:
            await apply_migrations(conn)
        node = _node(pool, settings)
        async with node.actors:  # stopped before the pool closes, like a server's
            return await work(node)
    finally:
        await pool.close()


def _migrate(args: argparse.Namespace, settings: Settings) -> int:
    async def run(url: str) -> list[str]:
        pool = await create_pool(url, min_size=1, max_size=1)
        try:
            async with pool.acquire() as conn:
                return await apply_migrations(conn)
        finally:
            await pool.close()

    with database(settings) as url:
        applied = asyncio.run(run(url))
    print(json.dumps({"applied": applied}))
    return 0


def _org_create(args: argparse.Namespace, settings: Settings) -> int:
    from actors.identity.accounts import check_password, create_organization

    check_password(args.owner_password, "--owner-password")  # named as typed, before a database starts

    async def work(node: Node) -> tuple[str, str, str]:
        org_id, user_id = await create_organization(node, slug=args.slug, name=args.name,
                                                    owner_email=args.owner_email,
                                                    owner_password=args.owner_password, plan=args.plan)
        return org_id, user_id, node.base_url(args.slug)

    with database(settings) as url:
        org_id, user_id, base_url = asyncio.run(_with_env(url, settings, work))
    print(json.dumps({"organizationId": org_id, "userId": user_id, "url": base_url}))
    return 0


def _user_create(args: argparse.Namespace, settings: Settings) -> int:
    from actors.identity.accounts import check_password, create_user

    check_password(args.password, "--password")

    async def work(node: Node) -> str:
        return await create_user(node, org_slug=args.org, email=args.email, password=args.password,
                                 name=args.name, role=args.role)

    with database(settings) as url:
        user_id = asyncio.run(_with_env(url, settings, work))
    print(json.dumps({"userId": user_id}))
    return 0


def _demo(args: argparse.Namespace, settings: Settings) -> int:
    from server.demo import run_demo

    settings = replace(settings, public_url=settings.public_url_for(port=args.port))
    with database(settings) as url:
        return run_demo(settings, url, slug=args.slug, password=args.password)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="obeya", description="Obeya server")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the server")
    serve.add_argument("--host", default=DEFAULT_HOST)
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.set_defaults(run=_serve)

    commands.add_parser("migrate", help="apply pending migrations and exit").set_defaults(run=_migrate)

    org = commands.add_parser("org", help="organizations").add_subparsers(dest="org_command", required=True)
    org_create = org.add_parser("create", help="create an organization and its owner")
    org_create.add_argument("--slug", required=True)
    org_create.add_argument("--name", required=True)
    org_create.add_argument("--owner-email", required=True)
    org_create.add_argument("--owner-password", required=True)
    org_create.add_argument("--plan", default="free", choices=["free", "starter", "business", "enterprise"])
    org_create.set_defaults(run=_org_create)

    user = commands.add_parser("user", help="users").add_subparsers(dest="user_command", required=True)
    user_create = user.add_parser("create", help="create a user in an organization")
    user_create.add_argument("--org", required=True)
    user_create.add_argument("--email", required=True)
    user_create.add_argument("--password", required=True)
    user_create.add_argument("--name", required=True)
    user_create.add_argument("--role", default="member", choices=["admin", "member", "guest"])
    user_create.set_defaults(run=_user_create)

    demo = commands.add_parser("demo", help="create a demo organization with boards, items and people")
    demo.add_argument("--slug", default="demo")
    demo.add_argument("--password", help="password of every demo user (default: generated and printed)")
    demo.add_argument("--port", type=int, default=DEFAULT_PORT,
                      help="the port `obeya serve` listens on, for the printed links (OBEYA_PUBLIC_URL wins)")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = Settings.from_env()
    configure_logging(node_id=settings.node_id if settings.redis_url is not None else None)
    try:
        return int(args.run(args, settings))
    except ApiError as error:
        print(json.dumps({"error": {"code": error.code, "message": error.message}}), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
