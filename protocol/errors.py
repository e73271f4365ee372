"""The one error tree: each error has a machine code, an HTTP status and optional field details.

The web edge renders these in the caller's style (tRPC envelope or REST envelope); nothing else
needs to know about either envelope.
"""

from __future__ import annotations

from typing import Any

import msgspec


class FieldError(msgspec.Struct, frozen=True):
    field: str
    message: str


class ApiError(Exception):
    """Base of every error a caller may see. `code` is the tRPC/RPC code name."""

    code: str = "INTERNAL_SERVER_ERROR"
    status: int = 500
    # REST renders some errors with a code of its own (validation is 422 VALIDATION_ERROR there).
    rest_code: str | None = None
    rest_status: int | None = None

    def __init__(self, message: str, *, details: list[FieldError] | None = None,
                 data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []
        self.data = data or {}


class BadRequest(ApiError):
    code = "BAD_REQUEST"
    status = 400


class ValidationFailed(BadRequest):
    """An input failed its schema: 400 BAD_REQUEST over RPC, 422 VALIDATION_ERROR over REST."""

    rest_code = "VALIDATION_ERROR"
    rest_status = 422

    @classmethod
    def naming(cls, details: list[FieldError], *, data: dict[str, Any] | None = None) -> ValidationFailed:
        """One error for the bad fields in `details`, its message listing each as `field: message`."""
        return cls("; ".join(f"{d.field}: {d.message}" for d in details), details=details, data=data)

    @classmethod
    def of(cls, field: str, message: str) -> ValidationFailed:
        """One bad field."""
        return cls.naming([FieldError(field, message)])


class Unauthorized(ApiError):
    code = "UNAUTHORIZED"
    status = 401


class Forbidden(ApiError):
    code = "FORBIDDEN"
    status = 403


class NotFound(ApiError):
    code = "NOT_FOUND"
    status = 404


class MethodNotSupported(ApiError):
    code = "METHOD_NOT_SUPPORTED"
    status = 405


class Conflict(ApiError):
    code = "CONFLICT"
    status = 409


class PayloadTooLarge(ApiError):
    code = "PAYLOAD_TOO_LARGE"
    status = 413


class UnsupportedMediaType(ApiError):
    code = "UNSUPPORTED_MEDIA_TYPE"
    status = 415


class TooManyRequests(ApiError):
    code = "TOO_MANY_REQUESTS"
    status = 429

    def __init__(self, message: str, *, retry_after: int | None = None, details: list[FieldError] | None = None,
                 data: dict[str, Any] | None = None) -> None:
        super().__init__(message, details=details, data=data)
        self.retry_after = retry_after  # seconds, sent as `Retry-After` by the edge when set


class ServiceUnavailable(ApiError):
    """The node is stopping, the database is away, or an actor was deactivated under the caller: safe to retry.
    The message names nothing internal (no actor key, no epoch); the edge sends `Retry-After`."""

    code = "SERVICE_UNAVAILABLE"
    status = 503

    def __init__(self, message: str, *, retry_after: int = 1, details: list[FieldError] | None = None,
                 data: dict[str, Any] | None = None) -> None:
        super().__init__(message, details=details, data=data)
        self.retry_after: int | None = retry_after  # seconds, sent as `Retry-After` by the edge


class InternalError(ApiError):
    code = "INTERNAL_SERVER_ERROR"
    status = 500


# tRPC's JSON-RPC style numbers for each code (as @trpc/server's TRPC_ERROR_CODES_BY_KEY).
TRPC_NUMBERS: dict[str, int] = {
    "PARSE_ERROR": -32700,
    "BAD_REQUEST": -32600,
    "INTERNAL_SERVER_ERROR": -32603,
    "UNAUTHORIZED": -32001,
    "FORBIDDEN": -32003,
    "NOT_FOUND": -32004,
    "METHOD_NOT_SUPPORTED": -32005,
    "TIMEOUT": -32008,
    "CONFLICT": -32009,
    "PRECONDITION_FAILED": -32012,
    "PAYLOAD_TOO_LARGE": -32013,
    "UNSUPPORTED_MEDIA_TYPE": -32015,
    "UNPROCESSABLE_CONTENT": -32022,
    "TOO_MANY_REQUESTS": -32029,
    "CLIENT_CLOSED_REQUEST": -32099,
    "SERVICE_UNAVAILABLE": -32603,
}
