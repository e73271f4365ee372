"""Keyed digests of the forms' respondent secrets: the tracking token a recipient's link carries is derived
from the recipient's id (so a reminder sends the same link again while the database keeps only its SHA-256),
and one-time codes are stored as an HMAC (a 6-digit code's plain hash is reversed by trying all 10^6).

The key is the node's `secret_key` (`OBEYA_SECRET_KEY`) when set, else one generated on first use and kept in
the database's `secret_keys` table, shared by every node (actors/kernel/server_secret.py); each purpose
gets its own sub-key, an HMAC of its name (kept so: existing tokens and codes stay valid)."""

from __future__ import annotations

import base64
import hashlib
import hmac

from actors.kernel.server_secret import secret_material
from storage.connection import Conn

KEY_NAME = "forms"


async def _key(conn: Conn, configured: str | None, purpose: str) -> bytes:
    material = await secret_material(conn, configured, KEY_NAME)
    return hmac.new(material, f"obeya forms {purpose}".encode(), hashlib.sha256).digest()


async def digest(conn: Conn, configured: str | None, purpose: str, message: str) -> bytes:
    """HMAC-SHA256 of `message` under the forms key's sub-key for `purpose`."""
    return hmac.new(await _key(conn, configured, purpose), message.encode(), hashlib.sha256).digest()


async def tracking_token(conn: Conn, configured: str | None, recipient_id: str) -> str:
    """The tracking token of a distribution recipient: 43 URL-safe characters (256 bits)."""
    raw = await digest(conn, configured, "recipient token", recipient_id)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def code_hash(conn: Conn, configured: str | None, form_id: str, email: str, code: str) -> str:
    """A one-time code's stored form, bound to its form and e-mail."""
    return (await digest(conn, configured, "otp", f"{form_id}\n{email}\n{code}")).hex()
