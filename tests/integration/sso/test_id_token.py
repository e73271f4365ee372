"""The ID-token checks, fed real tokens from a real OpenID provider: a sign-in is started on the server (which
records its nonce and PKCE verifier), the test signs in at the provider and exchanges the code itself, then hands
the provider's ID token, as issued or altered, to the server's validation."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from actors.identity import sso_provider
from actors.identity.sso import state_digest
from actors.identity.sso_provider import SSO_PROVIDERS
from actors.kernel.node import Node
from actors.kernel.settings import NodeSettings
from protocol.errors import ServiceUnavailable, Unauthorized
from server.node_services import build_node
from tests.clients import oidc_provider
from tests.clients.node_packages import NPM_TIMEOUT_S
from tests.harness import make_org
from tests.integration.sso.flow import callback_uri, configure, new_email, sign_in_at_provider, start
from web.keys import NODE

pytestmark = pytest.mark.timeout(NPM_TIMEOUT_S + 60)


@dataclass
class Issued:
    node: Node
    provider: oidc_provider.OidcProvider
    token: str
    nonce: str


@pytest.fixture
async def issued(clocked_client: Any, provider_installed: None) -> AsyncIterator[Issued]:
    org = await make_org(clocked_client, plan="enterprise")
    node = clocked_client.server.app[NODE]
    # An ES256 key beside the RSA one that signs the ID tokens: the discovery lists both algorithms.
    async with oidc_provider.running([callback_uri(org)], ec_key=True) as provider:
        await configure(org, provider, domains=["acme-sso.test"])
        started = await start(org)
        back = await sign_in_at_provider(started.location, new_email("acme-sso.test"), callback_uri(org))
        attempt = await node.pool.fetchrow("SELECT nonce, code_verifier FROM sso_attempts WHERE state_digest = $1",
                                           state_digest(started.state))
        async with aiohttp.ClientSession() as session, session.post(
                f"{provider.issuer}/token",
                data={"grant_type": "authorization_code", "code": parse_qs(urlsplit(back).query)["code"][0],
                      "redirect_uri": callback_uri(org), "code_verifier": attempt["code_verifier"]},
                headers={"Authorization": aiohttp.encode_basic_auth(provider.client_id, provider.client_secret)}
        ) as response:
            assert response.status == 200, await response.text()
            token = (await response.json())["id_token"]
        yield Issued(node, provider, token, attempt["nonce"])


async def validate(issued: Issued, token: str | None = None, *, nonce: str | None = None,
                   client_id: str | None = None) -> dict[str, Any]:
    info = await sso_provider.provider(issued.node, issued.provider.issuer)
    return await sso_provider.validate_id_token(
        issued.node, info, token or issued.token, issuer=issued.provider.issuer,
        client_id=client_id or issued.provider.client_id, nonce=nonce or issued.nonce)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return decoded


async def test_the_real_token_validates(issued: Issued) -> None:
    claims = await validate(issued)
    assert claims["email"].endswith("@acme-sso.test") and claims["email_verified"] is True
    assert claims["aud"] == issued.provider.client_id


async def test_a_changed_payload_or_signature_is_refused(issued: Issued) -> None:
    header, payload, signature = issued.token.split(".")
    claims = _claims(issued.token) | {"email": "ceo@acme-sso.test"}
    forged_payload = f"{header}.{_b64(json.dumps(claims).encode())}.{signature}"
    flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
    for token in (forged_payload, f"{header}.{payload}.{flipped}"):
        with pytest.raises(Unauthorized, match="failed its checks"):
            await validate(issued, token)


async def test_a_wrong_nonce_or_audience_is_refused(issued: Issued) -> None:
    with pytest.raises(Unauthorized, match="nonce"):
        await validate(issued, nonce="not-this-sign-in")
    with pytest.raises(Unauthorized, match="failed its checks"):
        await validate(issued, client_id="another-client")


async def test_an_expired_token_is_refused(issued: Issued, clock: Any) -> None:
    await validate(issued)
    claims = _claims(issued.token)
    clock.advance(claims["exp"] - clock.now().timestamp() + sso_provider.LEEWAY_S + 1)
    with pytest.raises(Unauthorized, match="expired"):
        await validate(issued)


async def test_unsigned_and_hmac_tokens_are_refused(issued: Issued) -> None:
    claims = _claims(issued.token)
    header = jwt.get_unverified_header(issued.token)
    unsigned = f"{_b64(json.dumps({'alg': 'none', 'typ': 'JWT'}).encode())}.{_b64(json.dumps(claims).encode())}."
    with pytest.raises(Unauthorized, match="algorithm"):
        await validate(issued, unsigned)
    await validate(issued)  # the provider's keys are fetched
    info = await sso_provider.provider(issued.node, issued.provider.issuer)
    # The key confusion attack: an HMAC "signature" keyed with the provider's public key.
    public_pem = jwt.PyJWK(info.keys[header["kid"]]).key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    signing_input = (f"{_b64(json.dumps({'alg': 'HS256', 'kid': header['kid']}).encode())}."
                     f"{_b64(json.dumps(claims).encode())}")
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    hmac_token = f"{signing_input}.{_b64(mac)}"
    with pytest.raises(Unauthorized, match="algorithm"):
        await validate(issued, hmac_token)


async def test_an_algorithm_that_does_not_fit_the_key_is_refused(issued: Issued) -> None:
    """An ES256 header naming the provider's RSA key (signed with some EC key): PyJWT would raise TypeError
    preparing the RSA key for ECDSA; it is a refused token, not a server error."""
    claims = _claims(issued.token)
    kid = jwt.get_unverified_header(issued.token)["kid"]
    info = await sso_provider.provider(issued.node, issued.provider.issuer)
    assert "ES256" in sso_provider.allowed_algorithms(info)
    forged = jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256", headers={"kid": kid})
    with pytest.raises(Unauthorized, match="ES256"):
        await validate(issued, forged)
    await validate(issued)  # the real token still validates


async def test_a_key_published_without_alg_is_checked_against_the_header(issued: Issued) -> None:
    """A JWK need not declare its `alg` (RFC 7517 4.4): then the key's type decides, and an RSA key named by an
    ES256 header is refused."""
    kid = jwt.get_unverified_header(issued.token)["kid"]
    info = await sso_provider.provider(issued.node, issued.provider.issuer)
    await validate(issued)  # the provider's keys are fetched
    untyped = sso_provider.ProviderInfo(info.discovery, {kid: {k: v for k, v in info.keys[kid].items() if k != "alg"}},
                                        info.keys_fetched_at)
    forged = jwt.encode(_claims(issued.token), ec.generate_private_key(ec.SECP256R1()), algorithm="ES256",
                        headers={"kid": kid})
    with pytest.raises(Unauthorized, match="does not fit its key"):
        await sso_provider.validate_id_token(issued.node, untyped, forged, issuer=issued.provider.issuer,
                                             client_id=issued.provider.client_id, nonce=issued.nonce)
    claims = await sso_provider.validate_id_token(issued.node, untyped, issued.token, issuer=issued.provider.issuer,
                                                  client_id=issued.provider.client_id, nonce=issued.nonce)
    assert claims["sub"] == _claims(issued.token)["sub"]


async def test_made_up_key_ids_do_not_make_every_callback_a_fetch(issued: Issued, clock: Any) -> None:
    await validate(issued)  # the provider's keys are fetched
    info = await sso_provider.provider(issued.node, issued.provider.issuer)
    fetched_at = info.keys_fetched_at
    claims = _claims(issued.token)
    for n in range(3):
        forged = jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256",
                            headers={"kid": f"made-up-{n}"})
        with pytest.raises(Unauthorized, match="does not publish"):
            await validate(issued, forged)
        assert info.keys_fetched_at == fetched_at  # not fetched again within the cooldown
    clock.advance(sso_provider.KEYS_COOLDOWN_S)
    with pytest.raises(Unauthorized, match="does not publish"):
        await validate(issued, forged)
    assert info.keys_fetched_at == fetched_at + sso_provider.KEYS_COOLDOWN_S  # once the cooldown is over
    await validate(issued)


async def test_the_authorized_party_must_be_this_client(issued: Issued) -> None:
    """OIDC Core 3.1.3.7 (4, 5): several audiences need `azp`, and an `azp` present must be our client id, even
    beside a single audience. Signed with a key of the test's own, published in a provider entry built here."""
    info = await sso_provider.provider(issued.node, issued.provider.issuer)
    await validate(issued)  # keys fetched (and their time stamped)
    private = ec.generate_private_key(ec.SECP256R1())
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(private.public_key())) | {"kid": "test", "alg": "ES256"}
    own = sso_provider.ProviderInfo(info.discovery, {"test": public}, info.keys_fetched_at)
    client_id = issued.provider.client_id

    async def check(**changes: Any) -> dict[str, Any]:
        claims = _claims(issued.token) | changes
        token = jwt.encode(claims, private, algorithm="ES256", headers={"kid": "test"})
        return await sso_provider.validate_id_token(issued.node, own, token, issuer=issued.provider.issuer,
                                                    client_id=client_id, nonce=issued.nonce)

    assert (await check())["aud"] == client_id
    assert (await check(aud=[client_id, "other"], azp=client_id))["azp"] == client_id
    for changes in ({"aud": [client_id, "other"]}, {"aud": [client_id, "other"], "azp": "other"},
                    {"azp": "other"}):
        with pytest.raises(Unauthorized, match="azp"):
            await check(**changes)


async def test_in_production_the_provider_endpoints_must_be_https(issued: Issued) -> None:
    """The code, the client secret and the access token travel to them. A production node has its own cache: the
    development node's copy of the (http) discovery is not its."""
    production = build_node(issued.node.pool, NodeSettings(production=True, allow_private_targets=True))
    with pytest.raises(ServiceUnavailable, match="authorization_endpoint is not an https URL"):
        await sso_provider.provider(production, issued.provider.issuer)
    assert production.plugins[SSO_PROVIDERS].peek(issued.provider.issuer) == (False, None)
    info = await sso_provider.provider(issued.node, issued.provider.issuer)
    with pytest.raises(ServiceUnavailable, match="userinfo_endpoint is not an https URL"):
        await sso_provider.userinfo(production, info, "an-access-token", _claims(issued.token)["sub"])
