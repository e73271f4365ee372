"""How much JavaScript each screen of the front end makes the browser download, compressed: the shell (app.js
and everything it imports statically) plus the screen's module and its static imports, each file counted once
and gzip-compressed at level 9 as a server would send it. A screen's own lazy imports (a settings section) count
as screens of their own. `python scripts/ui_budget.py` prints the table; tests/unit/web/test_ui_budget.py holds
every screen to the budget."""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path, PurePosixPath

STATIC = Path(__file__).resolve().parent.parent / "web" / "ui" / "static"
# At most this many compressed bytes of JavaScript per screen (shell included).
BUDGET_BYTES = 150 * 1024
_STATIC_IMPORT = re.compile(r"""(?:^|;)\s*(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"'\s]+\.m?js)["']""",
                            re.MULTILINE)
_LAZY_IMPORT = re.compile(r"""\bimport\(\s*[`"']([^`"']+)[`"']\s*\)""")


def _resolve(importer: Path, specifier: str) -> Path:
    return (importer.parent / specifier).resolve() if specifier.startswith(".") else \
        (STATIC / PurePosixPath(specifier).relative_to("/ui")).resolve()


def static_graph(entry: Path) -> set[Path]:
    """`entry` and every module it imports statically, transitively."""
    seen: set[Path] = set()
    todo = [entry.resolve()]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(_resolve(module, spec) for spec in _STATIC_IMPORT.findall(module.read_text(encoding="utf-8")))
    return seen


def compressed(files: set[Path]) -> int:
    return sum(len(gzip.compress(path.read_bytes(), 9)) for path in files)


def screens() -> list[Path]:
    """Every module the shell or a screen loads lazily (a screen, a settings section)."""
    found = sorted((STATIC / "screens").rglob("*.js"))
    lazy = {path for path in found if not path.name.endswith(".strings.js")}
    imported = {dep for path in lazy for dep in static_graph(path) if dep != path}
    return [path for path in sorted(lazy) if path not in imported]


def sizes() -> dict[str, int]:
    """Compressed bytes per screen, shell included, by the screen's path under screens/."""
    shell = static_graph(STATIC / "app.js")

    def loaded(path: Path) -> set[Path]:
        # A lazily loaded part of a screen (screens/settings/members.js) comes with its screen (settings.js).
        parent = path.parent.with_suffix(".js")
        return static_graph(path) | (static_graph(parent) if parent.parent.name == "screens" else set())

    return {path.relative_to(STATIC / "screens").as_posix(): compressed(shell | loaded(path)) for path in screens()}


def main() -> None:
    shell = compressed(static_graph(STATIC / "app.js"))
    print(f"{'screen':40} {'KB (gzip -9, shell included)':>30}")
    print(f"{'(shell alone)':40} {shell / 1024:30.1f}")
    for name, size in sorted(sizes().items()):
        print(f"{name:40} {size / 1024:30.1f}")
    print(f"budget per screen: {BUDGET_BYTES / 1024:.0f} KB")
    sys.exit(0)


if __name__ == "__main__":
    main()
