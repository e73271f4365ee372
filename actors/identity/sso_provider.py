"""Talking to an organization's OpenID provider (docs/sign-in.md): its discovery document and signing
keys, fetched through the outbound-request guard (actors/delivery/addresses.py) with the node's timeout and
cached per issuer on the node (`node.plugins[SSO_PROVIDERS]`, on its clock), and the checks of an ID token it
issued.

The ID token is checked with PyJWT: the signature with a key of the provider's JWKS (an unknown `kid` refetches
the JWKS: the provider rotated its keys; at most once per KEYS_COOLDOWN_S, so forged kids cannot make every
callback a fetch), an asymmetric `alg` the provider lists and the key is of (never `none` or an HMAC one, which a
public key must not verify), `iss`, `aud` (and `azp` when there are several audiences), `nonce`, and `exp`/`iat`
on the node's clock with a small leeway."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import jwt
import structlog

from actors.delivery.outbound_http import open_session
from actors.kernel.node import Node
from actors.kernel.plugins import Slot
from actors.kernel.ttl_cache import TtlCache
from protocol.errors import ServiceUnavailable, Unauthorized

log = structlog.get_logger(__name__)

LEEWAY_S = 60
# An OpenID provider's discovery document (and the signing keys fetched with it) is kept an hour: providers
# change them rarely, and an unknown key id refetches the keys sooner (KEYS_COOLDOWN_S).
SSO_PROVIDER_SECONDS = 3600.0
# The least time between two fetches of a provider's keys for an unknown kid (jose's createRemoteJWKSet waits 30 s
# likewise): a rotation is followed within it, a flood of made-up kids costs the provider one fetch per period.
KEYS_COOLDOWN_S = 30.0
# Signature algorithms with a public key; `none` and HS* are never accepted.
ASYMMETRIC_ALGS = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
                             "EdDSA"})


@dataclass
class ProviderInfo:
    """What is cached of one issuer: its discovery document and its signing keys (the JWKS entries PyJWT reads)
    by kid, with when they were last fetched (node.clock.monotonic; None: not yet)."""

    discovery: dict[str, Any]
    keys: dict[str, dict[str, Any]] = field(default_factory=dict)
    keys_fetched_at: float | None = None


# Issuer -> its discovery document and keys, on the node's clock (built by server/node_services.py).
SSO_PROVIDERS: Slot[TtlCache[str, ProviderInfo]] = Slot("cache of OpenID providers")


async def _get_json(node: Node, url: str, what: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    try:
        async with open_session(node) as session, session.get(url, allow_redirects=False,
                                                              headers=headers) as response:
            if response.status != 200:
                raise ServiceUnavailable(f"the identity provider answered {response.status} for its {what}")
            body = await response.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as error:
        log.warning("sso.provider_unreachable", url=url, what=what, error=type(error).__name__)
        raise ServiceUnavailable(f"the identity provider's {what} could not be fetched") from None
    if not isinstance(body, dict):
        raise ServiceUnavailable(f"the identity provider's {what} is not a JSON object")
    return body


async def provider(node: Node, issuer: str) -> ProviderInfo:
    """The issuer's discovery document, fetched when not cached on the node or older than its TTL; its `issuer`
    must be the configured one."""
    return await node.plugins[SSO_PROVIDERS].get(issuer, lambda: _discover(node, issuer))


async def _discover(node: Node, issuer: str) -> ProviderInfo:
    discovery = await _get_json(node, issuer.rstrip("/") + "/.well-known/openid-configuration",
                                "discovery document")
    if discovery.get("issuer") != issuer:
        raise ServiceUnavailable("the identity provider's discovery document names another issuer")
    for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not isinstance(discovery.get(name), str):
            raise ServiceUnavailable(f"the identity provider's discovery document has no {name}")
        if node.settings.production and not discovery[name].startswith("https://"):
            raise ServiceUnavailable(f"the identity provider's {name} is not an https URL")
    return ProviderInfo(discovery)


async def _refresh_keys(node: Node, info: ProviderInfo) -> None:
    # Stamped before the fetch: a provider whose keys endpoint fails is not asked again within the cooldown either.
    info.keys_fetched_at = node.clock.monotonic()
    jwks = await _get_json(node, info.discovery["jwks_uri"], "signing keys")
    keys: dict[str, dict[str, Any]] = {}
    entries = jwks.get("keys")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            jwt.PyJWK(entry)
        except (jwt.PyJWKError, jwt.InvalidKeyError):
            continue  # a key type this library does not know: not one our tokens can be signed with
        keys[str(entry.get("kid") or "")] = entry
    info.keys = keys


async def signing_key(node: Node, info: ProviderInfo, kid: str, alg: str) -> jwt.PyJWK:
    """The provider's key `kid` for verifying `alg`. An unknown kid refetches the JWKS (the provider rotated its
    keys) unless it was fetched less than KEYS_COOLDOWN_S ago; a key of another type than `alg` needs (an ES256
    header naming an RSA key) or declaring another `alg` is refused."""
    fetched_at = info.keys_fetched_at
    if kid not in info.keys and (fetched_at is None or node.clock.monotonic() - fetched_at >= KEYS_COOLDOWN_S):
        await _refresh_keys(node, info)
    entry = info.keys.get(kid)
    if entry is None:
        raise Unauthorized("the ID token is signed with a key the identity provider does not publish")
    if entry.get("alg", alg) != alg:
        raise Unauthorized(f"the ID token's algorithm {alg!r} is not its key's")
    try:
        return jwt.PyJWK(entry, algorithm=alg)
    except (jwt.PyJWKError, jwt.InvalidKeyError):
        raise Unauthorized(f"the ID token's algorithm {alg!r} does not fit its key") from None


def allowed_algorithms(info: ProviderInfo) -> frozenset[str]:
    listed = info.discovery.get("id_token_signing_alg_values_supported") or ["RS256"]
    return frozenset(alg for alg in listed if alg in ASYMMETRIC_ALGS)


def _timestamp(claims: dict[str, Any], name: str) -> float:
    value = claims.get(name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise Unauthorized(f"the ID token has no valid {name}")
    return float(value)


async def validate_id_token(node: Node, info: ProviderInfo, token: str, *, issuer: str, client_id: str,
                            nonce: str) -> dict[str, Any]:
    """The ID token's claims once every check passed; Unauthorized naming the first that failed."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.DecodeError:
        raise Unauthorized("the ID token is not a signed JWT") from None
    alg = header.get("alg")
    if alg not in allowed_algorithms(info):
        raise Unauthorized(f"the ID token's algorithm {alg!r} is not accepted")
    kid = header.get("kid")
    key = await signing_key(node, info, kid if isinstance(kid, str) else "", alg)
    try:
        claims: dict[str, Any] = jwt.decode(
            token, key=key.key, algorithms=[alg], audience=client_id, issuer=issuer,
            options={"require": ["iss", "aud", "exp", "iat", "sub"], "verify_exp": False, "verify_iat": False,
                     "verify_nbf": False})
    except (jwt.PyJWTError, TypeError, ValueError) as error:  # PyJWT's key preparation raises the latter two
        raise Unauthorized(f"the ID token failed its checks: {error}") from None
    # OIDC Core 3.1.3.7, 4 and 5: with several audiences `azp` must be there, and when there it must be us.
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if (len(audiences) > 1 or "azp" in claims) and claims.get("azp") != client_id:
        raise Unauthorized("the ID token is not authorized for this client (azp)")
    now = node.clock.now().timestamp()
    if _timestamp(claims, "exp") + LEEWAY_S <= now:
        raise Unauthorized("the ID token has expired")
    if _timestamp(claims, "iat") - LEEWAY_S > now:
        raise Unauthorized("the ID token was issued in the future")
    got = claims.get("nonce")
    if not isinstance(got, str) or not hmac.compare_digest(got.encode(), nonce.encode()):
        raise Unauthorized("the ID token's nonce is not this sign-in's")
    return claims


async def userinfo(node: Node, info: ProviderInfo, access_token: str, subject: str) -> dict[str, Any]:
    """The userinfo claims for the ID token's subject (a provider may keep the e-mail out of the ID token)."""
    endpoint = info.discovery.get("userinfo_endpoint")
    if not isinstance(endpoint, str):
        return {}
    if node.settings.production and not endpoint.startswith("https://"):  # the access token travels to it
        raise ServiceUnavailable("the identity provider's userinfo_endpoint is not an https URL")
    claims = await _get_json(node, endpoint, "userinfo", {"Authorization": f"Bearer {access_token}"})
    if claims.get("sub") != subject:
        raise Unauthorized("the identity provider's userinfo is about another subject")
    return claims
