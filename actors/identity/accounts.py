"""Accounts: sign-up, login and logout sessions, organizations and users (CLI bootstrap too), and the
identity procedures auth.checkEmail, auth.me and auth.updateProfile."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import msgspec

from actors.identity import device_cookies, throttle
from actors.identity.passwords import dummy_hash, hash_secret, verify_secret
from actors.kernel.handlers import Implementations
from actors.kernel.invalidation import SessionEnded
from actors.kernel.membership_cache import forget_member
from actors.kernel.node import Node
from actors.tenancy.billing import check_seat_to_join
from protocol import auth
from protocol.caller import Caller
from protocol.errors import Conflict, FieldError, Forbidden, NotFound, Unauthorized, ValidationFailed
from protocol.fields import Password
from protocol.ids import Prefix, iso, new_id
from protocol.registry import EmptyInput
from protocol.slugs import check_organization_slug
from storage import accounts as repo
from storage import sso as sso_repo

procedures = Implementations()

SESSION_DAYS = 30
SSO_PROFILE = ("a single sign-on session cannot change a profile the user's other organizations also see: "
               "sign in with the password to change it")


@dataclass(frozen=True)
class Session:
    token: str
    user: dict[str, Any]
    expires_in: timedelta
    device_cookie: str | None = None  # a new device cookie, for a browser that proved the password


def user_view(row: asyncpg.Record) -> dict[str, Any]:
    """A user as the REST style shows it; the password hash is never selected into `row`."""
    return {"id": row["id"], "name": row["name"], "email": row["email"], "image": row["image"],
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


def session_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_password(password: str, field: str) -> None:
    """Sign-up's password rule (protocol/fields.py Password) for accounts made another way (`obeya org create`,
    `obeya user create`): 422 naming `field` with the rule."""
    try:
        msgspec.convert(password, Password)
    except msgspec.ValidationError as error:
        raise ValidationFailed.of(field, str(error)) from None


async def create_organization(node: Node, *, slug: str, name: str, owner_email: str, owner_password: str,
                              owner_name: str | None = None, plan: str = "free") -> tuple[str, str]:
    """Create an organization and its owner (a new user, or the existing one with that e-mail and
    password). Returns (organization id, user id). A reserved slug (protocol/slugs.py) or a password sign-up
    would refuse is refused."""
    check_organization_slug(slug)
    check_password(owner_password, "ownerPassword")
    async with node.write(None) as uow:
        conn = uow.conn
        if await repo.slug_taken(conn, slug):
            raise Conflict("organization slug is taken",
                           details=[FieldError("organizationSlug", "already taken")])
        existing = await repo.user_login(conn, owner_email)
        if existing is not None:
            if not await verify_secret(owner_password, existing["password_hash"]):
                raise Conflict("e-mail is registered", details=[FieldError("email", "already registered")])
            user_id = existing["id"]
        else:
            user_id = new_id(Prefix.USER)
            await repo.insert_user(conn, user_id, owner_email, owner_name or owner_email.split("@")[0],
                                   await hash_secret(owner_password, node.settings.bcrypt_rounds))
        org_id = new_id(Prefix.ORGANIZATION)
        await repo.insert_organization(conn, org_id, slug, name, plan)
        await repo.insert_membership(conn, org_id, user_id, "owner")
    forget_member(node, org_id, user_id)
    return org_id, user_id


async def create_user(node: Node, *, org_slug: str, email: str, password: str, name: str,
                      role: str = "member") -> str:
    check_password(password, "password")
    async with node.write(None) as uow:
        conn = uow.conn
        org = await repo.organization_by_slug(conn, org_slug)
        if org is None:
            raise NotFound(f"organization {org_slug} not found")
        if await repo.email_taken(conn, email):
            raise Conflict("e-mail is registered", details=[FieldError("email", "already registered")])
        await check_seat_to_join(conn, org["id"])
        user_id = new_id(Prefix.USER)
        await repo.insert_user(conn, user_id, email, name, await hash_secret(password, node.settings.bcrypt_rounds))
        await repo.insert_membership(conn, org["id"], user_id, role)
    forget_member(node, org["id"], user_id)
    return user_id


async def open_session(node: Node, user_id: str, org_id: str | None = None) -> Session:
    """A new 30-day session for the user; only the SHA-256 of the cookie value is stored. With `org_id` it is
    good on that organization's host only (a single sign-on's)."""
    token = secrets.token_urlsafe(32)
    lifetime = timedelta(days=SESSION_DAYS)
    async with node.pool.acquire() as conn:
        await repo.insert_session(conn, session_digest(token), user_id, node.clock.now() + lifetime, org_id)
        user = await repo.user_by_id(conn, user_id)
    assert user is not None
    return Session(token, user_view(user), lifetime)


async def signup(node: Node, data: auth.SignupInput) -> Session:
    async with node.pool.acquire() as conn:
        if await repo.email_taken(conn, data.email):
            raise Conflict("e-mail is registered", details=[FieldError("email", "already registered")])
    org_id, user_id = await create_organization(
        node, slug=data.organizationSlug, name=data.organizationName, owner_email=data.email,
        owner_password=data.password, owner_name=data.name)
    session = await open_session(node, user_id)
    row = await repo.user_login(node.pool, data.email)
    assert row is not None
    return Session(session.token, {**session.user, "organizationId": org_id}, session.expires_in,
                   device_cookies.issue(await device_cookies.signing_key(node), data.email, row["password_hash"]))


async def login(node: Node, org_id: str | None, data: auth.LoginInput, device_cookie: str | None = None) -> Session:
    """Check the password; on an organization host the user must also be a member of it. The session carries
    a new device cookie for the browser.

    Each attempt counts against a guessing throttle first (429 with Retry-After while it waits, registered
    or not): the browser's own when `device_cookie` is a valid device cookie of this account under its current
    password (actors/identity/device_cookies.py), so others' failures never delay it, else the e-mail's. The
    user's row and the cookies' signing key, read once, serve both that check and the new cookie. A right
    password forgets that subject's failures. An unknown e-mail is checked against a dummy hash of the same
    cost, and a non-member's password is checked before the membership, so every refusal costs one bcrypt
    check: the answer's timing does not tell whether an e-mail is registered."""
    row = await repo.user_login(node.pool, data.email)
    signing: bytes | None = None
    device: str | None = None
    if row is not None:
        signing = await device_cookies.signing_key(node)
        device = device_cookies.device_of(signing, device_cookie, data.email, row["password_hash"])
    key = throttle.device_key(device) if device is not None else throttle.account_key(data.email)
    await throttle.attempt(node, throttle.DEVICE if device is not None else throttle.ACCOUNT, key)
    hashed = row["password_hash"] if row is not None else dummy_hash(node.settings.bcrypt_rounds)
    valid = await verify_secret(data.password, hashed) and row is not None
    role = None
    if valid and row is not None and org_id is not None:
        role = await repo.membership_role(node.pool, org_id, row["id"])
        valid = role is not None
    if not valid or row is None:
        raise Unauthorized("invalid e-mail or password")
    await throttle.succeeded(node, key)
    # Single sign-on enforced here: only the owner keeps the password (break-glass). After the password
    # check, so the refusal tells nothing about an e-mail to someone without its password.
    if org_id is not None and role != "owner" and await sso_repo.enforced(node.pool, org_id):
        raise Forbidden("this organization signs in through its identity provider")
    session = await open_session(node, row["id"])
    assert signing is not None  # read with the row
    return replace(session, device_cookie=device_cookies.issue(signing, data.email, row["password_hash"]))


