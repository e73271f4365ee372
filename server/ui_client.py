"""`python -m server.ui_client --write web/ui/static/api/client.js | --check web/ui/static/api/client.js`: the
browser front end's typed API client, generated from the procedure registry so that the UI and the contract cannot
drift. One ES module of plain JavaScript with JSDoc types (no build step): a `@typedef` for every input the
procedures take (from the same OpenAPI schemas as the API reference, web/api_reference.py), `api.<domain>.<name>`
calling the shared `query`/`mutate` of web/ui/static/api.js, and `PROCEDURES`, what shared code needs to know of
each procedure (its kind, whether it takes `expectedVersion`, the list field of the page it answers).

The command lives in server/, which lists every domain: only with all of them imported is the registry whole.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from protocol.registry import REGISTRY, Procedure
from server.domains import HANDLERS
from web.api_reference import Reference, answers_pages, build
from web.api_reference_markdown import Schema, describe_limits, ref_name, referenced, type_name

TARGET = "web/ui/static/api/client.js"
COMMAND = f"python -m server.ui_client --write {TARGET}"
VERSION_FIELD = "expectedVersion"
# The field holding the rows of each cursor-paged list's page. The registry declares no reply types, so these are
# named here as the handlers name them (their `Page(key=...)`); tests/unit/web/test_ui_client.py checks that the
# procedures named are exactly those answering pages and that the API examples' replies agree.
PAGE_LISTS = {
    "actions.getEscalated": "actions", "actions.getOverdue": "actions", "actions.list": "actions",
    "activity.listByEntity": "entries", "activity.listByOrg": "entries",
    "automations.getExecutionHistory": "items", "automations.log": "executions",
    "boards.list": "boards", "comments.list": "comments", "comments.replies": "replies", "events.list": "events",
    "forms.submissions.list": "submissions", "items.list": "items", "kpis.getAlerts": "alerts", "kpis.list": "kpis",
    "meetings.list": "meetings", "meetings.replay": "changes", "notifications.list": "notifications",
    "organizations.members.list": "members", "projects.list": "projects", "webhooks.deliveries": "deliveries",
    "workspaces.list": "workspaces",
}
QUERY_OPTIONS = "QueryOptions"
MUTATION_OPTIONS = "MutationOptions"
_OPTIONS = {QUERY_OPTIONS: "{signal?: AbortSignal}",
            MUTATION_OPTIONS: "{idempotencyKey?: string, signal?: AbortSignal}"}
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_INDENT = "  "
# An `@` after a space opens a JSDoc tag (`@<user_id> mentions` in a summary would).
_TAG_LIKE = re.compile(r"(?<!\S)@")
# JSON Schema's scalar types as TypeScript's.
_SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "null": "null"}


def typedef_names(components: list[str]) -> dict[str, str]:
    """Each component's typedef name: the Struct's name, prefixed by its module's when two Structs share a name
    (msgspec then names the components `protocol.kpis.SetValueInput`, `protocol.items.SetValueInput`)."""
    by_short: dict[str, list[str]] = defaultdict(list)
    for component in components:
        by_short[type_name(component)].append(component)
    names: dict[str, str] = {}
    for short, same in by_short.items():
        for component in same:
            module = component.rsplit(".", 2)[-2] if len(same) > 1 and "." in component else ""
            names[component] = "".join(part.capitalize() for part in module.split("_")) + short
    taken = [*names.values(), *_OPTIONS]
    clashes = sorted({name for name in taken if taken.count(name) > 1})
    if clashes:
        raise ValueError(f"typedef names clash: {', '.join(clashes)}")
    return names


def ts_type(schema: Schema, names: dict[str, str]) -> str:
    """A JSON Schema of the OpenAPI document as a TypeScript type, null last in a union."""
    name = ref_name(schema)
    if name is not None:
        return names[name]
    if "enum" in schema:
        return _union([json.dumps(value) for value in schema["enum"]])
    if "anyOf" in schema:
        return _union([ts_type(option, names) for option in schema["anyOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([ts_type({**schema, "type": one}, names) for one in kind])
    if kind == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(ts_type(item, names) for item in schema["prefixItems"]) + "]"
        item = ts_type(schema.get("items", {}), names)
        return f"({item})[]" if " | " in item else f"{item}[]"
    if kind == "object":
        values = schema.get("additionalProperties")
        return f"Object<string, {ts_type(values, names) if isinstance(values, dict) else 'any'}>"
    return _SCALARS.get(kind, "any") if isinstance(kind, str) else "any"


def _union(types: list[str]) -> str:
    unique = list(dict.fromkeys(types))
    return " | ".join([t for t in unique if t != "null"] + [t for t in unique if t == "null"])


def _comment_text(text: str) -> str:
    """Text safe inside a `/** */` block, on one line: its end escaped, and an `@` that would open a tag."""
    return _TAG_LIKE.sub(r"\\@", " ".join(text.split()).replace("*/", "*\\/"))


def typedef_lines(name: str, schema: Schema, names: dict[str, str]) -> list[str]:
    """One `@typedef` block: an object's fields as `@property` (optional ones `[name]`), any other type as is."""
    lines = ["/**"]
    if schema.get("description"):
        lines.append(f" * {_comment_text(schema['description'])}")
    properties: dict[str, Schema] = schema.get("properties", {})
    if schema.get("type") == "object" and "properties" in schema and properties:
        lines.append(f" * @typedef {{Object}} {name}")
        required = set(schema.get("required", ()))
        for field, field_schema in properties.items():
            notes = "; ".join(part for part in (describe_limits(field_schema), field_schema.get("description", ""))
                              if part)
            shown = field if field in required else f"[{field}]"
            lines.append(f" * @property {{{ts_type(field_schema, names)}}} {shown}"
                         + (f" - {_comment_text(notes)}" if notes else ""))
    elif schema.get("type") == "object" and "properties" in schema:
        lines.append(f" * @typedef {{Record<string, never>}} {name}")
    else:
        lines.append(f" * @typedef {{{ts_type(schema, names)}}} {name}")
    return [*lines, " */"]


