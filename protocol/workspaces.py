"""Workspaces and their members: inputs with the spec's limits, and the nine procedures."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from protocol.fields import Cursor, Id
from protocol.registry import Role, declare

WorkspaceName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
# The spec gives no limit; 2000 is the longest description it states anywhere (checklists).
Description = Annotated[str, msgspec.Meta(max_length=2000)]
HexColor = Annotated[str, msgspec.Meta(pattern=r"^#[0-9A-Fa-f]{6}$")]
# An icon is an identifier (e.g. `factory`, `lucide:wrench`), never markup or a URL.
Icon = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")]
Visibility = Literal["open", "closed"]
WorkspaceRole = Literal["member", "admin"]
Search = Annotated[str, msgspec.Meta(max_length=100)]


class ListWorkspacesInput(msgspec.Struct):
    cursor: Cursor | None = None
    limit: int | None = None
    search: Search | None = None
    includeArchived: bool = False


class WorkspaceIdInput(msgspec.Struct):
    id: Id


class CreateWorkspaceInput(msgspec.Struct):
    name: WorkspaceName
    description: Description | None = None
    color: HexColor | None = None
    icon: Icon | None = None
    visibility: Visibility = "open"


class UpdateWorkspaceInput(msgspec.Struct):
    """Absent fields stay as they are; `description` and `icon` may be set to null to clear them."""

    id: Id
    name: WorkspaceName | None = None
    description: Description | None | UnsetType = UNSET
    color: HexColor | None = None
    icon: Icon | None | UnsetType = UNSET
    visibility: Visibility | None = None


class AddWorkspaceMemberInput(msgspec.Struct):
    workspaceId: Id
    userId: Id
    role: WorkspaceRole = "member"


class RemoveWorkspaceMemberInput(msgspec.Struct):
    workspaceId: Id
    userId: Id


READ, WRITE = "read:items", "write:items"

LIST = declare("workspaces.list", "query", ListWorkspacesInput, key_scope=READ,
               summary="The workspaces the caller can access, newest first")
GET = declare("workspaces.get", "query", WorkspaceIdInput, key_scope=READ,
              summary="A workspace with its members and projects")
CREATE = declare("workspaces.create", "mutation", CreateWorkspaceInput, key_scope=WRITE, min_role=Role.ADMIN,
                 summary="Create a workspace; the creator becomes its admin")
UPDATE = declare("workspaces.update", "mutation", UpdateWorkspaceInput, key_scope=WRITE, min_role=Role.MEMBER,
                 summary="Change a workspace's settings (workspace admins)")
DELETE = declare("workspaces.delete", "mutation", WorkspaceIdInput, key_scope="manage_settings",
                 token_scope="delete", min_role=Role.ADMIN,
                 summary="Delete a workspace with every project, board and item in it, irreversibly")
ARCHIVE = declare("workspaces.archive", "mutation", WorkspaceIdInput, key_scope=WRITE, min_role=Role.MEMBER,
                  summary="Hide a workspace from lists without deleting data (workspace admins)")
RESTORE = declare("workspaces.restore", "mutation", WorkspaceIdInput, key_scope=WRITE, min_role=Role.MEMBER,
                  summary="Bring an archived workspace back (workspace admins)")
MEMBERS_ADD = declare("workspaces.members.add", "mutation", AddWorkspaceMemberInput, key_scope=WRITE,
                      min_role=Role.MEMBER, summary="Add an organization member, or change their workspace role")
MEMBERS_REMOVE = declare("workspaces.members.remove", "mutation", RemoveWorkspaceMemberInput, key_scope=WRITE,
                         min_role=Role.MEMBER, summary="Remove a member from a workspace")
