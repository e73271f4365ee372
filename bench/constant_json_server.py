"""The benchmark's baseline: a bare aiohttp app answering constant JSON, with no middleware at all.

`python bench/constant_json_server.py --port N` serves `GET /healthz` on 127.0.0.1 until interrupted."""

from __future__ import annotations

import argparse

from aiohttp import web

BODY = b'{"status":"ok"}'


async def constant(request: web.Request) -> web.Response:
    return web.Response(body=BODY, content_type="application/json")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    app = web.Application()
    app.router.add_get("/healthz", constant)
    web.run_app(app, host="127.0.0.1", port=parser.parse_args().port, access_log=None, print=None)


if __name__ == "__main__":
    main()
