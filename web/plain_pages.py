"""The plain HTML pages the server renders itself (approval-token decisions, invitations, the sandbox billing
processor's checkout and portal, the OAuth sign-in and consent): forms that work without JavaScript, readable on a
phone, under a policy that loads nothing, allows only the frame's own style sheet (by its hash) and posts only to
their own origin, and to the origins their forms' answers redirect to (browsers check a form's redirects against
`form-action` too)."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from urllib.parse import urlsplit

from aiohttp import web

STYLE = ("body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:0 auto;padding:1rem;color:#1b1b1b}"
         "h1{font-size:1.4rem;line-height:1.25}h2{font-size:1.1rem;margin-top:1.5rem}"
         "dl{display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.3rem 1rem}"
         "dt{font-weight:600;color:#555}dd{margin:0;overflow-wrap:anywhere;white-space:pre-wrap}"
         "fieldset{border:1px solid #bbb;border-radius:.5rem;margin:1rem 0}"
         "label.choice{display:block;padding:.4rem 0;font-size:1.1rem}"
         "textarea,input[type=email],input[type=password],input[type=text]{display:block;width:100%;"
         "box-sizing:border-box;font:inherit;padding:.4rem}"
         "button,a.button{font:inherit;padding:.7rem 1.4rem;border:0;border-radius:.5rem;background:#1f5fbf;color:#fff}"
         "a.button{display:inline-block;font-weight:600;text-decoration:none;min-height:44px;box-sizing:border-box}"
         "a.button:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}"
         "pre{white-space:pre-wrap;overflow-wrap:anywhere}summary{cursor:pointer;padding:.5rem 0}"
         "@media (max-width:30rem){dl{grid-template-columns:1fr}dd{margin-bottom:.4rem}}")
_STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
POLICY = ("default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
          f"style-src 'sha256-{_STYLE_HASH}'")


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
    text = ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>")
    return web.Response(text=text, status=status, content_type="text/html",
                        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                 "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                                 "Content-Security-Policy": policy})
