"""REST paths of the platform procedures: the caller's profile and the e-mail check."""

from __future__ import annotations

from typing import Any

from web.rest import RestRoute

_REST_USER_FIELDS = ("id", "name", "email", "image", "createdAt", "updatedAt")


def rest_user(user: dict[str, Any]) -> dict[str, Any]:
    """auth.me over REST shows the plain user; over RPC it adds `avatar` and `memberships[]`."""
    return {name: user[name] for name in _REST_USER_FIELDS}


PLATFORM_ROUTES = [
    RestRoute("GET", "/api/v1/auth/check-email", "auth.checkEmail"),
    RestRoute("GET", "/api/v1/auth/me", "auth.me", view=rest_user),
    RestRoute("PATCH", "/api/v1/auth/me", "auth.updateProfile"),
]
