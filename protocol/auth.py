"""Identity and profile, and the sign-up / login inputs."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.fields import Email, OrganizationName, Password, ProfileName, Slug, Url
from protocol.registry import Access, EmptyInput, declare


class CheckEmailInput(msgspec.Struct):
    email: Email


class UpdateProfileInput(msgspec.Struct):
    name: ProfileName | None = None
    image: Url | None = None


class SignupInput(msgspec.Struct):
    email: Email
    password: Password
    name: ProfileName
    organizationName: OrganizationName
    organizationSlug: Slug


class LoginInput(msgspec.Struct):
    email: Email
    password: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


CHECK_EMAIL = declare("auth.checkEmail", "query", CheckEmailInput, access=Access.PUBLIC,
                      summary="Whether an e-mail address is free; 409 when it is registered")
ME = declare("auth.me", "query", EmptyInput, access=Access.USER, token_scope="read",
             summary="The signed-in user, with memberships")
UPDATE_PROFILE = declare("auth.updateProfile", "mutation", UpdateProfileInput, access=Access.USER,
                         token_scope="write", summary="Change the signed-in user's name or image")
