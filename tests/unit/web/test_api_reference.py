"""The API reference under docs/api/ (web/api_reference.py): committed exactly as a fresh generation writes it,
every procedure on its domain's page, every example's input accepted by its procedure's input Struct, every link
resolving. Whether the examples' replies are the server's: tests/integration/web/test_api_examples.py."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from protocol.registry import REGISTRY
from server.domains import HANDLERS
from tests.unit.test_docs_links import relative_links
from web.api_examples import EXAMPLES, Example
from web.api_reference import COMMAND, INDEX, Reference, build, pages, stale
from web.inputs import decode_input
from web.openapi import _HAND_WRITTEN_INPUTS
from web.rest import RestRoute

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "api"


@pytest.fixture(scope="module")
def reference() -> Reference:
    return build(HANDLERS)


@pytest.fixture(scope="module")
def made(reference: Reference) -> dict[str, str]:
    return pages(reference)


def test_the_committed_reference_is_a_fresh_generation(made: dict[str, str]) -> None:
    differ = stale(DOCS, made)
    assert not differ, f"docs/api/ differs from a fresh generation ({', '.join(differ)}): run `{COMMAND}` and commit"


def test_every_procedure_has_a_section_on_its_domains_page_and_a_line_in_the_index(made: dict[str, str]) -> None:
    for name in REGISTRY:
        page = made[f"{name.split('.', 1)[0]}.md"]
        assert f"\n## `{name}`\n" in page, name
        assert f"[`{name}`]" in made[INDEX], name


def _route(reference: Reference, method: str, path: str) -> tuple[RestRoute, dict[str, str]]:
    """The REST route serving `method` and `path` (with its ids), and its path parameters."""
    for route in reference.rest_routes:
        pattern = re.sub(r"\\\{(\w+)[^}]*\\\}", r"(?P<\1>[^/]+)", re.escape(route.path))
        match = re.fullmatch(pattern, path)
        if route.method == method and match is not None:
            return route, match.groupdict()
    raise AssertionError(f"no REST route serves {method} {path}")


def _raw_input(reference: Reference, example: Example) -> tuple[dict[str, Any], bool]:
    """The input an example's call hands its procedure (with the path's fields), and whether from a query."""
    if example.rest is None:
        return example.input, False
    method, path = example.rest
    route, parameters = _route(reference, method, path)
    assert route.procedure == example.procedure and route.status == example.status, example.title
    from_path = {route.rename.get(name, name): value for name, value in parameters.items()}
    return {**example.input, **from_path}, method in ("GET", "DELETE")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.title)
def test_every_example_input_decodes_into_its_procedures_input(reference: Reference, example: Example) -> None:
    if example.procedure is None:
        assert example.rest is not None and example.rest in _HAND_WRITTEN_INPUTS, example.title
        struct, status = _HAND_WRITTEN_INPUTS[example.rest]
        assert status == example.status
        assert isinstance(decode_input(struct, example.input), struct)
        return
    procedure = REGISTRY[example.procedure]
    raw, from_query = _raw_input(reference, example)
    assert isinstance(decode_input(procedure.input, raw, from_query=from_query), procedure.input)
    # The registry types no output: its shape is checked against a real server (test_api_examples.py); a REST
    # reply is at least in its envelope.
    if example.rest is not None:
        assert isinstance(example.output, dict) and "data" in example.output
    msgspec.json.encode(example.output)


def test_the_manual_leads_to_the_reference() -> None:
    """Its pages' own links are checked with the rest of the manual's (tests/unit/test_docs_links.py)."""
    assert "api/README.md" in relative_links(ROOT / "docs" / "README.md")
    assert "api/README.md" in relative_links(ROOT / "docs" / "api.md")
