"""The API reference under docs/api/: every procedure of the registry (protocol/registry.py) with its call, REST
paths, access, credential scopes, plan feature, input, reply, refusals and examples, one page per domain (the
first part of a procedure's name), an index, the examples as one walk-through, and the routes outside the
registry. Written from the OpenAPI document web/openapi.py builds for the application, so the two cannot
disagree; the examples are web/api_examples.py's.

    python -m server.api_reference --write docs/api     # write the pages (and drop pages no longer made)
    python -m server.api_reference --check docs/api     # exit 1 when the pages differ from a fresh generation

The command lives in server/, which lists every domain: only with all of them imported is the registry whole.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from actors.kernel.handlers import HandlerTable
from protocol.displays import DISPLAY_PROCEDURES
from protocol.errors import ValidationFailed
from protocol.pagination import DEFAULT_LIMIT, MAX_LIMIT
from protocol.plans import PLANS
from protocol.registry import KEY_SCOPES, REGISTRY, TOKEN_SCOPES, Access, Procedure
from web.api_examples import EXAMPLES, Example
from web.api_reference_errors import PAGINATION_FIELDS, plans_with, plans_without_api_access, refusals
from web.api_reference_markdown import (
    Schema,
    anchor,
    code,
    describe_type,
    object_lines,
    ref_name,
    referenced,
    table,
    type_heading,
    type_name,
)
from web.app import MAX_BODY_BYTES, build_web_app
from web.context import SESSION_COOKIE
from web.envelopes import rest_error, rpc_error
from web.idempotency_store import HEADER as IDEMPOTENCY_KEY
from web.openapi import OPENAPI_PATH, openapi_document
from web.rate_limit import DISPLAY_RATE_LIMIT
from web.rest import REST_ROUTES, RestRoute
from web.rpc import MAX_BATCH

COMMAND = "python -m server.api_reference --write docs/api"
INDEX = "README.md"
EXAMPLES_PAGE = "examples.md"
ROUTES_PAGE = "routes.md"
# The index groups the domains' pages under these headings; a domain not named here is listed under "Other".
AREAS: dict[str, tuple[str, ...]] = {
    "Accounts, credentials and the organization": (
        "auth", "apiKeys", "mcpKeys", "oauthApps", "sso", "organizations", "billing", "notifications"),
    "Workspaces, boards and items": (
        "workspaces", "projects", "boards", "columns", "items", "comments", "templates", "import", "export",
        "activity", "events"),
    "Lean management": ("kpis", "actions", "problemSolving", "checklists", "audits", "meetings"),
    "Forms, automations and webhooks": ("forms", "formApprovalFlows", "automations", "webhooks"),
}
# The manual's pages on what some domains' inputs hold, linked from those domains' pages.
SEE_ALSO: dict[str, tuple[tuple[str, str], ...]] = {
    "boards": (("Column types, their settings and values", "../column-types.md"),),
    "columns": (("Column types, their settings and values", "../column-types.md"),),
    "items": (("Column types and the values each takes", "../column-types.md"),),
    "apiKeys": (("Scopes", "../scopes.md"),),
    "auth": (("Scopes", "../scopes.md"), ("Signing in", "../sign-in.md")),
    "oauthApps": (("Signing in", "../sign-in.md"),),
    "sso": (("Signing in", "../sign-in.md"),),
    "mcpKeys": (("Assistants", "../assistants.md"),),
    "billing": (("Plans and billing", "../billing.md"),),
    "webhooks": (("Webhooks: deliveries, signatures and retries", "../api.md#webhooks"),),
    "forms": (("Forms, files and approvals", "../forms-and-approvals.md"),),
    "formApprovalFlows": (("Forms, files and approvals", "../forms-and-approvals.md"),),
    "import": (("CSV import", "../import.md"),),
    "templates": (("Templates and tier meetings", "../templates-and-meetings.md"),),
    "meetings": (("Templates and tier meetings", "../templates-and-meetings.md"),),
}
_BODY_METHODS = {"POST", "PUT", "PATCH"}
_MISSING_NAME = ValidationFailed.of("name", "is required")
# The OpenAPI document's security schemes (web/openapi.py) as a route's credentials are said.
_SCHEMES = {"bearerAuth": "a bearer credential", "sessionCookie": "the session cookie",
            "formSession": "a form session (`svc_fst_...`, from `forms.verifyOtp`)"}
_JSON_INDENT = 2


def domain_of(name: str) -> str:
    return name.split(".", 1)[0]


def procedure_link(name: str, from_page: str = "") -> str:
    page = f"{domain_of(name)}.md"
    return f"[`{name}`]({'' if page == from_page else page}#{anchor(f'`{name}`')})"


def route_link(method: str, path: str) -> str:
    heading = f"`{method} {path}`"
    return f"[{heading}]({ROUTES_PAGE}#{anchor(heading)})"


def _json(value: Any) -> str:
    return json.dumps(value, indent=_JSON_INDENT, ensure_ascii=False)


def _block(value: Any) -> list[str]:
    return ["```json", _json(value), "```"]


@dataclass(frozen=True)
class Reference:
    """The OpenAPI document and the REST routes of one application, read by every page."""

    document: dict[str, Any]
    rest_routes: tuple[RestRoute, ...]

    @property
    def components(self) -> dict[str, Schema]:
        schemas: dict[str, Schema] = self.document["components"]["schemas"]
        return schemas

    def input_component(self, procedure: Procedure) -> str:
        """The name of the procedure's input in the document's components (its RPC operation's `json`)."""
        path = self.document["paths"][f"/api/trpc/{procedure.name}"]
        operation = path["get"] if procedure.is_query else path["post"]
        content = (operation["parameters"][0] if procedure.is_query else operation["requestBody"])["content"]
        name = ref_name(content["application/json"]["schema"]["properties"]["json"])
        assert name is not None
        return name

    def input_schema(self, procedure: Procedure) -> Schema:
        return self.components[self.input_component(procedure)]

    def routes_of(self, procedure: Procedure) -> list[RestRoute]:
        return [route for route in self.rest_routes if route.procedure == procedure.name]

    def types_section(self, schemas: list[Schema]) -> list[str]:
        """The named types the schemas use, each under its heading."""
        names = list(dict.fromkeys(name for schema in schemas for name in referenced(schema, self.components)))
        if not names:
            return []
        lines = ["## Types", ""]
        for name in names:
            schema = self.components[name]
            lines += [f"### {type_heading(name)}", ""]
            if schema.get("description"):
                lines += [schema["description"], ""]
            lines += [*object_lines(schema), ""]
        return lines


def build(handlers: HandlerTable) -> Reference:
    """The reference of an application calling `handlers` (server/domains.py's table: the whole registry)."""
    app = build_web_app(body_timeout=60.0, handlers=handlers)  # never serves: its routes and REST tables are read
    routes: list[RestRoute] = app[REST_ROUTES]
    return Reference(openapi_document(app), tuple(routes))


# ---- one procedure ------------------------------------------------------------------------------------------

def _access(procedure: Procedure) -> str:
    if procedure.access is Access.PUBLIC:
        return "anyone: no credential needed"
    if procedure.access is Access.USER:
        return "any signed-in user; no membership of the host's organization needed"
    return f"a member of the organization the host names, role {procedure.min_role.label} or above"


def _credentials(procedure: Procedure) -> str:
    if procedure.access is Access.PUBLIC:
        return "none"
    if procedure.session_only:
        return "the session cookie only; any API key or token is refused (403)"
    if procedure.key_scope is not None:
        key = f"API key with {code(procedure.key_scope)} (or no scopes: full access)"
    elif procedure.is_query:
        key = "any API key of the organization"
    else:
        key = "API key with no scopes (full access)"
    display = "; a display link, for its own board ([display links](../displays.md))" \
        if procedure.name in DISPLAY_PROCEDURES else ""
    return f"session cookie; {key}; personal or OAuth token with {code(procedure.token_scope or '')}{display}"


def _rest_line(route: RestRoute, input_schema: Schema) -> str:
    names = [part[1:-1].split(":")[0] for part in route.path.split("/") if part.startswith("{")]
    from_path = [f"{code('{' + name + '}')} is {code(route.rename.get(name, name))}"
                 for name in names if route.rename.get(name, name) != name]
    rest = [field for field in input_schema.get("properties", {})
            if field not in {route.rename.get(name, name) for name in names}]
    where = "the JSON body" if route.method in _BODY_METHODS else "query parameters"
    parts = [f"{code(f'{route.method} {route.path}')} answers {route.status}"]
    if from_path:
        parts.append("the path's " + ", ".join(from_path))
    if rest:
        parts.append(f"{'the other fields' if names else 'the fields'} as {where}")
    if route.view is not None:
        parts.append(f"the reply reshaped by {code(route.view.__name__)} in "
                     f"{route.view.__module__.replace('.', '/')}.py")
    return "; ".join(parts)


def answers_pages(input_schema: Schema) -> bool:
    """Whether a procedure taking this input answers a page of a cursor-paged list (`{<list>: [...], nextCursor}`)."""
    return "cursor" in input_schema.get("properties", {})


def _reply(input_schema: Schema, routes: list[RestRoute], examples: list[Example]) -> str:
    reshaped = any(route.view is not None for route in routes)
    if answers_pages(input_schema):
        rest = (", over REST as its REST line says" if reshaped else
                ", over REST `{\"data\": [...], \"meta\": {\"cursor\", \"has_more\", \"limit\"}}`" if routes else "")
        text = ("A page of a list: over RPC `{\"<list>\": [...], \"nextCursor\": ...}` (the list named for what it "
                f"holds){rest}; send the cursor back as `cursor` for the next page, until it is null.")
    else:
        rest = ", over REST under `data`" + (", reshaped as its REST line says" if reshaped else "")
        text = f"Over RPC under `result.data.json`{rest if routes else ''}."
    shown = " The examples below show it as a real server answered." if examples else ""
    return f"{text} The registry declares no type for it.{shown}"


def _example_lines(example: Example) -> list[str]:
    """The request and the reply of an example."""
    lines: list[str] = []
    if example.rest is not None:
        method, path = example.rest
        if method in _BODY_METHODS:
            lines += [f"`{method} {path}`", "", *_block(example.input)]
        else:
            query = f"?{urlencode(example.input)}" if example.input else ""
            lines += [f"`{method} {path}{query}`"]
        lines += ["", f"answers {example.status}:", "", *_block(example.output), ""]
        return lines
    procedure = REGISTRY[example.procedure or ""]
    wrapped = {"json": example.input}
    if procedure.is_query:
        compact = json.dumps(wrapped, separators=(",", ":"), ensure_ascii=False)
        lines += [f"`GET /api/trpc/{procedure.name}?input={compact}` (the input URL-encoded)"]
    else:
        lines += [f"`POST /api/trpc/{procedure.name}`", "", *_block(wrapped)]
    lines += ["", "answers 200:", "", *_block({"result": {"data": {"json": example.output}}}), ""]
    return lines


def procedure_lines(reference: Reference, procedure: Procedure) -> list[str]:
    component = reference.input_component(procedure)
    schema = reference.components[component]
    routes = reference.routes_of(procedure)
    examples = [example for example in EXAMPLES if example.procedure == procedure.name]
    if procedure.is_query:
        call = f"`GET /api/trpc/{procedure.name}?input=` and the URL-encoded `{{\"json\": <input>}}`"
    else:
        call = f"`POST /api/trpc/{procedure.name}` with the body `{{\"json\": <input>}}`"
    feature = f"{code(procedure.feature)} ({', '.join(plans_with(procedure.feature))})" if procedure.feature else "none"
    lines = [f"## `{procedure.name}`", "", procedure.summary, "",
             f"- **Kind:** {procedure.kind}; RPC: {call}",
             *(f"- **REST:** {_rest_line(route, schema)}" for route in routes),
             f"- **Who:** {_access(procedure)}",
             f"- **Credentials:** {_credentials(procedure)}",
             f"- **Plan feature:** {feature}",
             ""]
    if procedure.returns_secret:
        lines += ["Its reply holds a secret shown once: keep it from this reply, it is never shown again.", ""]
    lines += [f"**Input** ({code(type_name(component))}):", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    paging = [name for name in PAGINATION_FIELDS if name in schema.get("properties", {})]
    if paging:
        lines += [*object_lines(schema), "",
                  f"{', '.join(code(name) for name in paging)}: the list checks {'it' if len(paging) == 1 else 'them'} "
                  "itself, see **Pages** in [Calling the API](README.md#calling-the-api)."]
    else:
        lines += object_lines(schema)
    lines += ["",
              f"**Reply:** {_reply(schema, routes, examples)}", "",
              "**Refusals:**", "",
              *table(["status", "code", "when"], [[refusal.status, refusal.code, refusal.when]
                                                   for refusal in refusals(procedure, schema)]), ""]
    for example in examples:
        lines += [f"**Example:** {example.title}", "", *_example_lines(example)]
    return lines


def domain_page(reference: Reference, domain: str, procedures: list[Procedure]) -> str:
    page = f"{domain}.md"
    lines = [f"# `{domain}`", "",
             f"The `{domain}.*` procedures. Back to [the API reference]({INDEX}); generated by `{COMMAND}`.", "",
             *([f"See also: {', '.join(f'[{text}]({target})' for text, target in SEE_ALSO[domain])}.", ""]
               if domain in SEE_ALSO else []),
             *table(["procedure", "kind", "summary"],
                    [[procedure_link(p.name, page), p.kind, p.summary] for p in procedures]), ""]
    for procedure in procedures:
        lines += procedure_lines(reference, procedure)
    lines += reference.types_section([reference.input_schema(p) for p in procedures])
    return _page(lines)


def _page(lines: list[str]) -> str:
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


# ---- the index, the walk-through, the other routes ------------------------------------------------------------

def index_page(domains: dict[str, list[Procedure]]) -> str:
    lines = [
        "# API reference",
        "",
        f"Every procedure of the server, generated from its procedure registry by `{COMMAND}` (do not edit these "
        f"pages; tests/unit/web/test_api_reference.py fails when they differ from a fresh generation). The same "
        f"registry serves the OpenAPI document at `{OPENAPI_PATH}`.",
        "",
        "## Calling the API",
        "",
        "- **Host.** Each organization has its own host, `<slug>.<service host>` (e.g. `acme.obeya.example`); "
        "a procedure of the organization is called on it. Sign-up is called on the service host itself.",
        "- **RPC** (the tRPC wire format): a query is `GET /api/trpc/<procedure>?input=` and the URL-encoded "
        "`{\"json\": <input>}`; a mutation is `POST /api/trpc/<procedure>` with the body `{\"json\": <input>}`. "
        "Success is `{\"result\": {\"data\": {\"json\": <reply>}}}`. `/api/trpc/<a>,<b>?batch=1` runs several "
        f"calls (at most {MAX_BATCH}), its input keyed `\"0\"`, `\"1\"`, ..., and answers an array.",
        "- **REST**: the paths listed with each procedure, under `/api/v1/`. A GET or DELETE takes the input "
        "as query parameters, a POST, PUT or PATCH as a JSON body; path parameters fill the fields they name. "
        "Success is `{\"data\": <reply>}`, a page `{\"data\": [...], \"meta\": {\"cursor\", \"has_more\", "
        "\"limit\"}}`.",
        f"- **Credentials.** The session cookie `{SESSION_COOKIE}` (set by sign-up and sign-in, see "
        f"[the other routes]({ROUTES_PAGE})), or `Authorization: Bearer` with an API key (`svc_sk_live_...`), a "
        "personal access token (`svc_pat_...`) or an OAuth access token. A key is checked against its API-key "
        f"scopes ({', '.join(code(s) for s in KEY_SCOPES)}; none: full access), a token against its token "
        f"scopes ({', '.join(code(s) for s in TOKEN_SCOPES)}); each procedure names the one it needs. Keys and "
        f"tokens work only on plans with API access, not on {', '.join(plans_without_api_access())}. The rules "
        "in full: [scopes](../scopes.md).",
        "- **Pages.** A list whose input takes `cursor` answers one page and the cursor of the next "
        "(`nextCursor` over RPC, `meta.cursor` over REST; null on the last page). Most lists take `limit` "
        f"from 1 to {MAX_LIMIT}, {DEFAULT_LIMIT} when absent; a few (histories, notifications) have bounds of "
        "their own. A malformed cursor or a `limit` out of range is 400 in both styles.",
        f"- **Retries.** A write (RPC POST; REST POST, PUT, PATCH, DELETE) with an `{IDEMPOTENCY_KEY}` header "
        "runs once per credential and key: a retry gets the first reply again, marked "
        "`Idempotent-Replayed: true`; the same key with another request is 409.",
        "",
        "## Rate limits",
        "",
        "Every `/api/` request counts against its credential's bucket, a minute long; without a credential, "
        "against its client address's (`OBEYA_ANONYMOUS_RATE_LIMIT`, [configuration](../configuration.md)). "
        "Each reply carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; over the "
        "limit the answer is 429 with `Retry-After`. A display link counts in a bucket of its own, "
        f"{DISPLAY_RATE_LIMIT} requests a minute whatever the plan ([display links](../displays.md)).",
        "",
        *table(["plan", "requests a minute", "API keys and tokens", "features"],
               [[plan.name, str(plan.requests_per_minute), "yes" if plan.api_access else "no",
                 ", ".join(code(f) for f in sorted(plan.features))] for plan in PLANS.values()]),
        "",
        "## Errors",
        "",
        "A refusal names its code and, for a bad input, each field at fault. Over RPC (the same object again "
        "under `json`, for clients with the superjson transformer):",
        "",
        *_block(rpc_error(_MISSING_NAME, "items.create")),
        "",
        "over REST:",
        "",
        *_block(rest_error(_MISSING_NAME)),
        "",
        "Each procedure lists the refusals its declaration implies. Any request may also get:",
        "",
        *table(["status", "code", "when"], [
            ["401", "UNAUTHORIZED", "a bearer credential is sent and is not valid (also where none is needed)"],
            ["404", "NOT_FOUND", "no such path, or no such procedure over RPC"],
            ["405", "METHOD_NOT_SUPPORTED", "the method is not served on this path"],
            ["413", "PAYLOAD_TOO_LARGE", f"the body is larger than {MAX_BODY_BYTES // 2 ** 20} MB"],
            ["415", "UNSUPPORTED_MEDIA_TYPE", "sign-up, sign-in or accepting an invitation without "
                                              "`Content-Type: application/json`"],
            ["500", "INTERNAL_SERVER_ERROR", "a fault of the server"],
            ["503", "SERVICE_UNAVAILABLE", "the server is stopping or its database is away; safe to retry after "
                                           "`Retry-After`"],
        ]),
        "",
        "## Procedures by domain",
        "",
    ]
    areas = {domain: area for area, members in AREAS.items() for domain in members}
    grouped: dict[str, list[str]] = defaultdict(list)
    for domain in domains:
        grouped[areas.get(domain, "Other")].append(domain)
    for area in [*AREAS, "Other"]:
        if not grouped.get(area):
            continue
        lines += [f"### {area}", "",
                  *table(["domain", "procedures"],
                         [[f"[`{domain}`]({domain}.md)",
                           ", ".join(procedure_link(p.name) for p in domains[domain])]
                          for domain in grouped[area]]), ""]
    lines += ["## More", "",
              f"- [Examples]({EXAMPLES_PAGE}): a client's first calls, from sign-up to a webhook, each with the "
              "reply a real server gave.",
              f"- [Other routes]({ROUTES_PAGE}): sign-up, sign-in, files, public forms, approvals by e-mail and "
              "the other paths that are not procedures of the registry.", ""]
    return _page(lines)


def examples_page() -> str:
    lines = ["# Examples", "",
             f"A client's first calls, in order. Back to [the API reference]({INDEX}).", "",
             "Each was made on a fresh server and its reply is what the server gave, ids and times aside "
             "(tests/integration/web/test_api_examples.py makes them again and compares). Sign-up is sent to "
             "the service host; every other call to the organization's host (`acme.<service host>`) with the "
             f"session cookie `{SESSION_COOKIE}` that sign-in set. After sign-up the organization was moved to "
             "the business plan: KPIs need the `kpis` feature (" + ", ".join(plans_with("kpis")) + ").", ""]
    for number, example in enumerate(EXAMPLES, 1):
        about = procedure_link(example.procedure) if example.procedure else route_link(*example.rest or ("", ""))
        lines += [f"## {number}. {example.title}", "", f"Calls {about}.", "", *_example_lines(example)]
    return _page(lines)


def routes_page(reference: Reference) -> str:
    served_by_rest = {(route.method.lower(), route.path) for route in reference.rest_routes}
    lines = ["# Other routes", "",
             f"Paths that are not a procedure of the registry (or take what the RPC wire cannot carry, such as a "
             f"multipart upload), as `{OPENAPI_PATH}` describes them. Back to [the API reference]({INDEX}).", ""]
    schemas: list[Schema] = []
    for path, operations in reference.document["paths"].items():
        name = path.removeprefix("/api/trpc/")
        if name in REGISTRY:
            continue
        for method, operation in operations.items():
            if (method, path) in served_by_rest:
                continue
            lines += _route_lines(method.upper(), path, operation, schemas, reference.document["security"])
    lines += reference.types_section(schemas)
    return _page(lines)


def _security(options: list[dict[str, list[str]]]) -> str:
    """An operation's security options in words: each option one credential (or none), any one will do."""
    said = [" and ".join(_SCHEMES.get(name, code(name)) for name in option) or "none" for option in options]
    return "none" if not said else ", ".join(said[:-1]) + (" or " if len(said) > 1 else "") + said[-1]


def _route_lines(method: str, path: str, operation: dict[str, Any], schemas: list[Schema],
                 default_security: list[dict[str, list[str]]]) -> list[str]:
    lines = [f"## `{method} {path}`", "", operation.get("summary", ""), ""]
    lines += [f"- **Credentials:** {_security(operation.get('security', default_security))}"]
    access = operation.get("x-obeya-access")
    if access is not None:
        scopes = operation.get("x-obeya-scopes", {})
        lines += [f"- **Who:** a member of the organization, role {access['minRole']} or above",
                  f"- **Scopes:** API key {code(str(scopes.get('apiKey')))}, token {code(str(scopes.get('token')))}",
                  f"- **Plan feature:** {code(access['planFeature']) if access['planFeature'] else 'none'}"]
    lines.append("")
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["**Parameters:**", "",
                  *table(["name", "in", "required", "type", "notes"],
                         [[code(p["name"]), p["in"], "yes" if p.get("required") else "no",
                           describe_type(p.get("schema", {})), p.get("description", "")] for p in parameters]), ""]
    body = operation.get("requestBody")
    if body is not None:
        for media, content in body["content"].items():
            schema = content["schema"]
            schemas.append(schema)
            lines += [f"**Body** ({media}):", ""]
            lines += [*object_lines(schema), ""] if ref_name(schema) is None else [describe_type(schema), ""]
    lines += ["**Answers:**", "",
              *table(["status", "when"], [[status, reply.get("description", "")] for status, reply
                                           in sorted(operation.get("responses", {}).items())]), ""]
    for example in EXAMPLES:
        if example.procedure is None and example.rest == (method, path):
            lines += [f"**Example:** {example.title}", "", *_example_lines(example)]
    return lines


def pages(reference: Reference) -> dict[str, str]:
    """Every page of the reference by file name."""
    domains: dict[str, list[Procedure]] = defaultdict(list)
    for name in sorted(REGISTRY):
        domains[domain_of(name)].append(REGISTRY[name])
    made = {f"{domain}.md": domain_page(reference, domain, procedures) for domain, procedures in domains.items()}
    made[INDEX] = index_page(dict(domains))
    made[EXAMPLES_PAGE] = examples_page()
    made[ROUTES_PAGE] = routes_page(reference)
    return dict(sorted(made.items()))


def stale(directory: Path, made: dict[str, str]) -> list[str]:
    """The pages of `directory` that differ from `made`, are missing, or are no longer made."""
    present = {path.name for path in directory.glob("*.md")}
    return sorted({name for name, text in made.items()
                   if name not in present or (directory / name).read_text(encoding="utf-8") != text}
                  | (present - set(made)))


def write(directory: Path, made: dict[str, str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for path in directory.glob("*.md"):
        if path.name not in made:
            path.unlink()
    for name, text in made.items():
        (directory / name).write_text(text, encoding="utf-8")
