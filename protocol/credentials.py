"""API keys and personal access tokens (docs/scopes.md): inputs and procedure declarations.

Managing credentials is session-only: a key or token that could mint or revoke credentials would be a
privilege escalation, so every procedure here sets `session_only=True`. The key and token
scopes below are documentation only for that reason (docs/scopes.md).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

import msgspec

from protocol.fields import Id
from protocol.registry import KEY_SCOPES, TOKEN_SCOPES, EmptyInput, Role, declare

KeyScope = Annotated[str, msgspec.Meta(pattern="^(" + "|".join(map(re.escape, KEY_SCOPES)) + ")$")]
TokenScope = Annotated[str, msgspec.Meta(pattern="^(" + "|".join(map(re.escape, TOKEN_SCOPES)) + ")$")]
CredentialName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
# A lifetime in days, as `30d`; the upper bound is checked by the service (TOKEN_MAX_DAYS).
Duration = Annotated[str, msgspec.Meta(pattern=r"^[1-9][0-9]{0,3}d$")]


class CreateApiKeyInput(msgspec.Struct):
    name: CredentialName
    # Empty (or absent): full access (docs/scopes.md, rule 2).
    scopes: Annotated[list[KeyScope], msgspec.Meta(max_length=len(KEY_SCOPES))] = msgspec.field(
        default_factory=list)
    expiresAt: datetime | None = None


class ApiKeyIdInput(msgspec.Struct):
    id: Id


class CreateTokenInput(msgspec.Struct):
    name: CredentialName
    scopes: Annotated[list[TokenScope], msgspec.Meta(min_length=1, max_length=len(TOKEN_SCOPES))]
    expiresIn: Duration | None = None


class RevokeTokenInput(msgspec.Struct):
    tokenId: Id


CREATE_API_KEY = declare("apiKeys.create", "mutation", CreateApiKeyInput, key_scope="manage_settings",
                         token_scope="admin", min_role=Role.ADMIN, session_only=True, returns_secret=True,
                         summary="Create an API key; the full key is returned once")
LIST_API_KEYS = declare("apiKeys.list", "query", EmptyInput, key_scope="manage_settings", token_scope="admin",
                        min_role=Role.ADMIN, session_only=True,
                        summary="The organization's API keys, without their secrets")
REVOKE_API_KEY = declare("apiKeys.revoke", "mutation", ApiKeyIdInput, key_scope="manage_settings",
                         token_scope="admin", min_role=Role.ADMIN, session_only=True,
                         summary="Revoke an API key for good")
ROTATE_API_KEY = declare("apiKeys.rotate", "mutation", ApiKeyIdInput, key_scope="manage_settings",
                         token_scope="admin", min_role=Role.ADMIN, session_only=True, returns_secret=True,
                         summary="Revoke an API key and issue a new one with the same settings, atomically")
DELETE_API_KEY = declare("apiKeys.delete", "mutation", ApiKeyIdInput, key_scope="manage_settings",
                         token_scope="admin", min_role=Role.ADMIN, session_only=True,
                         summary="Delete an API key record")

CREATE_TOKEN = declare("auth.tokens.create", "mutation", CreateTokenInput, key_scope="manage_settings",
                       token_scope="admin", session_only=True, returns_secret=True,
                       summary="Create a personal access token; the token is returned once")
LIST_TOKENS = declare("auth.tokens.list", "query", EmptyInput, key_scope="manage_settings",
                      token_scope="admin", session_only=True,
                      summary="The caller's personal access tokens, without their values")
REVOKE_TOKEN = declare("auth.tokens.revoke", "mutation", RevokeTokenInput, key_scope="manage_settings",
                       token_scope="admin", session_only=True, summary="Revoke one of the caller's tokens")
