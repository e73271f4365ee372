"""The vendored front-end libraries are exactly what web/ui/vendor.lock.json records: every listed file is there with
its hash, nothing unlisted sits beside them, every package's licence is shipped, and every vendored module imports
only sibling files by relative paths (the browser has no import map and the CSP allows only our own origin)."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "vendor_ui.py"
LOCK = ROOT / "web" / "ui" / "vendor.lock.json"
VENDOR_FOLDERS = [ROOT / "web" / "ui" / "static" / "vendor", ROOT / "tests" / "browser" / "vendor"]
LICENSES = ROOT / "web" / "ui" / "static" / "vendor" / "LICENSES.txt"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vendor_ui", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


vendor_ui = load_script()


def packages() -> list[dict[str, Any]]:
    packages: list[dict[str, Any]] = json.loads(LOCK.read_text())["packages"]
    return packages


def listed() -> dict[str, str]:
    return {file["to"]: file["sha256"] for package in packages() for file in package["files"]}


def test_the_lock_is_sorted_and_formatted_as_the_script_writes_it() -> None:
    names = [package["name"] for package in packages()]
    assert names == sorted(names) and len(names) == len(set(names))
    assert LOCK.read_text() == json.dumps(json.loads(LOCK.read_text()), indent=2) + "\n"
    assert {(p["name"], p["version"]) for p in packages()} == {(p.name, p.version) for p in vendor_ui.PACKAGES}


@pytest.mark.parametrize("path", sorted(listed()))
def test_every_listed_file_is_there_with_its_hash(path: str) -> None:
    assert (ROOT / path).is_file(), f"{path} is in the lock but missing"
    assert vendor_ui.sha256((ROOT / path).read_bytes()) == listed()[path], f"{path} differs from the lock"


def test_every_file_in_the_vendor_folders_is_listed() -> None:
    found = {p.relative_to(ROOT).as_posix() for folder in VENDOR_FOLDERS for p in folder.rglob("*") if p.is_file()}
    ours = {path for path in found if path.endswith(vendor_ui.DECLARATIONS)}
    assert found - ours - {LICENSES.relative_to(ROOT).as_posix()} == set(listed())


def test_every_served_module_has_our_type_declaration_beside_it() -> None:
    # Without one, tsc (tests/unit/web/test_ui_types.py) would type-check the minified third-party code.
    served = [path for path in listed() if path.startswith("web/") and path.endswith(".mjs")]
    assert served and all((ROOT / path.replace(".mjs", vendor_ui.DECLARATIONS)).is_file() for path in served)


@pytest.mark.parametrize("package", packages(), ids=lambda package: package["name"])
def test_every_package_has_its_licence_in_the_lock_and_its_text_shipped(package: dict[str, Any]) -> None:
    assert re.fullmatch(r"[A-Za-z0-9.+-]+", package["license"]), package["license"]
    assert package["integrity"].startswith("sha512-") and package["tarball"].endswith(".tgz")
    sections = re.split(r"^={80}\n", LICENSES.read_text(), flags=re.M)
    # Header, then each package's title block and its text in turn.
    pairs = zip(sections[1::2], sections[2::2], strict=True)
    texts = {block.splitlines()[0].split(" ")[0]: (block, text) for block, text in pairs}
    block, text = texts[f"{package['name']}@{package['version']}"]
    assert f"SPDX-License-Identifier: {package['license']}" in block.splitlines()
    assert len(text.strip()) > 500, f"{package['name']}: no licence text in {LICENSES.name}"


def test_the_test_only_package_is_marked_as_not_served() -> None:
    assert "axe-core@4.14.1 (tests only, not served)" in LICENSES.read_text().splitlines()
    assert all(not f["to"].startswith("web/") for p in packages() if p["name"] == "axe-core" for f in p["files"])


@pytest.mark.parametrize("path", sorted(path for path in listed() if path.endswith(".mjs")))
def test_every_vendored_module_imports_only_sibling_files_by_relative_paths(path: str) -> None:
    source = (ROOT / path).read_text()
    specifiers = vendor_ui.import_specifiers(source)
    assert not [s for s in specifiers if not s.startswith(("./", "../"))], f"{path}: bare or absolute specifiers"
    assert vendor_ui.unresolved_imports(path, source, set(listed())) == []
    assert "sourceMappingURL" not in source


def test_the_specifier_parser_finds_every_form_of_import() -> None:
    source = ('import{a as b}from"preact";import "side";export{c}from\'./c.mjs\';'
              'const m=import( "https://cdn.example/x.mjs");Array.from("not-an-import");')
    assert vendor_ui.import_specifiers(source) == ["preact", "side", "./c.mjs", "https://cdn.example/x.mjs"]
    assert vendor_ui.unresolved_imports("v/a.mjs", source, {"v/c.mjs"}) == ["preact", "side",
                                                                            "https://cdn.example/x.mjs"]


def test_the_rewrite_makes_bare_specifiers_relative_and_drops_the_source_map() -> None:
    source = b'import{options as n}from"preact";export{x}from"@preact/signals-core";\n//# sourceMappingURL=a.mjs.map\n'
    assert vendor_ui.prepare("v/a.mjs", source) == (b'import{options as n}from"./preact.mjs";'
                                                    b'export{x}from"./signals-core.mjs";\n')


def run_check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "scripts/vendor_ui.py", "--check"], cwd=root, capture_output=True, text=True)


def test_check_mode_passes_on_the_repository_and_names_a_changed_file(tmp_path: Path) -> None:
    assert (run_check(ROOT).returncode, run_check(ROOT).stderr) == (0, "")

    # A copy of the repository's vendored part, the script included (it finds the repository from its own path).
    for path in [*listed(), *(p.relative_to(ROOT).as_posix() for p in [LICENSES, LOCK, SCRIPT])]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, tmp_path / path)
    assert (run_check(tmp_path).returncode, run_check(tmp_path).stderr) == (0, "")
    with (tmp_path / "web/ui/static/vendor/htm.mjs").open("ab") as changed:
        changed.write(b"\n")
    (tmp_path / "tests/browser/vendor/extra.js").write_text("")
    ran = run_check(tmp_path)
    assert ran.returncode == 1
    assert ran.stderr.splitlines() == ["web/ui/static/vendor/htm.mjs: sha256 differs from web/ui/vendor.lock.json",
                                       "tests/browser/vendor/extra.js: not listed in web/ui/vendor.lock.json"]