async def logout(node: Node, token: str) -> None:
    digest = session_digest(token)
    await repo.delete_session(node.pool, digest)
    # After the delete: nothing reads it back in between. On every node; its sockets are checked again.
    node.invalidate(SessionEnded(digest))


@procedures.implement(auth.CHECK_EMAIL)
async def check_email(node: Node, caller: Caller, data: auth.CheckEmailInput) -> dict[str, bool]:
    if await repo.email_taken(node.pool, data.email):
        raise Conflict("e-mail is already registered", data={"available": False},
                       details=[FieldError("email", "already registered")])
    return {"available": True}


@procedures.implement(auth.ME)
async def me(node: Node, caller: Caller, data: EmptyInput) -> dict[str, Any]:
    async with node.pool.acquire() as conn:
        user = await repo.user_by_id(conn, caller.uid)
        if user is None:
            raise NotFound("user not found")
        memberships = await repo.memberships_of(conn, caller.uid)
    if caller.single_sign_on:  # the provider vouched for the user in this organization only
        memberships = [m for m in memberships if m["organization_id"] == caller.org_id]
    view = user_view(user)
    view["avatar"] = view["image"]
    view["memberships"] = [{"organizationId": m["organization_id"], "organizationSlug": m["organization_slug"],
                            "role": m["role"]} for m in memberships]
    return view


# A stored file's id: `file_` + 20 lowercase base32 characters.
_FILE_ID = re.compile(r"file_[a-z2-7]{20}")
# Characters that never belong in a URL as sent: whitespace and controls (header or markup injection).
_UNSAFE = re.compile(r"[\x00-\x20\x7f\\<>\"]")


def check_image(image: str) -> str:
    """An avatar every member's browser loads: an absolute http(s) URL with a host, or a file id. Anything
    else (`javascript:`, `data:`, `vbscript:`, relative or malformed URLs) is refused naming the field."""
    if _FILE_ID.fullmatch(image):
        return image
    try:
        parts = urlsplit(image)
        web_url = parts.scheme.lower() in ("http", "https") and bool(parts.hostname) \
            and (parts.port is None or parts.port > 0)  # `.port` raises ValueError on a malformed port
    except ValueError:  # e.g. an unclosed IPv6 bracket
        web_url = False
    if not web_url or _UNSAFE.search(image):
        raise ValidationFailed.of("image", "must be an http(s) URL or a file id (file_...)")
    return image


@procedures.implement(auth.UPDATE_PROFILE)
async def update_profile(node: Node, caller: Caller, data: auth.UpdateProfileInput) -> dict[str, Any]:
    image = check_image(data.image) if data.image is not None else None
    changes = {name: value for name, value in (("name", data.name), ("image", image)) if value is not None}
    if caller.single_sign_on and changes and await repo.member_elsewhere(node.pool, caller.uid, caller.org_id):
        # The profile shows in every organization of the user; this organization's provider speaks for it alone.
        raise Forbidden(SSO_PROFILE)
    user = await repo.update_user(node.pool, caller.uid, changes)
    if user is None:
        raise NotFound("user not found")
    return user_view(user)
