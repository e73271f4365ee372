"""The HTTP client session for requests this server makes to others: webhook deliveries, automations'
`call_webhook` (and approval flows' action nodes, which run it), and single sign-on's calls to identity
providers. It gives up after the node's timeout, and its connector refuses the addresses the outbound policy
refuses (actors/delivery/addresses.py)."""

from __future__ import annotations

import aiohttp

from actors.delivery.addresses import outbound_connector
from actors.kernel.node import Node


def open_session(node: Node) -> aiohttp.ClientSession:
    connector = outbound_connector(node.settings.allow_private_targets)
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=node.settings.http_timeout), connector=connector)
