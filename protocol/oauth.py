"""OAuth 2.0 applications (docs/sign-in.md): inputs and procedure declarations.

Managing applications is for organization admins with a session: a token that could register applications or
read their secrets would be a privilege escalation. The scopes an app may ask for are the personal-token scopes.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.credentials import TokenScope
from protocol.fields import Id
from protocol.registry import TOKEN_SCOPES, EmptyInput, Role, declare

ACCESS_TOKEN_PREFIX = "svc_oat_"
REFRESH_TOKEN_PREFIX = "svc_ort_"
AppName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
RedirectUri = Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]
RedirectUris = Annotated[list[RedirectUri], msgspec.Meta(min_length=1, max_length=10)]
AppScopes = Annotated[list[TokenScope], msgspec.Meta(min_length=1, max_length=len(TOKEN_SCOPES))]


class CreateOAuthAppInput(msgspec.Struct):
    name: AppName
    redirectUris: RedirectUris
    scopes: AppScopes
    public: bool = False


class UpdateOAuthAppInput(msgspec.Struct):
    id: Id
    name: AppName | None = None
    redirectUris: RedirectUris | None = None
    scopes: AppScopes | None = None


class OAuthAppIdInput(msgspec.Struct):
    id: Id


LIST_OAUTH_APPS = declare("oauthApps.list", "query", EmptyInput, key_scope="manage_settings", token_scope="admin",
                          min_role=Role.ADMIN, session_only=True,
                          summary="The organization's OAuth applications, without their secrets")
CREATE_OAUTH_APP = declare("oauthApps.create", "mutation", CreateOAuthAppInput, key_scope="manage_settings",
                           token_scope="admin", min_role=Role.ADMIN, session_only=True, returns_secret=True,
                           summary="Register an OAuth application; a confidential app's client secret is "
                                   "returned once")
UPDATE_OAUTH_APP = declare("oauthApps.update", "mutation", UpdateOAuthAppInput, key_scope="manage_settings",
                           token_scope="admin", min_role=Role.ADMIN, session_only=True,
                           summary="Rename an OAuth application or change its redirect URIs or scopes")
ROTATE_OAUTH_APP_SECRET = declare("oauthApps.rotateSecret", "mutation", OAuthAppIdInput,
                                  key_scope="manage_settings", token_scope="admin", min_role=Role.ADMIN,
                                  session_only=True, returns_secret=True,
                                  summary="Issue a new client secret (returned once); the old one stops at once")
DELETE_OAUTH_APP = declare("oauthApps.delete", "mutation", OAuthAppIdInput, key_scope="manage_settings",
                           token_scope="admin", min_role=Role.ADMIN, session_only=True,
                           summary="Delete an OAuth application, revoking every grant and token it holds")
