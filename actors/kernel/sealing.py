"""Sealing secrets kept at rest until they are used (the invitation link inside a queued e-mail).

Authenticated encryption with the `cryptography` package's Fernet (AES-128-CBC + HMAC-SHA256): a sealed
value can be opened only with the key and any change to it is detected. The key is the node's
`secret_key` (`OBEYA_SECRET_KEY`, read and checked at start-up by server/config.py; kept outside the
database) when set; otherwise one is generated on first use and kept in the database's `secret_keys`
table, shared by every node (actors/kernel/server_secret.py; docs/decisions.md, "Secrets in stored
e-mails"). Either way the Fernet key is derived with HKDF-SHA256, so a change of `OBEYA_SECRET_KEY` makes
older sealed values unopenable rather than misread.
"""

from __future__ import annotations

import base64

import asyncpg
from cryptography.fernet import Fernet, InvalidToken

from actors.kernel.server_secret import derived_key

KEY_NAME = "mail"


class Unopenable(Exception):
    """A sealed value that this key cannot open: sealed under another key, or altered."""


async def _key(conn: asyncpg.Connection | asyncpg.Pool, configured: str | None) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(await derived_key(conn, configured, KEY_NAME, b"obeya sealed mail")))


async def seal(conn: asyncpg.Connection | asyncpg.Pool, text: str, configured: str | None) -> bytes:
    """`text` sealed under the configured key (the node's `secret_key`), or the database's when None."""
    return (await _key(conn, configured)).encrypt(text.encode())


async def open_sealed(conn: asyncpg.Connection | asyncpg.Pool, sealed: bytes, configured: str | None) -> str:
    try:
        return (await _key(conn, configured)).decrypt(bytes(sealed)).decode()
    except InvalidToken:
        raise Unopenable("sealed under another key (was OBEYA_SECRET_KEY changed?) or altered") from None
