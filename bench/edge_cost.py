"""CPU per request of the edge alone (run by hand; prints figures, asserts nothing): the app of `obeya serve`
(create_app, logging configured as `obeya serve` does, to /dev/null) with one more route, `GET /api/noop`, a
handler answering constant JSON; prebuilt requests with an API key (warm caches) handed to the app's own
request handling (`Application._handle`: routing, the middleware, the handler), no socket and no client.

    .venv/bin/python bench/edge_cost.py [--requests 4000] [--repetitions 7]

What it prints is the process's CPU time per request, median and min of the repetitions: everything the edge
does (request id, log context and access line, identity, rate limit, headers, metrics) plus aiohttp's routing
and a Response. To compare two versions of the code, run both in the same minutes (PYTHONPATH=<other tree>).
See bench/README.md."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestServer, make_mocked_request

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._setup import create_org, new_keys, sign_in  # noqa: E402
from bench._support import fresh_database  # noqa: E402
from server.app import create_app  # noqa: E402
from server.config import Settings  # noqa: E402
from server.logging_setup import configure_logging  # noqa: E402


async def noop(request: web.Request) -> web.Response:
    return web.Response(body=b'{"ok":true}', content_type="application/json")


async def run(args: argparse.Namespace) -> None:
    async with fresh_database(args.database_url) as url:
        env = {**os.environ, "OBEYA_DATABASE_URL": url, "OBEYA_BCRYPT_ROUNDS": "4"}
        env.pop("OBEYA_REDIS_URL", None)
        slug, email = create_org(env)
        app = create_app(Settings.from_env(env), url)
        app.router.add_get("/api/noop", noop)
        server = TestServer(app, host="127.0.0.1")
        await server.start_server()
        try:
            base_url = str(server.make_url("")).rstrip("/")
            fixture = await sign_in(base_url, slug, email)
            keys = await new_keys([base_url], fixture, 8)
            configure_logging()
            real_stderr, sys.stderr = sys.stderr, open(os.devnull, "w")
            per_request = []
            try:
                for _ in range(args.repetitions):
                    requests = [make_mocked_request("GET", "/api/noop", app=app, headers={
                        "Host": fixture.host, "Authorization": f"Bearer {keys[i % len(keys)]}"})
                        for i in range(args.requests)]
                    began = time.process_time()
                    for request in requests:
                        response = await app._handle(request)
                    per_request.append((time.process_time() - began) / args.requests * 1e6)
                    if response.status != 200:
                        raise RuntimeError(f"the noop route answered {response.status}")
            finally:
                sys.stderr.close()
                sys.stderr = real_stderr
            print(f"GET /api/noop through the edge: median {statistics.median(per_request):.1f} us, "
                  f"min {min(per_request):.1f} us CPU per request ({args.repetitions} x {args.requests})")
        finally:
            await server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("OBEYA_BENCH_DATABASE_URL",
                                                                 "postgresql://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--repetitions", type=int, default=7)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
