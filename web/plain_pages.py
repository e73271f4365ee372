"""The plain HTML pages the server renders itself (approval-token decisions, the sandbox billing processor's
checkout and portal, the OAuth sign-in and consent): forms that work without JavaScript, under a policy that loads
nothing and posts only to their own origin, and to the origins their forms' answers redirect to (browsers check a
form's redirects against `form-action` too)."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from aiohttp import web

POLICY = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"


# A host that can stand in a policy as it is: a name or an IPv4 address, or an IPv6 one (bracketed there).
_PLAIN_HOST = re.compile(r"^[a-z0-9.-]+$")
_IPV6 = re.compile(r"^[0-9a-f:.]+$")


def origin_of(url: str) -> str | None:
    """The http(s) origin of `url` as a policy source, or None when it has none that can be written there."""
    try:
        parts = urlsplit(url)
        port, host = parts.port, parts.hostname or ""
    except ValueError:
        return None
    if _IPV6.match(host) and ":" in host:
        host = f"[{host}]"
    elif not _PLAIN_HOST.match(host):
        return None
    if parts.scheme not in ("http", "https"):
        return None
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def plain_page(title: str, body: str, status: int = 200, redirects_to: tuple[str, ...] = ()) -> web.Response:
    """A page titled `title` (escaped here) around `body` (HTML the caller escaped), whose forms' answers may
    redirect to the URLs `redirects_to`."""
    origins = sorted({origin for origin in map(origin_of, redirects_to) if origin is not None})
    policy = POLICY.replace("form-action 'self'", " ".join(["form-action 'self'", *origins]))
    text = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>")
    return web.Response(text=text, status=status, content_type="text/html",
                        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                 "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                                 "Content-Security-Policy": policy})
