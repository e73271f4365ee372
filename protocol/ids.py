"""Ids, secrets and timestamps as they appear on the wire.

Ids are a prefix from `Prefix` plus 20 random base32 characters; timestamps are ISO 8601 UTC with
milliseconds (`2026-11-21T10:00:00.000Z`).
"""

from __future__ import annotations

import hashlib
import os
import threading
from datetime import UTC, datetime
from enum import StrEnum, unique

import msgspec


@unique
class Prefix(StrEnum):
    """Every id prefix the server mints, each once: those the spec lists as it spells them,
    the rest for resources the spec does not name. An id is `<prefix>_<random>`; rows made before a prefix
    changed keep theirs, so nothing may tell a resource by its id's prefix alone."""

    ORGANIZATION = "org"
    USER = "usr"
    INVITATION = "inv"
    WORKSPACE = "wsp"
    PROJECT = "prj"
    BOARD = "brd"
    GROUP = "grp"
    COLUMN = "col"
    LABEL = "lbl"
    ITEM = "itm"
    COMMENT = "cmt"
    FILE = "file"
    ACTIVITY = "atv"
    NOTIFICATION = "ntf"
    EMAIL = "eml"
    EVENT = "evt"
    AUTOMATION = "aut"
    AUTOMATION_EXECUTION = "exe"
    AUTOMATION_MANUAL_RUN = "run"
    AUTOMATION_HOOK_CALL = "hook"
    AUTOMATION_JOB = "ajb"  # minted in SQL, by automation_job_id() (storage/migrations/0012)
    KPI = "kpi"
    KPI_VALUE = "kpv"
    KPI_ALERT = "alt"
    KPI_TARGET = "tgt"
    ACTION = "act"
    ESCALATION = "esc"
    PROBLEM_SHEET = "ps"
    STANDARD_WORK_CHECKLIST = "cl"
    STANDARD_WORK_STEP = "cli"
    STANDARD_WORK_COMPLETION = "comp"
    AUDIT_CHECKLIST = "chk"
    AUDIT_QUESTION = "aqi"
    AUDIT = "aud"
    MEETING = "mtg"
    FORM = "frm"
    FORM_SUBMISSION = "sub"
    FORM_CODE = "otp"
    DISTRIBUTION_RECIPIENT = "dr"
    APPROVAL_FLOW = "flow"
    APPROVAL_REQUEST = "req"
    APPROVAL_DECISION = "dec"
    APPROVAL_ACTION_RUN = "aar"
    TEMPLATE = "tpl"
    IMPORT = "imp"
    WEBHOOK = "whk"
    WEBHOOK_DELIVERY = "whd"  # minted in SQL, by webhook_delivery_id() (storage/migrations/0009)
    PERSONAL_TOKEN = "tok"
    API_KEY = "key"
    MCP_KEY = "mcp"
    DISPLAY = "dsp"  # a display link (a wall screen's credential)
    OAUTH_APP = "oap"
    OAUTH_CLIENT = "oac"
    OAUTH_GRANT = "ogr"
    OAUTH_ACCESS_TOKEN = "oat"
    OAUTH_REFRESH_TOKEN = "ort"
    SUBSCRIPTION = "bsub"
    CHECKOUT_SESSION = "cs"
    PORTAL_SESSION = "bps"
    HTTP_REQUEST = "rid"


# Each random byte becomes the base32 character of its low 5 bits (256 is a multiple of 32, so every
# character is equally likely): one C-level translate instead of base64.b32encode's Python loop, which
# cost several per cent of a write request (an id per request, event and activity row).
_BASE32 = b"abcdefghijklmnopqrstuvwxyz234567" * 8
_encode_json = msgspec.json.Encoder().encode


# Random bytes are drawn from the OS a few KB at a time: one getrandom() call per id cost as much as the
# rest of new_id. The lock keeps two threads from taking the same bytes; a forked child starts afresh, with a
# new lock too (one another thread held at the fork would stay held in the child, whose every id would wait).
_POOL_BYTES = 4000
_pool = b""
_taken = _POOL_BYTES
_pool_lock = threading.Lock()


def _drop_pool() -> None:
    global _taken, _pool_lock
    _taken, _pool_lock = _POOL_BYTES, threading.Lock()


os.register_at_fork(after_in_child=_drop_pool)


def _random_bytes(count: int) -> bytes:
    global _pool, _taken
    with _pool_lock:
        if _taken + count > _POOL_BYTES:
            _pool, _taken = os.urandom(_POOL_BYTES), 0
        _taken += count
        return _pool[_taken - count:_taken]


def new_id(prefix: Prefix) -> str:
    """`<prefix>_` + 20 lowercase base32 characters (100 random bits)."""
    return f"{prefix}_{_random_bytes(20).translate(_BASE32).decode('ascii')}"


def derived_id(prefix: Prefix, *parts: str) -> str:
    """An id of `new_id`'s form that the same parts always give, for a write that may be sent again and must be
    recognised as the same (100 bits of SHA-256; the parts hold a random id, so ids stay unguessable)."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()[:20]
    return f"{prefix}_{digest.translate(_BASE32).decode('ascii')}"


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime | None) -> str | None:
    """Render a datetime as ISO 8601 UTC with milliseconds and a `Z`; None stays None."""
    if moment is None:
        return None
    # msgspec writes an aware datetime in C (`"YYYY-MM-DDTHH:MM:SS[.ffffff]Z"` in UTC), ten times faster
    # than strftime, which made up most of the cost of items.list (two timestamps per item).
    text = _encode_json(moment.astimezone(UTC))
    return text[1:24].decode("ascii") + "Z" if len(text) > 22 else text[1:20].decode("ascii") + ".000Z"


def parse_iso(text: str) -> datetime:
    """Parse an ISO 8601 timestamp; a naive one is taken as UTC. Raises ValueError."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
