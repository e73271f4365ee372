"""Every screen of the front end stays within its JavaScript budget (150 KB compressed, the shell included), and
the measure itself follows imports the way the browser does."""

from __future__ import annotations

from pathlib import Path

from scripts import ui_budget


def test_every_screen_is_within_the_budget() -> None:
    over = {name: size for name, size in ui_budget.sizes().items() if size > ui_budget.BUDGET_BYTES}
    assert not over, f"screens over {ui_budget.BUDGET_BYTES} compressed bytes of JavaScript: {over}"


def test_the_shell_graph_holds_the_vendored_libraries_and_the_live_connection() -> None:
    names = {path.relative_to(ui_budget.STATIC).as_posix() for path in ui_budget.static_graph(
        ui_budget.STATIC / "app.js")}
    assert {"app.js", "lib.js", "api.js", "live.js", "vendor/preact.mjs", "vendor/hooks.mjs",
            "vendor/socket.io.mjs", "vendor/signals-core.mjs"} <= names


def test_imports_are_followed_transitively_and_counted_once(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\nimport "./c.js";\nexport { c } from "./c.js";\n')
    (tmp_path / "b.js").write_text('import { c } from "./c.js";\nexport const b = 1;\n')
    (tmp_path / "c.js").write_text("export const c = 2;\n" * 100)
    graph = ui_budget.static_graph(tmp_path / "a.js")
    assert graph == {tmp_path / "a.js", tmp_path / "b.js", tmp_path / "c.js"}
    assert ui_budget.compressed(graph) < sum(len(p.read_bytes()) for p in graph)
