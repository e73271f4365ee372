"""Per-organization OpenID Connect single sign-on (docs/sign-in.md): the settings procedures
sso.getConfig and sso.updateConfig, the sign-in that starts at the provider and the callback that ends it, and
the enforcement check of password logins.

A sign-in under way is a row of `sso_attempts` (the SHA-256 of its state, its nonce and PKCE verifier, where to
return), good for ten minutes and taken once by the callback; the state also rides in an HttpOnly cookie the
callback compares, so a callback only completes in the browser that started it."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import aiohttp
import asyncpg
import structlog

from actors.delivery.outbound_http import open_session
from actors.identity import accounts
from actors.identity.passwords import hash_secret
from actors.identity.public_mail import is_public
from actors.identity.sso_provider import ProviderInfo, provider, userinfo, validate_id_token
from actors.kernel import sealing
from actors.kernel.events import org_stream
from actors.kernel.handlers import Implementations
from actors.kernel.membership_cache import forget_member
from actors.kernel.node import Node
from actors.tenancy.billing import check_seat_to_join
from protocol import sso as proto
from protocol.caller import Caller, Organization
from protocol.errors import BadRequest, FieldError, Forbidden, ServiceUnavailable, Unauthorized, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.plans import allows
from protocol.registry import EmptyInput
from storage import accounts as account_repo
from storage import sso as repo

procedures = Implementations()

log = structlog.get_logger(__name__)

ATTEMPT_LIFETIME = timedelta(minutes=10)
SCOPE = "openid email profile"
CALLBACK_PATH = "/api/v1/auth/sso/callback"
ENFORCED = "this organization signs in through its identity provider"
OWNER_USES_PASSWORD = "the organization's owner signs in with a password, not through the identity provider"
_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$")
EXISTING_ACCOUNT = ("this e-mail address has an account in another organization: it joins this one by invitation, "
                    "then signs in here")
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})


def _refuse(field: str, message: str) -> ValidationFailed:
    return ValidationFailed(f"{field} {message}", details=[FieldError(field, message)])


def check_issuer(node: Node, issuer: str) -> str:
    """An https URL; http only for 127.0.0.1 or localhost outside production. No query or fragment."""
    try:
        parts = urlsplit(issuer)
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError on a malformed port)
    except ValueError:
        raise _refuse("issuer", "is not a valid URL") from None
    if not host or parts.query or parts.fragment or parts.username or parts.password:
        raise _refuse("issuer", "must be a URL with a host and no query, fragment or credentials")
    if parts.scheme == "https":
        return issuer
    if parts.scheme == "http" and host in LOCAL_HOSTS and not node.settings.production:
        return issuer
    raise _refuse("issuer", "must be an https URL")


def check_domains(domains: list[str]) -> list[str]:
    cleaned = []
    for index, domain in enumerate(domains):
        lowered = domain.strip().lower()
        if not _DOMAIN.match(lowered):
            raise _refuse(f"allowedDomains[{index}]", "is not a domain name")
        if is_public(lowered):
            raise _refuse(f"allowedDomains[{index}]", "is a public mail provider's: anyone may have an address there")
        cleaned.append(lowered)
    return list(dict.fromkeys(cleaned))


def config_view(row: asyncpg.Record | None, plan: str) -> dict[str, Any]:
    """The settings as admins see them: never the secret, only whether one is kept."""
    if row is None:
        return {"configured": False, "enabled": False}
    return {"configured": True, "issuer": row["issuer"], "clientId": row["client_id"], "enforce": row["enforce"],
            "allowedDomains": list(row["allowed_domains"]), "hasClientSecret": True,
            "enabled": allows(plan, "sso"), "updatedAt": iso(row["updated_at"])}


@procedures.implement(proto.GET_CONFIG)
async def get_config(node: Node, caller: Caller, data: EmptyInput) -> dict[str, Any]:
    assert caller.organization is not None
    return config_view(await repo.config(node.pool, caller.org_id), caller.organization.plan)


@procedures.implement(proto.UPDATE_CONFIG)
async def update_config(node: Node, caller: Caller, data: proto.UpdateSsoConfigInput) -> dict[str, Any]:
    assert caller.organization is not None
    issuer = check_issuer(node, data.issuer)
    domains = check_domains(data.allowedDomains)
    async with node.write(caller) as uow:
        existing = await repo.config(uow.conn, caller.org_id)
        if data.clientSecret is not None:
            sealed = await sealing.seal(uow.conn, data.clientSecret, node.settings.secret_key)
        elif existing is not None:
            sealed = bytes(existing["client_secret_sealed"])
        else:
            raise _refuse("clientSecret", "is required the first time single sign-on is configured")
        await repo.upsert_config(uow.conn, org_id=caller.org_id, issuer=issuer, client_id=data.clientId,
                                 client_secret_sealed=sealed, enforce=data.enforce, allowed_domains=domains,
                                 now=uow.now)
        await uow.activity("sso_config", caller.org_id, "sso.updated",
                           {"issuer": issuer, "clientId": data.clientId, "enforce": data.enforce,
                            "allowedDomains": domains, "clientSecretChanged": data.clientSecret is not None})
        row = await repo.config(uow.conn, caller.org_id)
    node.sso_enforced.drop(caller.org_id)  # other nodes follow within SSO_ENFORCED_SECONDS
    return config_view(row, caller.organization.plan)


async def enforced(node: Node, org_id: str) -> bool:
    """Whether the organization enforces single sign-on (on a plan with `sso`), cached on the node."""
    return await node.sso_enforced.get(org_id, lambda: repo.enforced(node.pool, org_id))


@dataclass(frozen=True)
class Settings:
    issuer: str
    client_id: str
    client_secret: str
    allowed_domains: tuple[str, ...]


async def _settings(node: Node, org: Organization) -> Settings:
    """The organization's provider settings with the secret opened; Forbidden when SSO is not available."""
    if not allows(org.plan, "sso"):
        raise Forbidden(f"the {org.plan} plan does not include sso")
    row = await repo.config(node.pool, org.id)
    if row is None:
        raise Forbidden("single sign-on is not configured for this organization")
    try:
        secret = await sealing.open_sealed(node.pool, row["client_secret_sealed"], node.settings.secret_key)
    except sealing.Unopenable:
        log.error("sso.secret_unopenable", organization_id=org.id)
        raise ServiceUnavailable("the single sign-on client secret cannot be opened; an admin must set it again",
                                 retry_after=60) from None
    return Settings(row["issuer"], row["client_id"], secret, tuple(row["allowed_domains"]))


