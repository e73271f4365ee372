"""Single sign-on (docs/sign-in.md): the organization's OpenID Connect settings, read and
changed by admins. The client secret goes in and is never given back (`hasClientSecret` says whether one is
kept)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.registry import EmptyInput, Role, declare

Issuer = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
ClientId = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
ClientSecret = Annotated[str, msgspec.Meta(min_length=1, max_length=1000)]
Domain = Annotated[str, msgspec.Meta(min_length=1, max_length=253)]


class UpdateSsoConfigInput(msgspec.Struct):
    issuer: Issuer
    clientId: ClientId
    enforce: bool = False
    allowedDomains: Annotated[list[Domain], msgspec.Meta(max_length=100)] = msgspec.field(default_factory=list)
    # Optional on an update: without it the kept secret stays.
    clientSecret: ClientSecret | None = None


GET_CONFIG = declare("sso.getConfig", "query", EmptyInput, key_scope="manage_settings", token_scope="admin",
                     min_role=Role.ADMIN,
                     summary="The organization's single sign-on settings (never the client secret)")
UPDATE_CONFIG = declare("sso.updateConfig", "mutation", UpdateSsoConfigInput, key_scope="manage_settings",
                        token_scope="admin", min_role=Role.ADMIN, session_only=True, feature="sso",
                        summary="Set the organization's OpenID Connect provider, enforcement and allowed domains")
