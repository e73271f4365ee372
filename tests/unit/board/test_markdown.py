"""Comment Markdown: the supported subset renders, everything else is escaped text, and no output can
carry script (tags, event-handler attributes, script URLs, broken-out attribute values)."""

from __future__ import annotations

import re
import time

import pytest

from actors.board.markdown import mention_candidates, render, safe_url

MEMBER = "usr_abcdefghij234567abcd"
OTHER = "usr_zzzzzzzzzz234567zzzz"
_TAG = re.compile(r"</?([a-z]+)([^>]*)>")
# The only markup the renderer may produce, with the only attributes each tag may carry.
_ALLOWED = {"p": set(), "br": set(), "ul": set(), "li": set(), "strong": set(), "em": set(), "code": {"class"},
            "pre": set(), "a": {"href", "rel"}, "span": {"class", "data-user-id"}}


def html(body: str) -> str:
    return render(body, {MEMBER}).html


def assert_inert(markup: str) -> None:
    """Every tag is an allowed one with allowed, quoted attributes; no `<` or quote escapes elsewhere."""
    for name, attributes in _TAG.findall(markup):
        assert name in _ALLOWED, markup
        names = re.findall(r'\s([a-z-]+)="[^"<>]*"', attributes)
        assert re.sub(r'\s[a-z-]+="[^"<>]*"', "", attributes) == "", markup
        assert set(names) <= _ALLOWED[name], markup
    text = _TAG.sub("", markup)
    assert "<" not in text and ">" not in text and '"' not in text, markup
    for href in re.findall(r'href="([^"]*)"', markup):
        assert href.startswith(("http://", "https://", "mailto:")), markup


def test_the_subset_renders() -> None:
    assert html("**bold** and *italic* and `x < y`") == (
        "<p><strong>bold</strong> and <em>italic</em> and <code>x &lt; y</code></p>")
    assert html("line one\nline two\n\nnext paragraph") == "<p>line one<br>\nline two</p>\n<p>next paragraph</p>"
    assert html("- a\n* b\n+ c") == "<ul><li>a</li><li>b</li><li>c</li></ul>"
    assert html("```python\nif a < b:\n    pass\n```") == (
        '<pre><code class="language-python">if a &lt; b:\n    pass</code></pre>')
    assert html("[docs](https://example.com/a?b=1&c=2)") == (
        '<p><a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">docs</a></p>')
    assert html("[mail](mailto:ops@example.com)").startswith('<p><a href="mailto:ops@example.com"')


def test_products_and_spaced_stars_stay_text() -> None:
    assert html("2 * 3 * 4") == "<p>2 * 3 * 4</p>"


@pytest.mark.parametrize("body", [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](javascript:alert`1`)",
    "[x](JaVaScRiPt:alert)",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "[x](//evil.example/path)",
    '[a" onmouseover="alert(1)](https://example.com/"onclick="alert(1))',
    "[<b>hi</b>](https://example.com/'><script>)",
    "**<svg onload=alert(1)>**",
    "```js\" onclick=\"alert(1)\n<script>x</script>\n```",
    "`<iframe src=javascript:alert(1)>`",
    "- <a href='javascript:alert(1)'>x</a>",
    "&lt;script&gt; &#x3C;script&#x3E;",
    f"@{MEMBER}\"><script>",
])
def test_no_executable_html(body: str) -> None:
    markup = html(body)
    assert_inert(markup)
    assert "<script" not in markup.lower() and "<img" not in markup and "<svg" not in markup


def test_unsafe_links_stay_text() -> None:
    assert html("[x](javascript:alert(1))") == "<p>[x](javascript:alert(1))</p>"
    assert html("[x](JaVaScRiPt:alert)") == "<p>[x](JaVaScRiPt:alert)</p>"
    assert not safe_url("https:///nohost") and not safe_url("java\tscript:x") and safe_url("http://a.example")


def test_mentions_of_members_only_and_not_in_code() -> None:
    rendered = render(f"hi @{MEMBER} and @{OTHER}, `@{MEMBER}` again @{MEMBER}", {MEMBER})
    assert rendered.mentions == [MEMBER]
    assert rendered.html.count('class="mention"') == 2
    assert f'data-user-id="{MEMBER}"' in rendered.html and f"@{OTHER}" in rendered.html
    assert render(f"mail me at ops@{MEMBER}", {MEMBER}).mentions == []
    assert mention_candidates(f"@{MEMBER} @{OTHER} x@{OTHER}") == {MEMBER, OTHER}


def test_unmatched_markers_render_in_linear_time() -> None:
    """Decided inside the actor's turn: a 10,000-character body of open markers must not backtrack."""
    for body in ("** " * 3333, "*a" * 5000, "[" * 10_000, "`" * 10_000, "[a](" * 2500):
        started = time.perf_counter()
        assert_inert(html(body))
        assert time.perf_counter() - started < 0.5
