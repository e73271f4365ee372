"""What a procedure may answer instead of success, as the API reference (web/api_reference.py) lists it: each
refusal derived from the procedure's declaration (protocol/registry.py) and the checks every call goes through
before its handler (web/context.py: the host and the credential; actors/kernel/authorization.py: membership,
role, plan, scope; web/inputs.py and protocol/pagination.py: the input; web/idempotency.py; web/rate_limit.py),
plus a status its summary names. Errors a handler raises on its own are not declared anywhere, and are not
listed, but for one: an unknown id, which tests/integration/web/test_api_reference_errors.py checks is 404
for every procedure listed with it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from protocol import errors
from protocol.plans import PLANS
from protocol.registry import Access, Procedure, Role
from web.api_reference_markdown import Schema, code
from web.idempotency_store import HEADER as IDEMPOTENCY_KEY

# Checked by each list itself (protocol/pagination.py), 400 in both styles.
PAGINATION_FIELDS = ("cursor", "limit", "offset")
_ID_FIELD = re.compile(r"^(id|\w+Id)$")
# Procedures with a required id field that do not answer 404 for an unknown one: the trail of an unknown entity
# is empty, a one-time password for an unknown form answers `valid: false` as a wrong one does, and `clientId` is
# the identity provider's, not an Obeya id.
_NO_NOT_FOUND = frozenset({"activity.listByEntity", "forms.verifyOtp", "sso.updateConfig"})
_STATUS_IN_SUMMARY = re.compile(r"\b([45]\d\d)\b")
_CODES = {cls.status: cls.code for cls in vars(errors).values()
          if isinstance(cls, type) and issubclass(cls, errors.ApiError) and cls is not errors.ValidationFailed}


@dataclass(frozen=True)
class Refusal:
    status: str     # "403", or "400 (RPC) / 422 (REST)"
    code: str
    when: str


def plans_with(feature: str) -> list[str]:
    return [plan.name for plan in PLANS.values() if feature in plan.features]


def plans_without_api_access() -> list[str]:
    return [plan.name for plan in PLANS.values() if not plan.api_access]


def id_fields(input_schema: Schema) -> list[str]:
    """The required fields of an input that name a resource by its id (`id`, `boardId`, ...)."""
    return [name for name in input_schema.get("required", ()) if _ID_FIELD.match(name)
            and input_schema["properties"][name].get("type") == "string"]


def answers_not_found(procedure: Procedure, input_schema: Schema) -> bool:
    """Whether the procedure answers 404 NOT_FOUND when an id of its input names nothing in the organization."""
    return bool(id_fields(input_schema)) and procedure.name not in _NO_NOT_FOUND


def _key_scope(procedure: Procedure) -> list[Refusal]:
    if procedure.key_scope is not None:
        return [Refusal("403", "FORBIDDEN", f"an API key without the {code(procedure.key_scope)} scope (or one "
                                            "that includes it)")]
    if procedure.is_query:  # any key of the organization may read its own user's things
        return []
    return [Refusal("403", "FORBIDDEN", "an API key with scopes: only a full-access key (no scopes) may call it")]


def refusals(procedure: Procedure, input_schema: Schema) -> list[Refusal]:
    """Every refusal the procedure's declaration and input imply, by status."""
    fields = input_schema.get("properties", {})
    found = [
        Refusal("400", "BAD_REQUEST", "the input (RPC) or the body (REST) is not valid JSON"),
        Refusal("400 (RPC) / 422 (REST)", "BAD_REQUEST / VALIDATION_ERROR",
                "the input is not an object, or a field is missing or breaks its type or limits; "
                "`details[]` names each field"),
    ]
    paging = [name for name in PAGINATION_FIELDS if name in fields]
    if paging:
        found.append(Refusal("400", "BAD_REQUEST", f"{' or '.join(code(name) for name in paging)} is malformed "
                                                   "or out of range (400 in both styles)"))
    if procedure.access is Access.ORG:
        found.append(Refusal("400", "BAD_REQUEST", "called on a host that names no organization"))
    if procedure.access is not Access.PUBLIC:
        found.append(Refusal("401", "UNAUTHORIZED", "no credential, or one that is invalid, expired, revoked, of "
                                                    "another organization, or whose user left it"))
    found += _forbidden(procedure)
    found.append(Refusal("404", "NOT_FOUND", "the host names an organization that does not exist"))
    if answers_not_found(procedure, input_schema):
        names = " or ".join(code(name) for name in id_fields(input_schema))
        found.append(Refusal("404", "NOT_FOUND", f"{names} names nothing in this organization"))
    found.append(Refusal("405", "METHOD_NOT_SUPPORTED",
                         f"called over RPC by {'POST' if procedure.is_query else 'GET'}: a {procedure.kind} is "
                         f"a {'GET' if procedure.is_query else 'POST'}"))
    if not procedure.is_query:
        found.append(Refusal("409", "CONFLICT", f"an {code(IDEMPOTENCY_KEY)} reused with another request, or "
                                                "while its first request still runs"))
        if procedure.returns_secret:
            found.append(Refusal("409", "CONFLICT", f"an {code(IDEMPOTENCY_KEY)} of a request that succeeded: "
                                                    "its reply held a secret, shown once and never kept "
                                                    "(`secretWithheld: true`)"))
    for status in dict.fromkeys(_STATUS_IN_SUMMARY.findall(procedure.summary)):
        found.append(Refusal(status, _CODES.get(int(status), ""), f"as its summary says: {procedure.summary}"))
    found.append(Refusal("429", "TOO_MANY_REQUESTS", "over the [rate limit](README.md#rate-limits); `Retry-After` "
                                                     "says when to try again"))
    return sorted(found, key=lambda refusal: refusal.status[:3])


def _forbidden(procedure: Procedure) -> list[Refusal]:
    if procedure.access is Access.PUBLIC:
        return []
    found = []
    if procedure.session_only:
        found.append(Refusal("403", "FORBIDDEN", "called with an API key or token: only the session cookie may"))
    if procedure.access is Access.ORG:
        found.append(Refusal("403", "FORBIDDEN", "the user is not a member of this organization"))
        if procedure.min_role > Role.GUEST:
            found.append(Refusal("403", "FORBIDDEN", f"the user's role is below {procedure.min_role.label}"))
        if procedure.feature is not None:
            plans = ", ".join(plans_with(procedure.feature))
            found.append(Refusal("403", "FORBIDDEN", f"the organization's plan does not include "
                                                     f"{code(procedure.feature)} (plans that do: {plans})"))
    if procedure.session_only:
        return found
    found.append(Refusal("403", "FORBIDDEN", "an API key or token of an organization whose plan has no API access "
                                             f"({', '.join(plans_without_api_access())})"))
    found += _key_scope(procedure)
    if procedure.token_scope is not None:
        found.append(Refusal("403", "FORBIDDEN",
                             f"a personal or OAuth token without the {code(procedure.token_scope)} scope"))
    if not procedure.is_query:
        found.append(Refusal("403", "FORBIDDEN", "a session-cookie call from another site: `Origin` or `Referer` "
                                                 "not this organization's, or neither and not JSON"))
    return found