def takes_no_required_field(schema: Schema) -> bool:
    return not schema.get("required")


def _function_lines(procedure: Procedure, input_type: str, optional_input: bool, depth: int) -> list[str]:
    pad = _INDENT * depth
    options, call = (QUERY_OPTIONS, "query") if procedure.is_query else (MUTATION_OPTIONS, "mutate")
    key = procedure.name.rsplit(".", 1)[-1]
    argument = "input = {}" if optional_input else "input"
    return [f"{pad}/**",
            f"{pad} * {_comment_text(procedure.summary)}",
            f"{pad} * @param {{{input_type}}} {'[input]' if optional_input else 'input'}",
            f"{pad} * @param {{{options}}} [options]",
            f"{pad} * @returns {{Promise<any>}}",
            f"{pad} */",
            f"{pad}{key}: ({argument}, options) => {call}({json.dumps(procedure.name)}, input, options),"]


def _tree(names: list[str]) -> dict[str, Any]:
    """The dotted names as nested dicts; a leaf is the procedure's name."""
    root: dict[str, Any] = {}
    for name in names:
        *path, leaf = name.split(".")
        node = root
        for part in path:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"{name}: {part} is both a procedure and a namespace")
        if leaf in node:
            raise ValueError(f"{name}: {leaf} is both a procedure and a namespace")
        node[leaf] = name
    return root


def _api_lines(node: dict[str, Any], reference: Reference, names: dict[str, str], depth: int) -> list[str]:
    lines: list[str] = []
    for key in sorted(node):
        if not _IDENTIFIER.match(key):
            raise ValueError(f"{key!r} is not a JavaScript identifier")
        value = node[key]
        if isinstance(value, dict):
            lines += [f"{_INDENT * depth}{key}: {{", *_api_lines(value, reference, names, depth + 1),
                      f"{_INDENT * depth}}},"]
        else:
            procedure = REGISTRY[value]
            component = reference.input_component(procedure)
            lines += _function_lines(procedure, names[component],
                                     takes_no_required_field(reference.components[component]), depth)
    return lines


def procedure_facts(reference: Reference, procedure: Procedure) -> dict[str, Any]:
    """What shared code needs of a procedure: its kind, whether it takes `expectedVersion`, its page's list."""
    schema = reference.input_schema(procedure)
    page_list = None
    if answers_pages(schema):
        if procedure.name not in PAGE_LISTS:
            raise ValueError(f"{procedure.name} answers pages: name the list its page holds in PAGE_LISTS")
        page_list = PAGE_LISTS[procedure.name]
    return {"kind": procedure.kind, VERSION_FIELD: VERSION_FIELD in schema.get("properties", {}),
            "pageList": page_list}


def generate(reference: Reference) -> str:
    """The client module for every procedure of the registry."""
    procedures = [REGISTRY[name] for name in sorted(REGISTRY)]
    inputs = [reference.input_component(procedure) for procedure in procedures]
    used = sorted({name for component in inputs
                   for name in [component, *referenced(reference.components[component], reference.components)]})
    names = typedef_names(used)
    lines = [f"// Generated from the procedure registry by `{COMMAND}`: do not edit.",
             "// tests/unit/web/test_ui_client.py fails when this file differs from a fresh generation.",
             'import { query, mutate } from "../api.js";', ""]
    for name, shape in sorted(_OPTIONS.items()):
        lines += [f"/** @typedef {{{shape}}} {name} */", ""]
    for component in sorted(used, key=lambda component: names[component]):
        lines += [*typedef_lines(names[component], reference.components[component], names), ""]
    # Frozen also so that a checker reads it as closed: in a .js file a bare object literal's type is open-ended,
    # and `api.itmes.create` would pass the type check.
    tree = _tree([procedure.name for procedure in procedures])
    lines += ["export const api = Object.freeze({", *_api_lines(tree, reference, names, 1), "});", "",
              "export const PROCEDURES = Object.freeze({"]
    for procedure in procedures:
        facts = procedure_facts(reference, procedure)
        shown = ", ".join(f"{key}: {json.dumps(value)}" for key, value in facts.items())
        lines.append(f"{_INDENT}{json.dumps(procedure.name)}: {{{shown}}},")
    lines += ["});", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.ui_client", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="FILE", type=Path, help="write the client module into FILE")
    mode.add_argument("--check", metavar="FILE", type=Path, help="exit 1 when FILE differs from a fresh generation")
    arguments = parser.parse_args(argv)
    made = generate(build(HANDLERS))
    if arguments.write is not None:
        arguments.write.parent.mkdir(parents=True, exist_ok=True)
        arguments.write.write_text(made, encoding="utf-8")
        return 0
    path: Path = arguments.check
    if not path.is_file() or path.read_text(encoding="utf-8") != made:
        print(f"{path} differs from a fresh generation; regenerate it: {COMMAND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
