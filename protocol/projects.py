"""Projects: the level between a workspace and its boards; and `boards.list`, the
boards of a project, read from the projects' side."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType

from protocol.fields import Cursor, Id
from protocol.registry import Role, declare
from protocol.workspaces import READ, WRITE, Description

ProjectName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class ListProjectsInput(msgspec.Struct):
    workspaceId: Id
    cursor: Cursor | None = None
    limit: int | None = None


class ProjectIdInput(msgspec.Struct):
    id: Id


class CreateProjectInput(msgspec.Struct):
    workspaceId: Id
    name: ProjectName
    description: Description | None = None


class UpdateProjectInput(msgspec.Struct):
    """Absent fields stay as they are; `description` may be set to null to clear it."""

    id: Id
    name: ProjectName | None = None
    description: Description | None | UnsetType = UNSET


class ListBoardsInput(msgspec.Struct):
    projectId: Id
    cursor: Cursor | None = None
    limit: int | None = None


LIST = declare("projects.list", "query", ListProjectsInput, key_scope=READ,
               summary="A workspace's projects, newest first")
GET = declare("projects.get", "query", ProjectIdInput, key_scope=READ, summary="A project with its boards")
CREATE = declare("projects.create", "mutation", CreateProjectInput, key_scope=WRITE, min_role=Role.MEMBER,
                 summary="Create a project in a workspace")
UPDATE = declare("projects.update", "mutation", UpdateProjectInput, key_scope=WRITE, min_role=Role.MEMBER,
                 summary="Rename a project or change its description")
DELETE = declare("projects.delete", "mutation", ProjectIdInput, key_scope=WRITE, token_scope="delete",
                 min_role=Role.MEMBER, summary="Delete a project with its boards and their items")
BOARDS_LIST = declare("boards.list", "query", ListBoardsInput, key_scope=READ,
                      summary="A project's boards, newest first")
