"""What python-engineio, python-socketio and asyncio do not document is used in one module only,
web/engineio_internals.py, which lists each assumption (their canaries: tests/integration/live/
test_engineio_assumptions.py). No other module of the server imports engine.io or python-socketio's modules
below `socketio`, names the attributes those assumptions are about, or reads the aiohttp request from an
environ."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("server", "web", "actors", "protocol", "storage")
THE_MODULE = ROOT / "web" / "engineio_internals.py"
# Attributes of engine.io's, python-socketio's and asyncio's objects that web/engineio_internals.py reaches.
ATTRIBUTES = frozenset({"_getters", "_putters", "_async", "_sock", "eio", "packet_class", "sockets",
                        "get_participants", "upgraded", "upgrading", "manager"})
DOCUMENTED_SUBMODULES = frozenset({"socketio.exceptions"})


def _touches(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names = [node.module]
        else:
            names = []
        found += [f"imports {name}" for name in names if name.split(".")[0] == "engineio"
                  or (name.startswith("socketio.") and name not in DOCUMENTED_SUBMODULES)]
        if isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
            found.append(f"line {node.lineno}: .{node.attr}")
        if isinstance(node, ast.Constant) and node.value == "aiohttp.request":
            found.append(f"line {node.lineno}: 'aiohttp.request'")
    return found


def test_only_web_engineio_internals_touches_engineio_socketio_and_asyncio_internals() -> None:
    offenders = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == THE_MODULE:
                continue
            found = _touches(ast.parse(path.read_text(), str(path)))
            if found:
                offenders[str(path.relative_to(ROOT))] = found
    assert offenders == {}, "use web/engineio_internals.py (and list the assumption there)"
