"""The verified-credential cache forgets a credential at once on revoke, also when a verification that
began before the revoke finishes after it."""

from __future__ import annotations

from actors.kernel.credential_cache import (
    CACHE_SECONDS,
    SESSION_CACHE_SECONDS,
    SESSIONS_PRUNED_FROM,
    CredentialCache,
    VerifiedCredential,
)
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


def test_a_logged_out_session_is_not_put_back_by_a_lookup_that_read_it_before() -> None:
    clock = ManualClock()
    cache = CredentialCache(clock)
    cache.put_session("session", "usr_1", "u@example.test")
    cache.drop_session("session")
    cache.put_session("session", "usr_1", "u@example.test")  # a request that read the row before the logout
    assert cache.get_session("session") is None
    clock.advance(SESSION_CACHE_SECONDS + 1)  # long after: a digest is never reused, but nothing is kept
    cache.put_session("other", "usr_2", "v@example.test")
    assert cache.get_session("other") == ("usr_2", "v@example.test", None)


def test_sessions_that_never_come_back_are_not_kept_for_good() -> None:
    clock = ManualClock()
    cache = CredentialCache(clock)
    for n in range(10 * SESSIONS_PRUNED_FROM):
        cache.put_session(f"session_{n}", "usr_1", "u@example.test")
        clock.advance(1.0)  # each one stale a few puts later
    assert len(cache._sessions) <= 2 * SESSIONS_PRUNED_FROM
    assert cache.get_session(f"session_{10 * SESSIONS_PRUNED_FROM - 1}") == ("usr_1", "u@example.test", None)


def test_a_secret_stays_proven_against_its_hash_only() -> None:
    clock = ManualClock()
    cache = CredentialCache(clock)
    cache.prove("digest", "hash_1")
    cache.put("digest", KEY)
    clock.advance(CACHE_SECONDS + 1)
    assert cache.get("digest") is None  # the entry expired: the row is read again
    assert cache.proven("digest", "hash_1")  # but bcrypt need not run again for the same hash
    assert not cache.proven("digest", "hash_2")  # a rotated key's new hash is verified anew
    assert not cache.proven("other", "hash_1")
