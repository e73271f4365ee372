"""The verified-credential cache forgets a credential at once on revoke, also when a verification that
began before the revoke finishes after it."""

from __future__ import annotations

from actors.kernel.credential_cache import CredentialCache, VerifiedCredential
from actors.runtime.clock import ManualClock

KEY = VerifiedCredential("key_1", "api_key", "org_1", "usr_1", (), None)


def test_drop_forgets_and_refuses_a_late_put() -> None:
    cache = CredentialCache(ManualClock())
    cache.put("digest", KEY)
    assert cache.get("digest") == KEY
    cache.drop("key_1")
    assert cache.get("digest") is None
    cache.put("digest", KEY)  # a bcrypt check that started before the revoke
    assert cache.get("digest") is None


def test_other_credentials_are_unaffected() -> None:
    cache = CredentialCache(ManualClock())
    other = VerifiedCredential("key_2", "api_key", "org_1", "usr_1", (), None)
    cache.drop("key_1")
    cache.put("other", other)
    assert cache.get("other") == other
