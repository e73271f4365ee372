"""Organization settings, members, role rules and invitations."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import asyncpg

from actors.approvals.intake import member_left
from actors.identity import accounts, api_keys, displays, mcp_keys, oauth_grants, personal_tokens, throttle
from actors.identity.callers import forget_organization
from actors.identity.passwords import hash_secret, verify_secret
from actors.kernel.app_links import invitation_url
from actors.kernel.events import org_stream
from actors.kernel.handlers import Implementations
from actors.kernel.mailer import queue_mail
from actors.kernel.membership_cache import forget_member
from actors.kernel.node import Node
from actors.tenancy.billing import check_seat_to_join, included_seats, seats_refused
from actors.tenancy.reassignment import reassign_items
from protocol import organizations as spec
from protocol.caller import Caller
from protocol.errors import Conflict, FieldError, Forbidden, NotFound, Unauthorized, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from protocol.registry import EmptyInput, Role
from storage import accounts as account_repo
from storage import billing as billing_repo
from storage import organizations as repo
from storage import workspaces as workspace_repo

procedures = Implementations()

INVITATION_DAYS = 7


def organization_view(row: asyncpg.Record) -> dict[str, Any]:
    return {"id": row["id"], "name": row["name"], "slug": row["slug"], "logo": row["logo"],
            "timezone": row["timezone"], "dateFormat": row["date_format"], "weekStart": row["week_start"],
            "language": row["language"], "plan": row["plan"], "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"])}


def member_view(row: asyncpg.Record) -> dict[str, Any]:
    return {"id": row["id"], "name": row["name"], "email": row["email"], "avatar": row["avatar"],
            "role": row["role"], "status": row["status"], "joinedAt": iso(row["joined_at"]),
            "lastActiveAt": iso(row["last_active_at"])}


@procedures.implement(spec.GET)
async def get_organization(node: Node, caller: Caller, data: EmptyInput) -> dict[str, Any]:
    row = await account_repo.organization_by_id(node.pool, caller.org_id)
    if row is None:
        raise NotFound("organization not found")
    return organization_view(row)


@procedures.implement(spec.UPDATE)
async def update_organization(node: Node, caller: Caller, data: spec.UpdateOrganizationInput) -> dict[str, Any]:
    if data.timezone is not None:
        try:
            ZoneInfo(data.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValidationFailed("unknown time zone",
                                   details=[FieldError("timezone", "not an IANA time zone name")]) from None
    fields = {name: getattr(data, name) for name in data.__struct_fields__ if getattr(data, name) is not None}
    async with node.write(caller) as uow:
        conn = uow.conn
        before = await account_repo.organization_by_id(conn, caller.org_id)
        row = await repo.update_settings(conn, caller.org_id, fields)
        assert before is not None and row is not None
        await uow.activity("organization", caller.org_id,
                           "organization.updated", {"fields": sorted(fields)})
    forget_organization(node, row["slug"])
    view = organization_view(row)
    old = organization_view(before)
    return {name: view[name] for name in ("id", *fields, "updatedAt")} | {
        "changes": {name: {"old": old[name], "new": view[name]} for name in fields if old[name] != view[name]}}


@procedures.implement(spec.MEMBERS_LIST)
async def list_members(node: Node, caller: Caller, data: spec.ListMembersInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    rows = await repo.list_members(node.pool, caller.org_id, node.clock.now(), limit + 1, search=data.search,
                                   role=data.role, status=data.status, after=after)
    return time_page(rows, limit, member_view, "members", at="joined_at")


async def _seat_check(conn: asyncpg.Connection, caller: Caller, node: Node) -> None:
    if caller.organization is None:
        return
    # The seats bought with the subscription, else the plan's (actors/tenancy/billing.py).
    await billing_repo.hold_seats(conn, caller.org_id)
    seats = included_seats(caller.organization.plan, await billing_repo.purchased_seats(conn, caller.org_id))
    if seats is None:
        return
    used = await billing_repo.seats_used(conn, caller.org_id, node.clock.now())
    if used >= seats:
        raise seats_refused(caller.organization.plan, seats)


@procedures.implement(spec.MEMBERS_INVITE)
async def invite(node: Node, caller: Caller, data: spec.InviteInput) -> dict[str, Any]:
    if data.role == "admin" and caller.role is not Role.OWNER:
        raise Forbidden("only the owner can make someone an admin")
    token = secrets.token_urlsafe(32)
    expires_at = node.clock.now() + timedelta(days=INVITATION_DAYS)
    async with node.write(caller) as uow:
        conn = uow.conn
        if await repo.member_by_email(conn, caller.org_id, data.email) is not None:
            raise Conflict("already a member", details=[FieldError("email", "already a member")])
        for index, workspace_id in enumerate(data.workspaceIds):
            if await workspace_repo.workspace(conn, caller.org_id, workspace_id) is None:
                raise NotFound("workspace not found",
                               details=[FieldError(f"workspaceIds.{index}", "no such workspace")])
        await _seat_check(conn, caller, node)
        row = await repo.replace_invitation(conn, new_id(Prefix.INVITATION), caller.org_id, data.email, data.role,
                                            data.workspaceIds, accounts.session_digest(token), caller.uid,
                                            expires_at)
        assert caller.organization is not None
        link = invitation_url(node.base_url(caller.organization.slug), token)
        await queue_mail(conn, org_id=caller.org_id, kind="invitation", to=data.email,
                         subject=f"You are invited to {caller.organization.name} on Obeya",
                         body=f"Join {caller.organization.name} as {data.role}: {link}\n"
                              f"Invitation token: {token}\nThe invitation expires on {iso(expires_at)}.",
                         smtp_configured=node.settings.smtp is not None, secrets=[token],
                         secret_key=node.settings.secret_key)
        await uow.activity("invitation", row["id"], "member.invited",
                           {"email": data.email, "role": data.role})
        uow.emit(org_stream(caller.org_id), "member.invited",
                 {"invitationId": row["id"], "email": data.email, "role": data.role})
    return {"invitationId": row["id"], "email": row["email"], "role": row["role"], "status": row["status"],
            "expiresAt": iso(row["expires_at"])}


async def _target(conn: asyncpg.Connection, caller: Caller, user_id: str) -> asyncpg.Record:
    target = await repo.member(conn, caller.org_id, user_id)
    if target is None:
        raise NotFound("member not found")
    if target["role"] == "owner":
        raise Forbidden("the owner's role cannot be changed and the owner cannot be removed")
    return target


@procedures.implement(spec.MEMBERS_REMOVE)
async def remove_member(node: Node, caller: Caller, data: spec.RemoveMemberInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        target = await _target(conn, caller, data.userId)
        # Removal follows the role rule (admins can only set member or guest): an admin who may
        # not change another admin's role may not remove that admin either; only the owner can.
        if target["role"] == "admin" and caller.role is not Role.OWNER:
            raise Forbidden("only the owner can remove an admin")
        if data.reassignTo is not None and (data.reassignTo == data.userId
                                            or await repo.member(conn, caller.org_id, data.reassignTo) is None):
            raise ValidationFailed("reassignTo must be another member",
                                   details=[FieldError("reassignTo", "not another member of the organization")])
        await repo.delete_membership(conn, caller.org_id, data.userId)
        revoked = await oauth_grants.revoke_member_grants(conn, caller.org_id, data.userId, uow.now)
        # Their keys and tokens here too: refused only while they are out, a return would revive them.
        revoked += await api_keys.revoke_member_keys(uow, data.userId)
        revoked += await mcp_keys.revoke_member_keys(uow, data.userId)
        revoked += await personal_tokens.revoke_member_tokens(uow, data.userId)
        revoked += await displays.revoke_member_displays(uow, data.userId)  # they acted as the member
        await uow.activity("member", data.userId, "member.removed",
                           {"email": target["email"], "reassignTo": data.reassignTo})
        uow.emit(org_stream(caller.org_id), "member.removed",
                 {"userId": data.userId, "email": target["email"], "reassignTo": data.reassignTo})
    forget_member(node, caller.org_id, data.userId)
    oauth_grants.revoked_on_every_node(node, revoked)
    await member_left(node, caller.org_id, data.userId)  # `all` steps that waited only for them complete
    reassigned = 0
    if data.reassignTo is not None:
        # After the removal committed, each board hands the items over in its own turn (idempotent).
        reassigned = await reassign_items(node, caller, data.userId, data.reassignTo)
    return {"success": True, "id": data.userId, "reassignedItems": reassigned}


@procedures.implement(spec.MEMBERS_UPDATE_ROLE)
async def update_role(node: Node, caller: Caller, data: spec.UpdateRoleInput) -> dict[str, Any]:
    if data.role == "owner":
        raise Forbidden("ownership cannot be given by a role change")
    if data.role == "admin" and caller.role is not Role.OWNER:
        raise Forbidden("only the owner can promote a member to admin")
    async with node.write(caller) as uow:
        conn = uow.conn
        target = await _target(conn, caller, data.userId)
        if target["role"] == "admin" and caller.role is not Role.OWNER:
            raise Forbidden("only the owner can change an admin's role")
        await repo.set_role(conn, caller.org_id, data.userId, data.role)
        role_change = {"role": {"old": target["role"], "new": data.role}}
        await uow.activity("member", data.userId, "member.role_changed",
                           {"changes": role_change})
        uow.emit(org_stream(caller.org_id), "member.role_changed", {"userId": data.userId, "changes": role_change})
    forget_member(node, caller.org_id, data.userId)
    return {"userId": data.userId, "role": data.role}


async def read_invitation(node: Node, org_id: str, token: str) -> asyncpg.Record:
    """What the e-mailed link `token` invites to on organization `org_id`'s host (e-mail, role, expiry), read
    without accepting it: 404 when it is unknown here, accepted, revoked or expired."""
    row = await repo.pending_invitation(node.pool, org_id, accounts.session_digest(token), node.clock.now())
    if row is None:
        raise NotFound("invitation not found or expired")
    return row


async def accept_invitation(node: Node, data: spec.AcceptInvitationInput) -> accounts.Session:
    """Join with an e-mailed token: a new account, or an existing one proven by its password (counted by the
    account's guessing throttle, actors/identity/throttle.py, as a login is)."""
    async with node.write(None) as uow:
        conn = uow.conn
        invitation = await repo.take_invitation(conn, accounts.session_digest(data.token), uow.now)
        if invitation is None:
            raise NotFound("invitation not found or expired")
        await check_seat_to_join(conn, invitation["organization_id"])  # refused: the invitation stays pending
        existing = await account_repo.user_login(conn, invitation["email"])
        if existing is None:
            user_id = new_id(Prefix.USER)
            await account_repo.insert_user(conn, user_id, invitation["email"], data.name,
                                           await hash_secret(data.password, node.settings.bcrypt_rounds))
        else:
            # The account's password is guessed here as at login: the same throttle, whatever the token.
            key = throttle.account_key(invitation["email"])
            await throttle.attempt(node, throttle.ACCOUNT, key)
            if not await verify_secret(data.password, existing["password_hash"]):
                raise Unauthorized("this e-mail has an account: give its password to accept")
            await throttle.succeeded(node, key)
            user_id = existing["id"]
        await account_repo.insert_membership(conn, invitation["organization_id"], user_id, invitation["role"])
        for workspace_id in invitation["workspace_ids"]:
            # A workspace deleted since the invitation is skipped; the others are joined as a member.
            if await workspace_repo.workspace(conn, invitation["organization_id"], workspace_id) is not None:
                await workspace_repo.upsert_member(conn, workspace_id, user_id, "member")
        await repo.mark_accepted(conn, invitation["id"])
        # Known only now: the organization joined, and who joined it (the event's actor).
        uow.org_id = invitation["organization_id"]
        uow.caller = Caller(request_id="", user_id=user_id, user_email=invitation["email"])
        uow.emit(org_stream(uow.org_id), "member.joined",
                 {"userId": user_id, "email": invitation["email"], "role": invitation["role"]})
    forget_member(node, invitation["organization_id"], user_id)
    return await accounts.open_session(node, user_id)
