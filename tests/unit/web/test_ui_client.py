"""The browser front end's API client, web/ui/static/api/client.js (server/ui_client.py): committed exactly as a
fresh generation writes it, and saying what a reader of it relies on, checked against the registry's Structs
rather than against the generator's own reading of them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from protocol.registry import REGISTRY
from server.domains import HANDLERS
from server.ui_client import COMMAND, PAGE_LISTS, TARGET, generate, main
from web.api_examples import EXAMPLES
from web.api_reference import build

ROOT = Path(__file__).resolve().parents[3]
CLIENT = ROOT / TARGET
_ENTRY = re.compile(r'^  ("[\w.]+"): \{kind: ("\w+"), expectedVersion: (\w+), pageList: ("\w+"|null)\},$')


@pytest.fixture(scope="module")
def generated() -> str:
    return generate(build(HANDLERS))


def _procedures(text: str) -> dict[str, dict[str, Any]]:
    """The module's PROCEDURES table, read from its lines."""
    block = text.split("export const PROCEDURES = Object.freeze({\n", 1)[1].split("\n});", 1)[0]
    table: dict[str, dict[str, Any]] = {}
    for line in block.splitlines():
        match = _ENTRY.match(line)
        assert match is not None, f"unexpected line in PROCEDURES: {line!r}"
        name, kind, version, page_list = (json.loads(part) for part in match.groups())
        table[name] = {"kind": kind, "expectedVersion": version, "pageList": page_list}
    return table


def _fields(name: str) -> dict[str, bool]:
    """The wire names of a procedure's input fields, each with whether it is required."""
    return {field.encode_name: field.required for field in msgspec.structs.fields(REGISTRY[name].input)}


def _typedef(text: str, name: str) -> list[str]:
    """The `@property` lines of the typedef `name`."""
    block = text.split(f" * @typedef {{Object}} {name}\n", 1)[1].split(" */", 1)[0]
    return [line for line in block.splitlines() if line.startswith(" * @property ")]


def test_the_committed_client_is_a_fresh_generation(generated: str) -> None:
    committed = CLIENT.read_text(encoding="utf-8") if CLIENT.is_file() else ""
    assert committed == generated, f"{TARGET} differs from a fresh generation: run `{COMMAND}` and commit"


def test_check_exits_1_on_a_stale_file_and_0_on_a_fresh_one(generated: str, tmp_path: Path) -> None:
    path = tmp_path / "client.js"
    path.write_text(generated.replace("items.create", "items.make"), encoding="utf-8")
    assert main(["--check", str(path)]) == 1
    assert main(["--write", str(path)]) == 0
    assert main(["--check", str(path)]) == 0


def test_the_module_says_it_is_generated_then_imports_the_shared_calls(generated: str) -> None:
    first, second, third = generated.splitlines()[:3]
    assert first.startswith("// Generated") and COMMAND in first
    assert third == 'import { query, mutate } from "../api.js";'


def test_every_procedure_is_listed_with_its_kind(generated: str) -> None:
    table = _procedures(generated)
    assert sorted(table) == sorted(REGISTRY)
    for name, procedure in REGISTRY.items():
        assert table[name]["kind"] == procedure.kind, name


def test_every_procedure_is_called_by_its_dotted_name_through_its_kinds_call(generated: str) -> None:
    for name, procedure in REGISTRY.items():
        call = "query" if procedure.is_query else "mutate"
        leaf = name.rsplit(".", 1)[-1]
        assert re.search(rf"\n *{leaf}: \((input|input = \{{\}}), options\) => {call}\({json.dumps(name)}, input, "
                         r"options\),\n", generated), name
    assert "\n  organizations: {\n" in generated and "\n    members: {\n" in generated


def test_items_create_names_its_required_fields_and_marks_the_others_optional(generated: str) -> None:
    input_type = re.search(r"@param \{(\w+)\} input\n.*\n.*\n.*\n *create: \(input, options\) => "
                           r'mutate\("items.create"', generated)
    assert input_type is not None
    properties = _typedef(generated, input_type.group(1))
    for field, required in _fields("items.create").items():
        shown = field if required else f"[{field}]"
        assert any(re.match(rf" \* @property \{{[^}}]+\}} {re.escape(shown)}( |$)", line) for line in properties), \
            field
    assert any(line.startswith(" * @property {string | null} [description]") for line in properties)
    assert any(line.startswith(" * @property {Object<string, any>} [values]") for line in properties)


def test_an_input_without_a_required_field_may_be_left_out(generated: str) -> None:
    assert not any(_fields("auth.me").values())
    assert 'me: (input = {}, options) => query("auth.me", input, options),' in generated
    assert 'create: (input, options) => mutate("items.create", input, options),' in generated


def test_the_procedures_taking_expected_version_are_marked(generated: str) -> None:
    table = _procedures(generated)
    marked = {name for name, facts in table.items() if facts["expectedVersion"]}
    assert marked == {name for name in REGISTRY if "expectedVersion" in _fields(name)}
    assert "items.update" in marked and "items.create" not in marked


def test_the_procedures_answering_pages_name_their_list(generated: str) -> None:
    table = _procedures(generated)
    paged = {name for name in REGISTRY if "cursor" in _fields(name)}
    assert set(PAGE_LISTS) == paged
    assert {name: facts["pageList"] for name, facts in table.items() if facts["pageList"]} == PAGE_LISTS
    shown = [example for example in EXAMPLES if example.procedure in PAGE_LISTS and example.rest is None]
    assert shown, "no RPC example of the API shows a page"
    for example in shown:
        assert isinstance(example.output, dict) and set(example.output) == {PAGE_LISTS[example.procedure or ""],
                                                                              "nextCursor"}, example.title
