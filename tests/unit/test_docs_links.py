"""Every relative link of the README and the manual (docs/*.md, and the API reference in docs/api/) names a file
of the repository, and, when it names a section (`file.md#anchor`), a heading of that file under the anchor GitHub
gives it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "api").glob("*.md"))]
# [text](target) and ![alt](target); the text may run over lines. Code (fenced or inline) is left out first.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped but `-` and `_`, spaces to `-`."""
    text = FENCE.sub("", page.read_text())
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def relative_links(page: Path) -> list[str]:
    text = CODE.sub("", FENCE.sub("", page.read_text()))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def test_the_readme_links_the_manual_and_its_index_links_every_page() -> None:
    assert "docs/README.md" in relative_links(ROOT / "README.md")
    index = {target.partition("#")[0] for target in relative_links(ROOT / "docs" / "README.md")}
    pages = {page.name for page in PAGES if page.parent.name == "docs" and page.name != "README.md"}
    assert len(pages) > 10 and not pages - index, f"pages the index does not link: {sorted(pages - index)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no file {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked}")
        elif anchor and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with the anchor #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_anchors_follow_github() -> None:
    page = ROOT / "README.md"
    assert "five-minute-tour" in anchors(page) and "where-next" in anchors(page)
