"""May this caller run this procedure? Credential, membership, role, plan and scope checks, in that order,
before any handler runs. Missing or invalid credential is 401; everything else that refuses is 403."""

from __future__ import annotations

from protocol import displays
from protocol.caller import Caller, CredentialKind
from protocol.errors import BadRequest, Forbidden, Unauthorized
from protocol.plans import plan
from protocol.registry import Access, Procedure

# Credentials gated by the plan's API access (docs/scopes.md, rule 4); an OAuth token's scopes
# are personal-token scopes, checked as a personal token's are.
BEARER = (CredentialKind.API_KEY, CredentialKind.PERSONAL_TOKEN, CredentialKind.OAUTH_TOKEN)


# `read:items` reads "boards, items, KPIs, actions" (docs/scopes.md, rule 2), `write:items` creates and modifies them.
_COVERED_BY = {"kpis": "items", "actions": "items"}


def key_scope_granted(needed: str | None, granted: tuple[str, ...], *, is_query: bool = True) -> bool:
    """Empty scopes are full access; a `write:x` scope includes `read:x`; the items scopes include the KPI and
    action scopes of the same verb. A procedure that names no key scope concerns the key's own user: any key
    may read, only a full-access key may change."""
    if not granted:
        return True
    if needed is None:
        return is_query
    if needed in granted:
        return True
    verb, _, area = needed.partition(":")
    if not area:
        return False
    verbs = ("read", "write") if verb == "read" else (verb,)
    areas = (area, _COVERED_BY[area]) if area in _COVERED_BY else (area,)
    return any(f"{v}:{a}" in granted for v in verbs for a in areas)


def authorize(procedure: Procedure, caller: Caller) -> None:
    if procedure.access is Access.PUBLIC:
        return
    if caller.user_id is None:
        raise Unauthorized("authentication required")
    display = caller.credential is CredentialKind.DISPLAY
    if display and procedure.name not in displays.DISPLAY_PROCEDURES:
        raise Forbidden(f"a display link may not call {procedure.name}: it reads its board and runs the board's "
                        "meetings only")
    if procedure.session_only and caller.credential is not CredentialKind.SESSION:
        raise Forbidden("this operation needs a signed-in session; keys and tokens cannot perform it")
    if procedure.access is Access.ORG:
        if caller.organization is None:
            raise BadRequest("this operation needs an organization: call it on <org>.<service host>")
        if caller.role is None:
            raise Forbidden("not a member of this organization")
        # A display reads itself (displays.get answers it about no other) whatever its creator's role.
        if caller.role < procedure.min_role and not (display and procedure is displays.GET):
            raise Forbidden(f"needs the {procedure.min_role.label} role or higher")
        if procedure.feature is not None and procedure.feature not in plan(caller.organization.plan).features:
            raise Forbidden(f"the {caller.organization.plan} plan does not include {procedure.feature}")
    if caller.credential in BEARER:
        if caller.organization is not None and not plan(caller.organization.plan).api_access:
            raise Forbidden("the organization's plan does not include API access")
        if caller.credential is CredentialKind.API_KEY:
            if not key_scope_granted(procedure.key_scope, caller.scopes, is_query=procedure.is_query):
                raise Forbidden(f"API key lacks scope {procedure.key_scope or 'full access'}")
        elif procedure.token_scope is not None and procedure.token_scope not in caller.scopes:
            raise Forbidden(f"token lacks scope {procedure.token_scope}")
