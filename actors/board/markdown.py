"""Safe Markdown for comment bodies (`bodyHtml`) and the `@<user_id>` mentions in them.

Everything the author wrote is HTML-escaped; only this small subset becomes markup: paragraphs, line
breaks, bullet lists (`- `, `* `, `+ `), fenced code blocks (```` ``` ````), `**bold**`, `*italic*`,
`` `code` `` and links `[text](url)` whose URL is http, https or mailto. Any other link stays plain text,
raw HTML is shown as text, and every attribute value is quoted and escaped, so no output can run script.
Mentions of organization members become `<span class="mention" data-user-id="usr_...">`; mentions
inside code are text, as the author quoted them.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from html import escape
from urllib.parse import urlsplit

_MENTION = r"(?<![\w@])@(?P<mention>usr_[a-z0-9]{1,60})"
# Each alternative stops at the next marker character, so a body full of unmatched markers still scans
# in linear time (the renderer runs inside the board actor's turn).
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|\[(?P<text>[^\[\]\n]+)\]\((?P<url>[^()\s]+)\)"
    r"|\*\*(?P<bold>[^*\s](?:[^*\n]*[^*\s])?)\*\*"
    r"|\*(?P<italic>[^*\s](?:[^*\n]*[^*\s])?)\*"
    rf"|{_MENTION}")
_FENCE_OPEN = re.compile(r"^ {0,3}```[ \t]*([A-Za-z0-9_+-]{0,30})[ \t]*$")
_FENCE_CLOSE = re.compile(r"^ {0,3}```[ \t]*$")
_BULLET = re.compile(r"^ {0,3}[-*+][ \t]+(.*)$")
_SAFE_SCHEMES = {"http", "https", "mailto"}
_LINK_REL = "nofollow noopener noreferrer"


@dataclass(frozen=True)
class Rendered:
    html: str
    mentions: list[str]  # members mentioned, in order of first mention


def mention_candidates(body: str) -> set[str]:
    """Every `@usr_...` token of a body, member or not (to know whose membership matters)."""
    return set(re.findall(_MENTION, body))


def safe_url(url: str) -> bool:
    if any(ord(char) < 32 or ord(char) == 127 for char in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.scheme.lower() not in _SAFE_SCHEMES:
        return False
    return parts.scheme.lower() == "mailto" or bool(parts.netloc)


class _Renderer:
    def __init__(self, members: Collection[str]) -> None:
        self.members = members
        self.mentions: dict[str, None] = {}

    def inline(self, text: str) -> str:
        out: list[str] = []
        position = 0
        for match in _INLINE.finditer(text):
            out.append(escape(text[position:match.start()]))
            out.append(self._markup(match))
            position = match.end()
        out.append(escape(text[position:]))
        return "".join(out)

    def _markup(self, match: re.Match[str]) -> str:
        code, text, url, bold, italic, user_id = match.group("code", "text", "url", "bold", "italic", "mention")
        if code is not None:
            return f"<code>{escape(code)}</code>"
        if url is not None:
            if not safe_url(url):
                return escape(match.group(0))
            # Link text cannot hold brackets, so links never nest.
            return f'<a href="{escape(url)}" rel="{_LINK_REL}">{self.inline(text)}</a>'
        if bold is not None:
            return f"<strong>{self.inline(bold)}</strong>"
        if italic is not None:
            return f"<em>{self.inline(italic)}</em>"
        if user_id not in self.members:
            return escape(match.group(0))
        self.mentions[user_id] = None
        return f'<span class="mention" data-user-id="{escape(user_id)}">@{escape(user_id)}</span>'

    def blocks(self, body: str) -> str:
        lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        out: list[str] = []
        paragraph: list[str] = []
        bullets: list[str] = []

        def flush() -> None:
            if paragraph:
                out.append("<p>" + "<br>\n".join(self.inline(line) for line in paragraph) + "</p>")
                paragraph.clear()
            if bullets:
                out.append("<ul>" + "".join(f"<li>{self.inline(line)}</li>" for line in bullets) + "</ul>")
                bullets.clear()

        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            fence = _FENCE_OPEN.match(line)
            bullet = _BULLET.match(line)
            if fence:
                flush()
                code: list[str] = []
                while index < len(lines) and not _FENCE_CLOSE.match(lines[index]):
                    code.append(lines[index])
                    index += 1
                index += 1  # the closing fence (an unclosed block runs to the end)
                language = f' class="language-{escape(fence.group(1))}"' if fence.group(1) else ""
                out.append(f"<pre><code{language}>{escape(chr(10).join(code))}</code></pre>")
            elif bullet:
                if paragraph:
                    flush()
                bullets.append(bullet.group(1))
            elif not line.strip():
                flush()
            else:
                if bullets:
                    flush()
                paragraph.append(line.strip())
        flush()
        return "\n".join(out)


def render(body: str, members: Collection[str]) -> Rendered:
    """The body as safe HTML, and the members it mentions."""
    renderer = _Renderer(members)
    html = renderer.blocks(body)
    return Rendered(html, list(renderer.mentions))
