"""Chat replies as Markdown, made safe: the one place the web UI turns model text into HTML.

A model's reply is untrusted text (a prompt can make it say anything, ``<script>``
included), so it goes through two independent layers: markdown-it-py parses CommonMark
(plus tables and strikethrough) with raw HTML **off**, so any tag in the reply comes out
as text; then nh3 (Rust's ammonia) keeps only an allow-list of tags and attributes, and
only http(s) and mailto links, which get ``rel="noopener noreferrer nofollow"``. Either
layer alone would stop ``<script>`` or ``onerror=``; both together also stop what a
parser bug or a ``javascript:`` link would let through. The chat page renders recorded
replies with it (the ``markdown`` filter) and asks ``POST /ui/markdown`` for a reply it
has just streamed, so there is one renderer and no Markdown library in the browser.
docs/security.md says why server-side.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

MAX_REPLY = 200_000  # characters: the longest reply memoryd records
TAGS = {
    *("p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "blockquote"),
    *("ul", "ol", "li", "a", "h1", "h2", "h3", "h4", "h5", "h6"),
    *("table", "thead", "tbody", "tr", "th", "td"),
}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"style"}, "td": {"style"}}
URL_SCHEMES = {"http", "https", "mailto"}

_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_PARSER.enable(["table", "strikethrough"])


def render_markdown(text: str) -> str:
    """``text`` (Markdown) as sanitised HTML."""
    return nh3.clean(
        _PARSER.render(text[:MAX_REPLY]),
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        filter_style_properties={"text-align"},
    )


def markdown_filter(text: str) -> Markup:
    return Markup(render_markdown(text))
