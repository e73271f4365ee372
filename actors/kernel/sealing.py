"""Sealing secrets kept at rest until they are used (the invitation link inside a queued e-mail).

Authenticated encryption with the `cryptography` package's Fernet (AES-128-CBC + HMAC-SHA256): a sealed
value can be opened only with the key and any change to it is detected. The key comes from
`OBEYA_SECRET_KEY` when set (any string of at least 32 characters, kept outside the database); otherwise
one is generated on first use and kept in the database's `secret_keys` table, shared by every node
(docs/decisions.md, "Secrets in stored e-mails"). Either way the Fernet key is derived with HKDF-SHA256,
so a change of `OBEYA_SECRET_KEY` makes older sealed values unopenable rather than misread.
"""

from __future__ import annotations

import base64
import os
import secrets
from collections.abc import Mapping

import asyncpg
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from storage import mail

KEY_NAME = "mail"
MIN_KEY_LENGTH = 32


class Unopenable(Exception):
    """A sealed value that this key cannot open: sealed under another key, or altered."""


def configured_key(environ: Mapping[str, str] | None = None) -> str | None:
    """`OBEYA_SECRET_KEY`, or None when unset; a key too short to be secret stops the caller."""
    value = (os.environ if environ is None else environ).get("OBEYA_SECRET_KEY") or None
    if value is not None and len(value) < MIN_KEY_LENGTH:
        raise ValueError(f"OBEYA_SECRET_KEY must be at least {MIN_KEY_LENGTH} characters")
    return value


def _fernet(material: bytes) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"obeya sealed mail").derive(material)
    return Fernet(base64.urlsafe_b64encode(derived))


async def _key(conn: asyncpg.Connection | asyncpg.Pool) -> Fernet:
    configured = configured_key()
    if configured is not None:
        return _fernet(configured.encode())
    return _fernet(await mail.secret_key(conn, KEY_NAME, secrets.token_bytes(32)))


async def seal(conn: asyncpg.Connection | asyncpg.Pool, text: str) -> bytes:
    return (await _key(conn)).encrypt(text.encode())


async def open_sealed(conn: asyncpg.Connection | asyncpg.Pool, sealed: bytes) -> str:
    try:
        return (await _key(conn)).decrypt(bytes(sealed)).decode()
    except InvalidToken:
        raise Unopenable("sealed under another key (was OBEYA_SECRET_KEY changed?) or altered") from None
