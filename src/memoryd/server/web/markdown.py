"""Chat replies as Markdown, made safe: the one place the web UI turns model text into HTML.

A reply is untrusted text, so it goes through two independent layers: markdown-it-py with
raw HTML off (a tag comes out as text), then nh3 with an allow-list of tags, attributes
and link schemes; either alone would stop ``<script>``, both also stop what a parser bug
would let through. docs/security.md says why this is done on the server.
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
