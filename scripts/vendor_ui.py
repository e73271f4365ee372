"""Vendors the browser front end's third-party files from npm packages and keeps web/ui/vendor.lock.json.

`python scripts/vendor_ui.py` fetches each package of PACKAGES below with `npm pack`, checks the tarball against
the registry's integrity, copies the listed files (import specifiers rewritten to relative ones, source map comments
dropped), writes the licence texts to web/ui/static/vendor/LICENSES.txt and rewrites the lock. Running it twice
changes nothing. `python scripts/vendor_ui.py --check` only compares the files on disk with the lock, offline.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import posixpath
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    files: tuple[tuple[str, str], ...]  # (path inside the package, path in this repository)
    licence_files: tuple[str, ...] = ("LICENSE",)
    note: str = ""


STATIC = "web/ui/static/vendor"
TESTS = "tests/browser/vendor"
# Preact 11 ships its ES modules only as .mjs (10.x had dist/preact.module.js).
PACKAGES = (
    Package("preact", "11.2.0", (("dist/preact.mjs", f"{STATIC}/preact.mjs"),
                                 ("hooks/dist/hooks.mjs", f"{STATIC}/hooks.mjs"))),
    Package("htm", "3.1.1", (("dist/htm.module.js", f"{STATIC}/htm.mjs"),)),
    Package("@preact/signals-core", "1.14.5", (("dist/signals-core.module.js", f"{STATIC}/signals-core.mjs"),)),
    Package("@preact/signals", "2.11.4", (("dist/signals.module.js", f"{STATIC}/signals.mjs"),)),
    Package("socket.io-client", "4.8.4", (("dist/socket.io.esm.min.js", f"{STATIC}/socket.io.mjs"),)),
    # The wall screen's KPI trend charts; its CSS is served as a file (the page's CSP allows no inline style).
    Package("uplot", "1.6.32", (("dist/uPlot.esm.js", f"{STATIC}/uplot.mjs"),
                                ("dist/uPlot.min.css", f"{STATIC}/uplot.css"))),
    Package("axe-core", "4.14.1", (("axe.min.js", f"{TESTS}/axe.min.js"),),
            licence_files=("LICENSE", "LICENSE-3RD-PARTY.txt"), note="tests only, not served"),
)
# Bare specifiers in vendored modules and the sibling file each becomes, so the browser needs no import map.
REWRITES = {"preact": "./preact.mjs", "preact/hooks": "./hooks.mjs", "@preact/signals-core": "./signals-core.mjs"}

ROOT = Path(__file__).resolve().parents[1]
LOCK = "web/ui/vendor.lock.json"
LICENSES = f"{STATIC}/LICENSES.txt"
# Our own type declarations beside the served modules (`preact.d.mts` ...): tsc reads them instead of checking the
# minified code. Not from npm, so neither listed in the lock nor removed as stale.
DECLARATIONS = ".d.mts"
# `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`; not `Array.from("x")` nor `a.import(…)`.
SPECIFIER = re.compile(r"""(?<![\w$.])(?:import\s*\(\s*|(?:from|import)\s*)(["'])([^"'\n]*)\1""")
SOURCE_MAP = re.compile(rb"\n?//# sourceMappingURL=[^\n]*\n?\Z")


def import_specifiers(source: str) -> list[str]:
    """The module specifiers a JavaScript module imports or re-exports from."""
    return [match.group(2) for match in SPECIFIER.finditer(source)]


def unresolved_imports(path: str, source: str, vendored: set[str]) -> list[str]:
    """The specifiers of the module at `path` that are not relative, or name no file in `vendored`."""
    here = PurePosixPath(path).parent
    return [spec for spec in import_specifiers(source)
            if not spec.startswith(("./", "../")) or posixpath.normpath(here / spec) not in vendored]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def prepare(destination: str, data: bytes) -> bytes:
    """A package file as it is vendored: no trailing source map comment; a module's bare specifiers rewritten."""
    data = SOURCE_MAP.sub(b"\n", data)
    if destination.endswith(".mjs"):
        data = SPECIFIER.sub(_rewrite, data.decode()).encode()
    return data


def _rewrite(match: re.Match[str]) -> str:
    quote, specifier = match.groups()
    before = match.group(0)[: match.start(2) - match.start(0)]  # `from"`, `import(` and the like, kept as written
    return before + REWRITES.get(specifier, specifier) + quote


def _npm_json(*args: str, cwd: Path) -> Any:
    done = subprocess.run(["npm", *args, "--json"], cwd=cwd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def fetch(package: Package, workdir: Path) -> tuple[dict[str, Any], tarfile.TarFile]:
    """The registry's `dist` record for the package and its tarball, checked against the registry's integrity."""
    spec = f"{package.name}@{package.version}"
    dist: dict[str, Any] = _npm_json("view", spec, "dist", cwd=workdir)
    packed: dict[str, Any] = _npm_json("pack", spec, "--pack-destination", str(workdir), cwd=workdir)[0]
    tarball = (workdir / packed["filename"]).read_bytes()
    ours = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if not dist["integrity"] == packed["integrity"] == ours:
        sys.exit(f"{spec}: integrity differs: registry {dist['integrity']}, npm {packed['integrity']}, file {ours}")
    return dist, tarfile.open(workdir / packed["filename"])


def read_member(archive: tarfile.TarFile, path: str) -> bytes:
    """A file of the package by its path inside it (tarballs nest everything under one folder, usually package/)."""
    for member in archive.getmembers():
        if member.isfile() and member.name.split("/", 1)[-1] == path:
            extracted = archive.extractfile(member)
            assert extracted is not None
            return extracted.read()
    sys.exit(f"tarball {archive.name!r} has no file {path}")


def licence_section(package: Package, spdx: str, texts: list[bytes]) -> str:
    title = f"{package.name}@{package.version}" + (f" ({package.note})" if package.note else "")
    rule = "=" * 80
    files = ", ".join(to for _, to in package.files)
    body = "\n\n".join(text.decode().strip("\n") for text in texts)
    return f"{rule}\n{title}\nSPDX-License-Identifier: {spdx}\nFiles: {files}\n{rule}\n\n{body}\n"


def refresh(root: Path) -> None:
    written: dict[str, bytes] = {}
    entries: list[dict[str, Any]] = []
    sections: list[str] = []
    with tempfile.TemporaryDirectory() as temp:
        for package in sorted(PACKAGES, key=lambda p: p.name):
            workdir = Path(temp) / package.name.replace("/", "+")
            workdir.mkdir()
            dist, archive = fetch(package, workdir)
            with archive:
                manifest = json.loads(read_member(archive, "package.json"))
                if (manifest["name"], manifest["version"]) != (package.name, package.version):
                    sys.exit(f"{package.name}@{package.version}: the tarball holds "
                             f"{manifest['name']}@{manifest['version']}")
                files = []
                for source, destination in sorted(package.files, key=lambda f: f[1]):
                    written[destination] = prepare(destination, read_member(archive, source))
                    files.append({"from": source, "to": destination, "sha256": sha256(written[destination])})
                sections.append(licence_section(package, manifest["license"],
                                                [read_member(archive, name) for name in package.licence_files]))
            entries.append({"name": package.name, "version": package.version, "license": manifest["license"],
                            "integrity": dist["integrity"],
                            # The path under the npm registry, which npm's own configuration names.
                            "tarball": urlsplit(dist["tarball"]).path.lstrip("/"), "files": files})
    for path, data in written.items():
        if path.endswith(".mjs") and (bad := unresolved_imports(path, data.decode(), set(written))):
            sys.exit(f"{path}: imports that are not vendored files: {bad}")
    header = ("Licences of the third-party code vendored by scripts/vendor_ui.py, each copied from its npm "
              "package.\n\n")
    written[LICENSES] = (header + "\n".join(sections)).encode()
    written[LOCK] = (json.dumps({"packages": entries}, indent=2) + "\n").encode()
    for folder in {STATIC, TESTS}:
        for stale in (root / folder).glob("*"):
            if stale.is_file() and stale.relative_to(root).as_posix() not in written \
                    and not stale.name.endswith(DECLARATIONS):
                stale.unlink()
    for path, data in written.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)


def check(root: Path) -> list[str]:
    """What on disk differs from the lock: a changed or missing file, or a file in a vendor folder it does not list."""
    lock = json.loads((root / LOCK).read_text())
    listed = {file["to"]: file["sha256"] for package in lock["packages"] for file in package["files"]}
    problems = []
    for path, digest in sorted(listed.items()):
        target = root / path
        if not target.is_file():
            problems.append(f"{path}: missing")
        elif sha256(target.read_bytes()) != digest:
            problems.append(f"{path}: sha256 differs from {LOCK}")
    for folder in sorted({str(PurePosixPath(path).parent) for path in listed}):
        for found in sorted((root / folder).glob("*")):
            path = found.relative_to(root).as_posix()
            if path not in listed and path != LICENSES and not path.endswith(DECLARATIONS):
                problems.append(f"{path}: not listed in {LOCK}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare the files on disk with the lock, offline")
    if parser.parse_args().check:
        problems = check(ROOT)
        for problem in problems:
            print(problem, file=sys.stderr)
        sys.exit(1 if problems else 0)
    refresh(ROOT)


if __name__ == "__main__":
    main()
