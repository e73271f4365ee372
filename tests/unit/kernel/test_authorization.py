"""The authorization rules applied before every handler: 401 for a missing credential, 403 for role,
session-only, plan (API access, features) and scope refusals."""

from __future__ import annotations

import pytest

from actors.kernel.authorization import authorize, key_scope_granted
from protocol.caller import Caller, CredentialKind, Organization
from protocol.errors import BadRequest, Forbidden, Unauthorized
from protocol.registry import Access, EmptyInput, Procedure, Role


def _procedure(**overrides: object) -> Procedure:
    fields: dict[str, object] = {"name": "test.proc", "kind": "query", "input": EmptyInput, "summary": "t",
                                 "token_scope": "read"}
    fields.update(overrides)
    return Procedure(**fields)  # type: ignore[arg-type]


def _caller(plan: str = "business", role: Role | None = Role.MEMBER,
            credential: CredentialKind = CredentialKind.SESSION, scopes: tuple[str, ...] = ()) -> Caller:
    return Caller(request_id="r", organization=Organization("org_1", "acme", "Acme", plan), user_id="usr_1",
                  role=role, credential=credential, credential_id="c", scopes=scopes)


def test_public_needs_nothing() -> None:
    authorize(_procedure(access=Access.PUBLIC), Caller(request_id="r"))


def test_missing_credential_is_401() -> None:
    with pytest.raises(Unauthorized):
        authorize(_procedure(access=Access.USER), Caller(request_id="r"))


def test_org_procedure_needs_org_host_and_membership() -> None:
    with pytest.raises(BadRequest):
        authorize(_procedure(), Caller(request_id="r", user_id="usr_1", credential=CredentialKind.SESSION))
    with pytest.raises(Forbidden):
        authorize(_procedure(), _caller(role=None))


def test_role_below_minimum_is_403() -> None:
    with pytest.raises(Forbidden):
        authorize(_procedure(min_role=Role.ADMIN), _caller(role=Role.MEMBER))
    authorize(_procedure(min_role=Role.ADMIN), _caller(role=Role.OWNER))


def test_session_only_refuses_bearers() -> None:
    with pytest.raises(Forbidden):
        authorize(_procedure(session_only=True), _caller(credential=CredentialKind.API_KEY))
    authorize(_procedure(session_only=True), _caller())


def test_bearer_needs_api_access_plan_but_session_does_not() -> None:
    with pytest.raises(Forbidden):
        authorize(_procedure(), _caller(plan="starter", credential=CredentialKind.API_KEY))
    authorize(_procedure(), _caller(plan="free"))


def test_plan_feature_gate() -> None:
    with pytest.raises(Forbidden):
        authorize(_procedure(feature="kpis"), _caller(plan="free"))
    authorize(_procedure(feature="kpis"), _caller(plan="starter"))


def test_api_key_scopes() -> None:
    assert key_scope_granted("read:items", ())
    assert key_scope_granted("read:items", ("write:items",))
    assert not key_scope_granted("write:items", ("read:items",))
    assert key_scope_granted(None, ("read:items",), is_query=True)
    assert not key_scope_granted(None, ("read:items",), is_query=False)
    assert key_scope_granted(None, (), is_query=False)
    # The items scopes cover KPIs and actions (docs/scopes.md); the KPI and action scopes do not cover items.
    assert key_scope_granted("read:kpis", ("read:items",)) and key_scope_granted("write:actions", ("write:items",))
    assert key_scope_granted("read:actions", ("write:items",))
    assert not key_scope_granted("write:kpis", ("read:items",))
    assert not key_scope_granted("read:items", ("read:kpis",))
    assert not key_scope_granted("manage_settings", ("write:items",))
    with pytest.raises(Forbidden):
        authorize(_procedure(key_scope="read:kpis"), _caller(credential=CredentialKind.API_KEY,
                                                             scopes=("read:actions",)))
    authorize(_procedure(key_scope="read:kpis"), _caller(credential=CredentialKind.API_KEY, scopes=("read:items",)))
    authorize(_procedure(key_scope="read:kpis"), _caller(credential=CredentialKind.API_KEY, scopes=()))


def test_token_scopes() -> None:
    with pytest.raises(Forbidden):
        authorize(_procedure(kind="mutation", token_scope="write"),
                  _caller(credential=CredentialKind.PERSONAL_TOKEN, scopes=("read",)))
    authorize(_procedure(), _caller(credential=CredentialKind.PERSONAL_TOKEN, scopes=("read",)))
