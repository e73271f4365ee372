"""Every declared procedure says what a bearer credential needs: a token scope from the spec's token
scopes and an API-key scope that is either any-key (None) or one of the spec's key scopes (docs/scopes.md)."""

from __future__ import annotations

import server.domains  # noqa: F401  (imports every protocol module, so REGISTRY is complete)
from protocol.registry import KEY_SCOPES, REGISTRY, TOKEN_SCOPES, Access


def test_every_non_public_procedure_names_known_scopes() -> None:
    for procedure in REGISTRY.values():
        if procedure.access is Access.PUBLIC:
            continue
        assert procedure.token_scope in TOKEN_SCOPES, procedure.name
        assert procedure.key_scope is None or procedure.key_scope in KEY_SCOPES, procedure.name


def test_credential_management_is_session_only() -> None:
    managing = [p for p in REGISTRY.values() if p.name.startswith(("apiKeys.", "auth.tokens."))]
    assert {p.name for p in managing} == {
        "apiKeys.create", "apiKeys.list", "apiKeys.revoke", "apiKeys.rotate", "apiKeys.delete",
        "auth.tokens.create", "auth.tokens.list", "auth.tokens.revoke"}
    assert all(p.session_only for p in managing)


def test_the_activity_trail_needs_read_items_or_read() -> None:
    for name in ("activity.listByOrg", "activity.listByEntity"):
        assert (REGISTRY[name].key_scope, REGISTRY[name].token_scope) == ("read:items", "read")


def test_docs_list_every_procedure() -> None:
    """docs/scopes.md is the published mapping: a new procedure must be added to it."""
    from pathlib import Path

    table = (Path(__file__).parents[3] / "docs" / "scopes.md").read_text(encoding="utf-8")
    missing = [name for name in REGISTRY if f"| `{name}` |" not in table]
    assert missing == []
