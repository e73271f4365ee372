"""The origins a plain page's policy lets its forms redirect to: only ones that can be written there as they are."""

from __future__ import annotations

import pytest

from web.plain_pages import origin_of, plain_page


@pytest.mark.parametrize(("url", "origin"), [
    ("https://App.Example/cb?x=1#f", "https://app.example"), ("http://localhost:8080/cb", "http://localhost:8080"),
    ("http://[::1]:3000/cb", "http://[::1]:3000"), ("https://user:pw@host.example/cb", "https://host.example"),
    ("javascript:alert(1)", None), ("https://a.example;script-src *", None), ("https://a b.example/", None),
    ("http://localhost:99999/", None), ("https:///nohost", None), ("ftp://files.example/", None),
])
def test_origin_of(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin


def test_a_page_allows_only_its_redirect_origins() -> None:
    page = plain_page("T", "", redirects_to=("https://a.example/x", "javascript:1", "https://a.example/y"))
    assert page.headers["Content-Security-Policy"].startswith("default-src 'none'; form-action 'self' https://a.example;")
    assert "form-action 'self';" in plain_page("T", "").headers["Content-Security-Policy"]
