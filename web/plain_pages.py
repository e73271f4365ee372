"""The plain HTML pages the server renders itself (approval-token decisions, the sandbox billing processor's
checkout and portal): forms that work without JavaScript, under a policy that loads nothing and posts only to
their own origin."""

from __future__ import annotations

import html

from aiohttp import web

POLICY = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"


def plain_page(title: str, body: str, status: int = 200) -> web.Response:
    """A page titled `title` (escaped here) around `body` (HTML the caller escaped)."""
    text = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>")
    return web.Response(text=text, status=status, content_type="text/html",
                        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                 "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                                 "Content-Security-Policy": POLICY})
