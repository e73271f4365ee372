"""Imports every module that implements procedures, so that the handler table is complete."""

from actors.services import accounts  # noqa: F401
from actors.services import activity, api_keys, personal_tokens  # noqa: F401
from actors.services import notifications  # noqa: F401
from actors.services import organizations  # noqa: F401
