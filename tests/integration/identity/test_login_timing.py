"""Login time does not tell whether an e-mail is registered: an unknown e-mail (and a non-member) costs one
bcrypt check of the real cost, as a wrong password for a known account does."""

from __future__ import annotations

import secrets
import statistics
import time
from typing import Any

import pytest

from actors.identity import accounts
from actors.identity.passwords import verify_secret
from protocol.auth import LoginInput
from protocol.errors import Unauthorized
from tests.harness import PASSWORD, Org, make_org
from web.keys import NODE

SAMPLES = 7


async def _timed_login(org: Org, email: str, password: str) -> float:
    started = time.perf_counter()
    reply = await org.anonymous.rest("POST", "/api/v1/auth/login", {"email": email, "password": password})
    elapsed = time.perf_counter() - started
    assert reply.status == 401
    return elapsed


@pytest.mark.bcrypt_rounds(10)
async def test_unknown_e_mails_take_as_long_as_wrong_passwords(client: Any) -> None:
    org = await make_org(client)
    outsider = await make_org(client)  # a registered user who is not a member of `org`
    known, unknown, non_member = [], [], []
    for sample in range(SAMPLES):  # interleaved, so a slow moment of a shared machine hits each kind alike
        if sample % 4 == 0:  # a right password forgets the failures: the account throttle never answers 429
            for each in (org, outsider):
                reply = await each.anonymous.rest("POST", "/api/v1/auth/login",
                                                  {"email": each.owner_email, "password": PASSWORD})
                assert reply.status == 200
        known.append(await _timed_login(org, org.owner_email, "wrong password"))
        unknown.append(await _timed_login(org, f"nobody-{secrets.token_hex(4)}@example.test", "wrong password"))
        non_member.append(await _timed_login(org, outsider.owner_email, PASSWORD))
    # At cost 10 a bcrypt check takes tens of milliseconds: skipping it for unknown e-mails showed as a ratio
    # near 0.3. Medians of interleaved samples, compared as ratios, stay near 1 on a noisy 2-core machine.
    for kind in (unknown, non_member):
        ratio = statistics.median(kind) / statistics.median(known)
        assert 0.6 <= ratio <= 1.6, (ratio, kind, known)


async def test_an_unknown_e_mail_is_checked_against_a_hash_of_the_real_cost(
        client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    node = client.server.app[NODE]
    checked: list[str] = []

    async def spy(secret: str, hashed: str) -> bool:
        checked.append(hashed)
        return await verify_secret(secret, hashed)

    monkeypatch.setattr(accounts, "verify_secret", spy)
    with pytest.raises(Unauthorized):
        await accounts.login(node, None, LoginInput(email=f"nobody-{secrets.token_hex(4)}@example.test",
                                                    password="anything at all"))
    assert len(checked) == 1 and checked[0].startswith(f"$2b${node.settings.bcrypt_rounds:02d}$")
