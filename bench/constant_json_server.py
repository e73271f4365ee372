"""The benchmark's baseline: a bare aiohttp app answering constant JSON, with no middleware at all.

`python bench/constant_json_server.py --port N` serves `GET /healthz` on 127.0.0.1 until interrupted, on the
event loop `obeya serve` would pick with the same `OBEYA_EVENT_LOOP` (server/event_loop.py), so that a
comparison runs both servers on the same loop."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.event_loop import event_loop_from, new_event_loop  # noqa: E402

BODY = b'{"status":"ok"}'


async def constant(request: web.Request) -> web.Response:
    return web.Response(body=BODY, content_type="application/json")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    app = web.Application()
    app.router.add_get("/healthz", constant)
    loop = new_event_loop(event_loop_from(os.environ))
    web.run_app(app, host="127.0.0.1", port=parser.parse_args().port, access_log=None, print=None, loop=loop)


if __name__ == "__main__":
    main()
