"""Imports every module that implements procedures, so that the handler table is complete."""

from actors.services import (  # noqa: F401
    accounts,  # noqa: F401
    activity,
    api_keys,
    notifications,  # noqa: F401
    organizations,  # noqa: F401
    personal_tokens,
)