def check_return_to(return_to: str | None) -> str:
    """A path on this host: starts with one `/` (not `//` or `/\\`, which browsers read as another host)."""
    if return_to is None or return_to == "":
        return "/"
    if (not return_to.startswith("/") or return_to.startswith(("//", "/\\")) or len(return_to) > 2000
            or any(ord(c) < 0x21 or c == "\\" for c in return_to)):
        raise BadRequest("returnTo must be a path on this host", details=[FieldError("returnTo", "not a path")])
    return return_to


def state_digest(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


@dataclass(frozen=True)
class Started:
    location: str  # the provider's authorization URL
    state: str     # also set as the browser-binding cookie


async def begin(node: Node, org: Organization, redirect_uri: str, return_to: str | None) -> Started:
    """Record a sign-in under way and answer where to send the browser."""
    target = check_return_to(return_to)
    settings = await _settings(node, org)
    info = await provider(node, settings.issuer)
    state, nonce, verifier = (secrets.token_urlsafe(32) for _ in range(3))
    now = node.clock.now()
    async with node.pool.acquire() as conn:
        await repo.insert_attempt(conn, state_digest=state_digest(state), org_id=org.id, nonce=nonce,
                                  code_verifier=verifier, return_to=target, expires_at=now + ATTEMPT_LIFETIME,
                                  now=now)
    query = urlencode({"response_type": "code", "client_id": settings.client_id, "redirect_uri": redirect_uri,
                       "scope": SCOPE, "state": state, "nonce": nonce, "code_challenge": _challenge(verifier),
                       "code_challenge_method": "S256"})
    endpoint = info.discovery["authorization_endpoint"]
    return Started(f"{endpoint}{'&' if '?' in endpoint else '?'}{query}", state)


async def _exchange(node: Node, info: ProviderInfo, settings: Settings, code: str, verifier: str,
                    redirect_uri: str) -> dict[str, Any]:
    """The token endpoint's answer for the code: client_secret_basic unless the provider only takes _post."""
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier}
    methods = info.discovery.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    headers = {"Accept": "application/json"}
    if "client_secret_basic" in methods:
        # RFC 6749 2.3.1: both parts form-encoded before the Basic encoding.
        headers["Authorization"] = aiohttp.encode_basic_auth(quote(settings.client_id, safe=""),
                                                             quote(settings.client_secret, safe=""))
    elif "client_secret_post" in methods:
        form |= {"client_id": settings.client_id, "client_secret": settings.client_secret}
    else:
        raise Unauthorized("the identity provider takes no client secret authentication this server supports")
    try:
        async with open_session(node) as session, session.post(
                info.discovery["token_endpoint"], data=form, allow_redirects=False, headers=headers) as response:
            body = await response.json(content_type=None)
            status = response.status
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as error:
        log.warning("sso.token_endpoint_unreachable", error=type(error).__name__)
        raise ServiceUnavailable("the identity provider's token endpoint could not be reached") from None
    if status != 200 or not isinstance(body, dict) or not isinstance(body.get("id_token"), str):
        error_code = body.get("error") if isinstance(body, dict) else None
        raise Unauthorized(f"the identity provider refused the authorization code ({error_code or status})")
    return body


