"""Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser that signed in to
an account with its password carries a cookie binding that account to a random nonce, signed by the server.
A sign-in attempt presenting a valid cookie of the same account is throttled per device
(actors/identity/throttle.py `DEVICE`), not by the account's backoff, so a stranger's wrong passwords never
delay the owner on a browser the owner used before; any other attempt (no cookie, a forged one, another
account's) keeps the per-account backoff.

The cookie is `<nonce>.<signature>`: the nonce is `secrets.token_urlsafe`, the signature HMAC-SHA256 over the
nonce, the normalised e-mail and a SHA-256 of the account's stored password hash, so the cookie does not show
which account it is for, fits no other, and a password change revokes every device cookie of the account. The
HMAC key is derived (HKDF-SHA256) from the node's `secret_key` (`OBEYA_SECRET_KEY`), or from a key generated
once and kept in the database's `secret_keys`, shared by every node (actors/kernel/server_secret.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from datetime import timedelta

from actors.identity.throttle import account_key
from actors.kernel.node import Node
from actors.kernel.server_secret import derived_key

DEVICE_COOKIE = "obeya.device"
LIFETIME = timedelta(days=365)
KEY_NAME = "device-cookie"


async def signing_key(node: Node) -> bytes:
    """The key device cookies are signed with: read once per sign-in, for the check and the new cookie alike."""
    return await derived_key(node.pool, node.settings.secret_key, KEY_NAME, b"obeya device cookie")


def _signature(key: bytes, nonce: str, email: str, password_hash: str) -> str:
    # A digest of the hash, not the hash: the HMAC input then holds nothing a bcrypt cracker could use.
    password = hashlib.sha256(password_hash.encode()).hexdigest()
    digest = hmac.new(key, f"{nonce}:{account_key(email)}:{password}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def issue(key: bytes, email: str, password_hash: str) -> str:
    """A new device cookie's value for the account `email` (whose stored password hash is `password_hash`), on
    the browser that just proved its password; `key` from `signing_key`."""
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_signature(key, nonce, email, password_hash)}"


def device_of(key: bytes, cookie: str | None, email: str, password_hash: str) -> str | None:
    """The device nonce of `cookie` when it is a valid device cookie of the account `email` under its current
    password (`password_hash`, as stored); None otherwise (no cookie, a malformed or forged one, another
    account's, one issued before the password changed)."""
    if not cookie:
        return None
    nonce, _, signature = cookie.partition(".")
    if not nonce or not signature:
        return None
    expected = _signature(key, nonce, email, password_hash)
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        return None
    return nonce
