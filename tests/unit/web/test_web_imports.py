"""The edge reaches the database only through the kernel: no module of `web/` imports `storage` or asyncpg."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[3] / "web"
FORBIDDEN = ("storage", "asyncpg")


def _imported(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
    return names


def test_no_web_module_imports_storage_or_asyncpg() -> None:
    offenders = {}
    for path in sorted(WEB.glob("*.py")):
        bad = sorted(name for name in _imported(ast.parse(path.read_text(), str(path)))
                     if name.split(".")[0] in FORBIDDEN)
        if bad:
            offenders[path.name] = bad
    assert offenders == {}
