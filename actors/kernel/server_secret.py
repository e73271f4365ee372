"""The server's secret for keys it derives (sealed e-mail links, forms' keyed digests, device cookies): the
node's `secret_key` (`OBEYA_SECRET_KEY`, kept outside the database) when set, else a key generated on first use
and kept under its name in the database's `secret_keys`, so every node reads the same one. Each purpose derives
its own key from it (here by HKDF, or as it always has: actors/forms/keyed.py and the billing callbacks'
secret by HMAC, the latter using its stored key as is), so no purpose's key is another's and what was keyed
before stays valid."""

from __future__ import annotations

import secrets

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from storage import mail
from storage.connection import Conn


async def secret_material(conn: Conn, configured: str | None, name: str) -> bytes:
    """`configured` (the node's `secret_key`) as bytes when set, else the stored key `name`, made on first use."""
    if configured is not None:
        return configured.encode()
    return await mail.secret_key(conn, name, secrets.token_bytes(32))


async def derived_key(conn: Conn, configured: str | None, name: str, info: bytes) -> bytes:
    """32 bytes derived with HKDF-SHA256 (no salt, `info` naming the purpose) from `secret_material`."""
    material = await secret_material(conn, configured, name)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(material)
