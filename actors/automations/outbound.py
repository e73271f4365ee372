"""The two automation actions that leave the server: `send_email` through the one mailer's
outbox, and `call_webhook` as an HTTP request. Each raises OutboundFailed with a message for the execution
record when it cannot be done.

`call_webhook` follows the outbound-webhook rules: http(s) only, HTTPS only in production, public
addresses only unless OBEYA_ALLOW_PRIVATE_TARGETS=1 (checked when the rule is saved, again for the final
URL, and at connect time by the session's connector, actors/delivery/addresses.py); a 2xx within 10 s
succeeds, redirects are not followed. Its body is the config's `body` (a text is sent as is, anything else
as JSON) or, without one, a JSON summary of the run."""

from __future__ import annotations

import re
from typing import Any

import aiohttp
import msgspec

from actors.delivery.webhooks import check_url
from actors.kernel.mailer import queue_mail
from actors.kernel.node import Node
from protocol.errors import ValidationFailed

METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})
MAX_RECIPIENTS = 50
_EMAIL = re.compile(r"^[^@\s,;]+@[^@\s,;]+\.[^@\s,;]+$")


class OutboundFailed(Exception):
    """The e-mail or request could not be made; the message says why."""


def recipients(to: Any) -> list[str]:
    """`to` as a list of addresses: one address, several separated by commas, or a list of them."""
    entries = to if isinstance(to, list) else [to]
    if not all(isinstance(entry, str) for entry in entries):
        raise OutboundFailed("to must be an e-mail address or a list of them")
    addresses = [part.strip() for entry in entries for part in entry.split(",") if part.strip()]
    if not addresses:
        raise OutboundFailed("to names no address")
    if len(addresses) > MAX_RECIPIENTS:
        raise OutboundFailed(f"to names more than {MAX_RECIPIENTS} addresses")
    wrong = [address for address in addresses if not _EMAIL.match(address)]
    if wrong:
        raise OutboundFailed(f"not an e-mail address: {wrong[0]}")
    return list(dict.fromkeys(addresses))


async def send_email(node: Node, org_id: str, to: Any, subject: Any, body: Any) -> list[str]:
    """Queue one e-mail per recipient in one transaction; the ids of the stored e-mails."""
    addresses = recipients(to)
    for name, text in (("subject", subject), ("body", body)):
        if not isinstance(text, str):  # the rule's config is any JSON
            raise OutboundFailed(f"{name} must be a text")
    # A subject is one header line: a line break (an item name may hold one) would inject headers, and the
    # mailer's EmailMessage refuses it.
    subject = " ".join(subject.splitlines())[:998]
    async with node.pool.acquire() as conn, conn.transaction():
        return [await queue_mail(conn, org_id=org_id, kind="automation", to=address, subject=subject,
                                 body=body, smtp_configured=node.settings.smtp is not None) for address in addresses]


async def call_webhook(node: Node, session: aiohttp.ClientSession, *, url: str, method: str,
                       headers: dict[str, str], body: Any) -> int:
    """Make the request; its status code when 2xx."""
    if method not in METHODS:
        raise OutboundFailed(f"method must be one of {', '.join(sorted(METHODS))}")
    try:
        await check_url(node, url)
    except ValidationFailed as error:
        raise OutboundFailed(error.message) from None
    sent_headers = dict(headers)
    if isinstance(body, str):
        data = body.encode()
    else:
        data = msgspec.json.encode(body)
        sent_headers.setdefault("Content-Type", "application/json")
    try:
        async with session.request(method, url, data=None if method == "GET" else data, headers=sent_headers,
                                   allow_redirects=False) as reply:
            status = reply.status
    except TimeoutError:
        raise OutboundFailed(f"no answer within {node.settings.http_timeout:g} s") from None
    except (aiohttp.ClientError, OSError, ValueError) as error:  # ValueError: a header aiohttp refuses to send
        raise OutboundFailed(f"request failed: {error}") from None
    if not 200 <= status < 300:
        raise OutboundFailed(f"the receiver answered {status}")
    return status
