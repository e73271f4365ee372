"""Talking to an organization's OpenID provider (DESIGN "Single sign-on"): its discovery document and signing
keys, fetched through the outbound-request guard (actors/delivery/addresses.py) with the node's timeout and
cached per issuer, and the checks of an ID token it issued.

The ID token is checked with PyJWT: the signature with a key of the provider's JWKS (an unknown `kid` refetches
the JWKS once: the provider rotated its keys), an asymmetric `alg` the provider lists (never `none` or an HMAC
one, which a public key must not verify), `iss`, `aud` (and `azp` when there are several audiences), `nonce`,
and `exp`/`iat` on the node's clock with a small leeway."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import jwt
import structlog

from actors.delivery.addresses import outbound_connector
from actors.kernel.node import Node
from protocol.errors import ServiceUnavailable, Unauthorized

log = structlog.get_logger(__name__)

DISCOVERY_TTL_S = 3600.0
LEEWAY_S = 60
# Signature algorithms with a public key; `none` and HS* are never accepted.
ASYMMETRIC_ALGS = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
                             "EdDSA"})


@dataclass
class ProviderInfo:
    """What is cached of one issuer: its discovery document (when fetched) and its signing keys by kid."""

    discovery: dict[str, Any]
    fetched_at: float
    keys: dict[str, jwt.PyJWK] = field(default_factory=dict)


# Per process (one node per process in production): the issuers' documents, keyed by issuer.
_CACHE: dict[str, ProviderInfo] = {}


def open_session(node: Node) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=node.http_timeout),
                                 connector=outbound_connector(node.allow_private_targets))


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
    """The issuer's discovery document, fetched when not cached or older than the TTL; its `issuer` must be
    the configured one."""
    cached = _CACHE.get(issuer)
    now = node.clock.monotonic()
    if cached is not None and now - cached.fetched_at < DISCOVERY_TTL_S:
        return cached
    discovery = await _get_json(node, issuer.rstrip("/") + "/.well-known/openid-configuration",
                                "discovery document")
    if discovery.get("issuer") != issuer:
        raise ServiceUnavailable("the identity provider's discovery document names another issuer")
    for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not isinstance(discovery.get(name), str):
            raise ServiceUnavailable(f"the identity provider's discovery document has no {name}")
        if node.production and not discovery[name].startswith("https://"):
            raise ServiceUnavailable(f"the identity provider's {name} is not an https URL")
    info = ProviderInfo(discovery, now)
    _CACHE[issuer] = info
    return info


async def _refresh_keys(node: Node, info: ProviderInfo) -> None:
    jwks = await _get_json(node, info.discovery["jwks_uri"], "signing keys")
    keys: dict[str, jwt.PyJWK] = {}
    for entry in jwks.get("keys") or []:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK(entry)
        except (jwt.PyJWKError, jwt.InvalidKeyError):
            continue  # a key type this library does not know: not one our tokens can be signed with
        keys[key.key_id or ""] = key
    info.keys = keys


async def signing_key(node: Node, info: ProviderInfo, kid: str) -> jwt.PyJWK:
    """The provider's key `kid`; an unknown one refetches the JWKS once (the provider rotated its keys)."""
    if kid not in info.keys:
        await _refresh_keys(node, info)
    key = info.keys.get(kid)
    if key is None:
        raise Unauthorized("the ID token is signed with a key the identity provider does not publish")
    return key


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
    key = await signing_key(node, info, str(header.get("kid") or ""))
    try:
        claims: dict[str, Any] = jwt.decode(
            token, key=key.key, algorithms=[alg], audience=client_id, issuer=issuer,
            options={"require": ["iss", "aud", "exp", "iat", "sub"], "verify_exp": False, "verify_iat": False,
                     "verify_nbf": False})
    except jwt.InvalidTokenError as error:
        raise Unauthorized(f"the ID token failed its checks: {error}") from None
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if len(audiences) > 1 and claims.get("azp") != client_id:
        raise Unauthorized("the ID token names several audiences but is not authorized for this client")
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
    claims = await _get_json(node, endpoint, "userinfo", {"Authorization": f"Bearer {access_token}"})
    if claims.get("sub") != subject:
        raise Unauthorized("the identity provider's userinfo is about another subject")
    return claims
