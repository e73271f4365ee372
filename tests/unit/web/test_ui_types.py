"""The browser front end's JavaScript type-checks: TypeScript's `tsc` (the version locked in tsc/package-lock.json,
installed on first use) checks web/ui/static/ by its jsconfig.json, the generated API client's JSDoc types
included, and does catch a call that does not fit them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clients.node_packages import npm_ci

ROOT = Path(__file__).resolve().parents[3]
STATIC = ROOT / "web" / "ui" / "static"
TSC_DIR = Path(__file__).resolve().parent / "tsc"
# A cold check of the whole front end takes a few seconds; a loaded machine may take several times that.
TSC_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def tsc() -> list[str]:
    npm_ci(TSC_DIR, "typescript")
    node = shutil.which("node")
    assert node is not None
    return [node, str(TSC_DIR / "node_modules" / "typescript" / "bin" / "tsc")]


def _run(tsc: list[str], config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*tsc, "-p", str(config)], cwd=config.parent, capture_output=True, text=True,
                          timeout=TSC_TIMEOUT_S, check=False)


def test_the_front_ends_javascript_type_checks(tsc: list[str]) -> None:
    result = _run(tsc, STATIC / "jsconfig.json")
    assert result.returncode == 0, f"tsc -p web/ui/static/jsconfig.json:\n{result.stdout}{result.stderr}"


def test_a_call_that_does_not_fit_the_clients_types_is_refused(tsc: list[str], tmp_path: Path) -> None:
    (tmp_path / "probe.js").write_text(
        f'import {{ api }} from {json.dumps(str(STATIC / "api" / "client.js"))};\n'
        'api.items.create({ boardId: "brd_1", groupId: "grp_1", name: 3 });\n'
        'api.itmes.list({ boardId: "brd_1" });\n'
        'api.items.update({ id: "itm_1", expectedVersion: "2" });\n', encoding="utf-8")
    (tmp_path / "jsconfig.json").write_text(json.dumps({"extends": str(STATIC / "jsconfig.json"),
                                                        "include": ["probe.js"]}), encoding="utf-8")
    result = _run(tsc, tmp_path / "jsconfig.json")
    errors = [line for line in result.stdout.splitlines() if line.startswith("probe.js(")]
    assert result.returncode != 0
    assert [line.split(",", 1)[0] for line in errors] == ["probe.js(2", "probe.js(3", "probe.js(4"], result.stdout
    assert "Property 'itmes' does not exist" in errors[1]