def _verified_email(claims: dict[str, Any]) -> str:
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email:
        raise Unauthorized("the identity provider gave no e-mail address")
    if claims.get("email_verified") is not True:
        raise Forbidden("the identity provider has not verified this e-mail address")
    return email.strip()


async def _member(node: Node, org: Organization, settings: Settings, email: str, name: str) -> str:
    """The member with that e-mail, or a new member when the domain is allowed (seats permitting): a new user, or
    one of no other organization."""
    async with node.write(None, org_id=org.id) as uow:
        user = await account_repo.user_login(uow.conn, email)
        membership = await repo.membership(uow.conn, org.id, user["id"]) if user is not None else None
        status = membership["status"] if membership is not None else None
        if user is not None and status == "active":
            # An admin may choose the provider, and the provider asserts any e-mail: through it the owner's
            # e-mail must not give an admin the owner's powers. The owner keeps the password (break-glass).
            if membership is not None and membership["role"] == "owner":
                raise Forbidden(OWNER_USES_PASSWORD)
            return str(user["id"])
        if status is not None:  # deactivated (or pending): the provider does not undo an admin's decision
            raise Forbidden(f"this membership is {status}")
        domain = email.rsplit("@", 1)[1].lower()
        if domain not in settings.allowed_domains or is_public(domain):  # public: listed before they were refused
            raise Forbidden("this e-mail address is not a member of the organization and its domain is not "
                            "allowed to join")
        if user is not None and await account_repo.member_elsewhere(uow.conn, user["id"], org.id):
            # Nothing proves the organization owns an allowed domain, so its provider does not hand it an account
            # of another organization: that account joins by invitation, proven by its password. One of no other
            # organization (a member removed here, say) may rejoin.
            raise Forbidden(EXISTING_ACCOUNT)
        await check_seat_to_join(uow.conn, org.id)
        if user is None:
            user_id = new_id(Prefix.USER)
            # No password is chosen: the hash of a random one nobody knows (the column is required).
            await account_repo.insert_user(uow.conn, user_id, email, name,
                                           await hash_secret(secrets.token_urlsafe(32), node.settings.bcrypt_rounds))
        else:
            user_id = user["id"]
        await account_repo.insert_membership(uow.conn, org.id, user_id, "member")
        uow.caller = Caller(request_id="", user_id=user_id, user_email=email)
        uow.emit(org_stream(org.id), "member.joined", {"userId": user_id, "email": email, "role": "member"})
    forget_member(node, org.id, user_id)
    return user_id


async def abandon(node: Node, org: Organization, *, state: str | None, bound_state: str | None) -> None:
    """The provider answered with an error: the sign-in under way is dropped, when this browser started it."""
    if state and bound_state and secrets.compare_digest(state.encode(), bound_state.encode()):
        async with node.pool.acquire() as conn:
            await repo.take_attempt(conn, state_digest(state), org.id, node.clock.now())


@dataclass(frozen=True)
class Finished:
    session: accounts.Session
    return_to: str


async def finish(node: Node, org: Organization, *, state: str | None, bound_state: str | None, code: str | None,
                 redirect_uri: str) -> Finished:
    """Check the state against the browser's cookie and the stored attempt (taken once), exchange the code,
    validate the ID token, then sign the member in (joining them first when their domain is allowed)."""
    if not state or not code:
        raise BadRequest("the callback carries no state or code")
    if bound_state is None or not secrets.compare_digest(state.encode(), bound_state.encode()):
        raise BadRequest("this sign-in was not started in this browser")
    async with node.pool.acquire() as conn:
        attempt = await repo.take_attempt(conn, state_digest(state), org.id, node.clock.now())
    if attempt is None:
        raise BadRequest("this sign-in is unknown, already used or expired: start again")
    settings = await _settings(node, org)
    info = await provider(node, settings.issuer)
    tokens = await _exchange(node, info, settings, code, attempt["code_verifier"], redirect_uri)
    claims = await validate_id_token(node, info, tokens["id_token"], issuer=settings.issuer,
                                     client_id=settings.client_id, nonce=attempt["nonce"])
    if "email" not in claims and isinstance(tokens.get("access_token"), str):
        claims = await userinfo(node, info, tokens["access_token"], claims["sub"]) | claims
    email = _verified_email(claims)
    name = claims.get("name") if isinstance(claims.get("name"), str) else email.split("@")[0]
    user_id = await _member(node, org, settings, email, str(name)[:200])
    log.info("sso.signed_in", organization_id=org.id, user_id=user_id)
    return Finished(await accounts.open_session(node, user_id, org.id), attempt["return_to"])

