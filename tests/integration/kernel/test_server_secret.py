"""The keys derived from the server's secret (actors/kernel/server_secret.py) are the ones each purpose derived
on its own before: values sealed, tokens and codes digested and cookies signed earlier stay valid, whether the
secret is OBEYA_SECRET_KEY or the key stored in the database."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

import asyncpg
import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from actors.forms import keyed
from actors.identity import device_cookies
from actors.kernel import sealing
from actors.kernel.server_secret import derived_key
from storage import mail


def _hkdf(material: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(material)


@pytest.mark.parametrize("configured", [None, "a-configured-secret-key-of-32-characters-or-more"])
async def test_each_purpose_keeps_the_key_it_derived_before(pool: asyncpg.Pool, configured: str | None) -> None:
    async def material(name: str) -> bytes:
        return configured.encode() if configured else await mail.secret_key(pool, name, secrets.token_bytes(32))

    # Sealed e-mail links: Fernet under HKDF(info "obeya sealed mail").
    old_fernet = Fernet(base64.urlsafe_b64encode(_hkdf(await material(sealing.KEY_NAME), b"obeya sealed mail")))
    assert await sealing.open_sealed(pool, old_fernet.encrypt(b"invitation link"), configured) == "invitation link"
    # Forms' keyed digests: HMAC sub-keys named by purpose.
    sub_key = hmac.new(await material(keyed.KEY_NAME), b"obeya forms otp", hashlib.sha256).digest()
    old_code = hmac.new(sub_key, b"form_1\na@x.test\n123456", hashlib.sha256).hexdigest()
    assert await keyed.code_hash(pool, configured, "form_1", "a@x.test", "123456") == old_code
    # Device cookies: HKDF(info "obeya device cookie").
    assert await derived_key(pool, configured, device_cookies.KEY_NAME, b"obeya device cookie") == \
        _hkdf(await material(device_cookies.KEY_NAME), b"obeya device cookie")
