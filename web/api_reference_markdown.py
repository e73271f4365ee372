"""The markdown of the API reference (web/api_reference.py): tables, inline code and GitHub's heading anchors,
and the JSON Schemas of the OpenAPI document (web/openapi.py) in words: an object as a table of its fields (type,
required or not, limits, default), and the named types it uses, so that a page describes every field an input
can hold."""

from __future__ import annotations

import json
import re
from typing import Any

Schema = dict[str, Any]
_REF_PREFIX = "#/components/schemas/"


def ref_name(schema: Schema) -> str | None:
    """The component a `$ref` schema names, or None."""
    ref = schema.get("$ref")
    return ref.removeprefix(_REF_PREFIX) if isinstance(ref, str) else None


def type_name(component: str) -> str:
    """How a page calls a component: msgspec names a Struct by its module too when two share a name
    (`protocol.kpis.SetValueInput`); the page says `SetValueInput`."""
    return component.rsplit(".", 1)[-1]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped but `-` and `_`, spaces made `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def type_heading(component: str) -> str:
    """The heading of a named type on the page that uses it, by its name in the OpenAPI document."""
    return f"Type `{component}`"


def type_anchor(component: str) -> str:
    return anchor(type_heading(component))


def code(text: str) -> str:
    """`text` as inline code in a table cell: a `|` escaped (GitHub reads it as a cell break even in code)."""
    text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if fence == "`" else f"{fence} {text} {fence}"


def _options(schema: Schema) -> tuple[list[Schema], bool]:
    """The alternatives of a schema and whether null is one of them."""
    options = schema.get("anyOf", [schema])
    others = [option for option in options if option.get("type") != "null"]
    return others, len(others) < len(options)


def describe_type(schema: Schema) -> str:
    """A field's type in words: `string`, `array of` [`NewGroup`](#type-newgroup), `one of "a", "b"`, `or null`."""
    others, nullable = _options(schema)
    text = " or ".join(_one_type(option) for option in others) if others else "null"
    return f"{text} or null" if nullable and others else text


def _one_type(schema: Schema) -> str:
    name = ref_name(schema)
    if name is not None:
        return f"[`{type_name(name)}`](#{type_anchor(name)})"
    if "anyOf" in schema:
        return describe_type(schema)
    if "enum" in schema:
        return "one of " + ", ".join(code(json.dumps(value)) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_one_type(schema.get('items', {}))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"object of {_one_type(schema['additionalProperties'])}"
    if kind is None:
        return "any JSON value"
    if "format" in schema:
        return f"{kind} ({schema['format']})"
    return str(kind)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e16 else str(value)


def _range(low: Any, high: Any, unit: str) -> str | None:
    """`unit` is plural (" items"); said in the singular after 1."""
    def amount(value: Any) -> str:
        return _number(value) + (unit.removesuffix("s").replace("propertie", "property") if value == 1 else unit)

    if low is not None and high is not None:
        return f"{_number(low)} to {amount(high)}" if low != high else f"exactly {amount(low)}"
    if low is not None:
        return f"at least {amount(low)}"
    if high is not None:
        return f"at most {amount(high)}"
    return None


def describe_limits(schema: Schema) -> str:
    """A field's limits in words: lengths, ranges, item counts, patterns (of its items too)."""
    others, _ = _options(schema)
    parts: list[str] = []
    for option in others:
        parts += _limits(option)
    return "; ".join(dict.fromkeys(parts))


def _limits(schema: Schema) -> list[str]:
    parts = [text for text in (
        _range(schema.get("minLength"), schema.get("maxLength"), " characters"),
        _range(schema.get("minimum"), schema.get("maximum"), ""),
        _range(schema.get("minItems"), schema.get("maxItems"), " items"),
        _range(schema.get("minProperties"), schema.get("maxProperties"), " properties"),
    ) if text is not None]
    if "exclusiveMinimum" in schema:
        parts.append(f"above {_number(schema['exclusiveMinimum'])}")
    if "exclusiveMaximum" in schema:
        parts.append(f"below {_number(schema['exclusiveMaximum'])}")
    if "pattern" in schema:
        parts.append(f"matches {code(schema['pattern'])}")
    items = schema.get("items")
    if isinstance(items, dict) and ref_name(items) is None:
        parts += [f"each {part}" for part in _limits(items)]
    return parts


def field_rows(schema: Schema) -> list[list[str]]:
    """One row per property of an object schema: field, type, required, limits, default."""
    required = set(schema.get("required", ()))
    rows = []
    for name, field in schema.get("properties", {}).items():
        default = code(json.dumps(field["default"])) if "default" in field else ""
        notes = "; ".join(part for part in (describe_limits(field), field.get("description", "")) if part)
        rows.append([code(name), describe_type(field), "yes" if name in required else "no", notes, default])
    return rows


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown table."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def object_lines(schema: Schema) -> list[str]:
    """An object schema as a table of its fields; any other schema as its type and limits."""
    if "properties" in schema:
        if not schema["properties"]:
            return ["No fields."]
        return table(["field", "type", "required", "limits and notes", "default"], field_rows(schema))
    if schema.get("type") == "object":
        return ["An object; any properties."]
    limits = describe_limits(schema)
    return [describe_type(schema) + (f" ({limits})" if limits else "")]


def referenced(schema: Schema, components: dict[str, Schema]) -> list[str]:
    """The components `schema` uses, directly or through each other, in the order first met (without repeats)."""
    found: dict[str, None] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            name = ref_name(node)
            if name is not None and name not in found:
                found[name] = None
                walk(components[name])
            for key, value in node.items():
                if key != "$ref":
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return list(found)
