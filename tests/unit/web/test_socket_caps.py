"""The live connection caps' defaults (web/socket_limits.py) are sized for a site: a plant's tablets and
screens behind one NAT address, and a screen wall or a benchmark under one account (issue 22). The caps are
built as server/app.py builds the gateway's, from the settings of an environment that sets none."""

from __future__ import annotations

import pytest

from protocol.errors import TooManyRequests
from server.config import Settings
from web.socket_limits import SocketLimits


def _default_caps() -> SocketLimits:
    settings = Settings.from_env({})
    return SocketLimits(settings.socket_max_per_user, settings.socket_max_per_address)


def test_one_address_holds_two_thousand_connections() -> None:
    limits = _default_caps()
    for _ in range(2000):
        limits.open_address("203.0.113.7")
    with pytest.raises(TooManyRequests) as refused:
        limits.open_address("203.0.113.7")
    assert refused.value.data == {"limit": 2000}
    limits.open_address("198.51.100.1")  # another address is not affected
    limits.close_address("203.0.113.7")
    limits.open_address("203.0.113.7")  # a closed connection frees its place


def test_one_user_holds_five_hundred_connections() -> None:
    limits = _default_caps()
    for _ in range(500):
        limits.open_user("usr_wall", "business", now=0.0)
    with pytest.raises(TooManyRequests) as refused:
        limits.open_user("usr_wall", "business", now=0.0)
    assert refused.value.data == {"limit": 500}
