"""Reusable constrained field types carrying the spec's limits."""

from __future__ import annotations

from typing import Annotated

import msgspec

EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
SLUG_PATTERN = r"^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$"

Email = Annotated[str, msgspec.Meta(pattern=EMAIL_PATTERN, max_length=254)]
Password = Annotated[str, msgspec.Meta(min_length=8, max_length=200)]
ProfileName = Annotated[str, msgspec.Meta(min_length=2, max_length=100)]
OrganizationName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Slug = Annotated[str, msgspec.Meta(pattern=SLUG_PATTERN)]
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Cursor = Annotated[str, msgspec.Meta(max_length=512)]
Url = Annotated[str, msgspec.Meta(max_length=2048)]
PlanName = Annotated[str, msgspec.Meta(pattern=r"^(free|starter|business|enterprise)$")]
RoleName = Annotated[str, msgspec.Meta(pattern=r"^(owner|admin|member|guest)$")]
