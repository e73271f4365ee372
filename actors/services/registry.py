"""Imports every module that implements procedures, so that the handler table is complete."""

from actors.services import accounts  # noqa: F401
