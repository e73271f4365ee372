"""No module of Obeya imports itself back through others: the import graph of the five top-level packages is a
tree of layers with no loop (docs/architecture.md, "Layers and packages"). Imports made only for type checking
count too: a loop there is a loop in what a reader has to understand. The layers themselves are held by the
import contracts in pyproject.toml (`lint-imports` in .ci/run)."""

from __future__ import annotations

from graphlib import CycleError, TopologicalSorter

import grimp

PACKAGES = ("server", "web", "actors", "storage", "protocol")


def test_no_module_imports_itself_back() -> None:
    graph = grimp.build_graph(*PACKAGES)
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    try:
        TopologicalSorter(imports).prepare()
    except CycleError as loop:
        raise AssertionError("an import loop: " + " -> ".join(reversed(loop.args[1]))) from None
