"""Organization settings and members, and invitation acceptance."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.fields import Cursor, Email, Id, OrganizationName, Password, ProfileName
from protocol.registry import EmptyInput, Role, declare

Timezone = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
DateFormat = Literal["MM/DD/YYYY", "DD/MM/YYYY", "YYYY-MM-DD"]
WeekStart = Literal["monday", "sunday", "saturday"]
Language = Annotated[str, msgspec.Meta(pattern=r"^[a-z]{2}(-[A-Z]{2})?$")]
MemberRole = Literal["owner", "admin", "member", "guest"]
InvitableRole = Literal["admin", "member", "guest"]


class UpdateOrganizationInput(msgspec.Struct):
    name: OrganizationName | None = None
    timezone: Timezone | None = None
    dateFormat: DateFormat | None = None
    weekStart: WeekStart | None = None
    language: Language | None = None


class ListMembersInput(msgspec.Struct):
    cursor: Cursor | None = None
    limit: int | None = None
    search: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    role: MemberRole | None = None
    status: Literal["active", "pending", "deactivated"] | None = None


class InviteInput(msgspec.Struct):
    email: Email
    role: InvitableRole = "member"
    workspaceIds: list[Id] = msgspec.field(default_factory=list)


class RemoveMemberInput(msgspec.Struct):
    userId: Id
    reassignTo: Id | None = None


class UpdateRoleInput(msgspec.Struct):
    userId: Id
    role: MemberRole


class AcceptInvitationInput(msgspec.Struct):
    token: Annotated[str, msgspec.Meta(min_length=10, max_length=200)]
    name: ProfileName
    password: Password


GET = declare("organizations.get", "query", EmptyInput, key_scope="read:members",
              summary="The caller's organization")
UPDATE = declare("organizations.update", "mutation", UpdateOrganizationInput, min_role=Role.ADMIN,
                 key_scope="manage_settings", token_scope="admin", summary="Change organization settings")
MEMBERS_LIST = declare("organizations.members.list", "query", ListMembersInput, key_scope="read:members",
                       summary="Members and pending invitations, newest first")
MEMBERS_INVITE = declare("organizations.members.invite", "mutation", InviteInput, min_role=Role.ADMIN,
                         key_scope="manage_settings", token_scope="admin",
                         summary="Invite someone by e-mail; the token is e-mailed")
MEMBERS_REMOVE = declare("organizations.members.remove", "mutation", RemoveMemberInput, min_role=Role.ADMIN,
                         key_scope="manage_settings", token_scope="admin", summary="Remove a member")
MEMBERS_UPDATE_ROLE = declare("organizations.members.updateRole", "mutation", UpdateRoleInput,
                              min_role=Role.ADMIN, key_scope="manage_settings", token_scope="admin",
                              summary="Change a member's role")
