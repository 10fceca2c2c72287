"""The author documentation on the site: the rule pages (``/rules/``, ``/rules/<variant id>/``)
and the engine author's docs (``/docs/``, ``/docs/protocol/``, ...), rendered from the markdown
files of ``docs/`` so the site and the repository never differ.

Rendering: ``markdown-it-py`` in CommonMark mode with tables, **raw HTML off** (a ``<script>``
in a page is shown as text) and its default link check (no ``javascript:``/``vbscript:``/
``data:`` links). Headings get GitHub's anchors, so ``bao-la-kete.md#5-captures`` works in
both places; links between the served files become site links, and a relative link to any
other file of the repository is left as its text. Each ``example`` block
(``arena.web.rules_examples``) is drawn with the site's SVG board (``board.svg_board``) through
the auto-escaping template ``web/_rules_example.html``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from arena.rules import VARIANTS
from arena.web.board import svg_board
from arena.web.rules_examples import FENCE_INFO, ExampleError, parse_example
from arena.web.views import not_found


@dataclass(frozen=True)
class DocPage:
    """One served markdown file: ``path`` under ``docs/``, its site ``url`` and ``title``."""

    path: str
    url: str
    title: str
    summary: str


#: The rule pages: the shared notation, then one page per variant id (``docs/rules/<id>.md``).
RULES_INDEX = DocPage("rules/README.md", "/rules/", "The rules", "the three games, notation")
RULE_PAGES: dict[str, DocPage] = {
    variant: DocPage(f"rules/{variant}.md", f"/rules/{variant}/", variant, "")
    for variant in VARIANTS
}
#: The engine author's docs under ``/docs/<slug>/``, in the order ``/docs/`` lists them.
AUTHOR_DOCS: dict[str, DocPage] = {
    "protocol": DocPage(
        "protocol.md",
        "/docs/protocol/",
        "BEP, the Bao Engine Protocol",
        "what an engine reads and writes, clocks, what loses a game, packaging, the Python SDK",
    ),
    "api-engines": DocPage(
        "api-engines.md",
        "/docs/api-engines/",
        "The engines API",
        "uploading engines and versions over HTTP, validation",
    ),
    "sandbox": DocPage(
        "sandbox.md",
        "/docs/sandbox/",
        "The sandbox",
        "what an engine process may do: files, memory, time, network",
    ),
    "runtimes": DocPage(
        "runtimes.md",
        "/docs/runtimes/",
        "Runtimes",
        "what a worker offers engines: Python, node, Java and its flags, the C and C++ libraries",
    ),
    "play": DocPage(
        "play.md",
        "/docs/play/",
        "Playing an engine",
        "a person against a consenting engine in the browser or the API: clocks, limits",
    ),
    "conformance": DocPage(
        "rules/conformance.md",
        "/docs/conformance/",
        "Conformance data for porters",
        "positions with their legal moves and successors, perft tables: check a move generator",
    ),
}
#: The conformance data (``docs/rules/conformance/``) served as downloads under
#: ``/docs/data/<file name>``: one gzip JSONL file per variant and the perft table. A fixed
#: list, so no other file of the checkout can be asked for.
DATA_FILES: dict[str, str] = {
    **{f"{variant}.jsonl.gz": "application/gzip" for variant in VARIANTS},
    "perft.json": "application/json",
}
_SERVED = {
    page.path: page.url for page in (RULES_INDEX, *RULE_PAGES.values(), *AUTHOR_DOCS.values())
} | {f"rules/conformance/{name}": f"/docs/data/{name}" for name in DATA_FILES}


def docs_dir() -> Path:
    """The ``docs/`` folder of the checkout."""
    return Path(settings.BASE_DIR) / "docs"


# --------------------------------------------------------------------------- rendering


def _slug(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _site_link(href: str, page_path: str) -> str | None:
    """The site URL for a relative link ``href`` of the page at ``page_path`` (under
    ``docs/``), the href itself for anchors and absolute links, or None when it points at a
    repository file the site does not serve."""
    if href.startswith("#") or re.match(r"^[a-z][a-z0-9+.-]*:", href) or href.startswith("/"):
        return href
    target, _, anchor = href.partition("#")
    parts: list[str] = []
    for part in (PurePosixPath(page_path).parent / target).parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    url = _SERVED.get("/".join(parts))
    if url is None:
        return None
    return f"{url}#{anchor}" if anchor else url


class _Renderer:
    """One markdown-it parser for the served pages (built once: it holds no page state)."""

    def __init__(self) -> None:
        md = MarkdownIt("commonmark", {"html": False}).enable("table")
        md.add_render_rule("fence", _fence)
        self.md = md

    def render(self, text: str, page_path: str) -> str:
        tokens = self.md.parse(text)
        seen: dict[str, int] = {}
        for i, token in enumerate(tokens):
            if token.type == "heading_open":
                slug = _slug(tokens[i + 1].content)
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                token.attrSet("id", slug if n == 0 else f"{slug}-{n}")
            elif token.type == "inline" and token.children:
                token.children = _relink(token.children, page_path)
        return str(self.md.renderer.render(tokens, self.md.options, {}))


def _fence(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    """An ``example`` block drawn (``render_example``); any other fence as markdown-it's."""
    token = tokens[idx]
    if token.info.strip() == FENCE_INFO:
        return render_example(token.content)
    return renderer.fence(tokens, idx, options, env)


def _relink(children: list[Token], page_path: str) -> list[Token]:
    """Point links at the site's pages; drop the anchor of a link to an unserved file."""
    out: list[Token] = []
    dropped = 0
    for child in children:
        if child.type == "link_open":
            url = _site_link(str(child.attrGet("href") or ""), page_path)
            if url is None:
                dropped += 1
                continue
            child.attrSet("href", url)
        elif child.type == "link_close" and dropped:
            dropped -= 1
            continue
        out.append(child)
    return out


@lru_cache(maxsize=1)
def _renderer() -> _Renderer:
    return _Renderer()


def render_example(body: str) -> str:
    """The HTML of one example block: the position and each position after a move, drawn as
    SVG boards, with the legal moves and outcomes (escaped by the template)."""
    try:
        example = parse_example(body)
    except ExampleError as exc:
        return render_to_string("web/_rules_example.html", {"error": str(exc), "body": body})
    steps = [
        {"move": m.move, "position": m.next, "svg": svg_board(m.next), "outcome": m.outcome}
        for m in example.moves
    ]
    return render_to_string(
        "web/_rules_example.html",
        {
            "example": example,
            "before": {"position": example.position, "svg": svg_board(example.position)},
            "steps": steps,
        },
    )


@lru_cache(maxsize=32)
def _rendered(page_path: str, mtime_ns: int) -> SafeString:
    text = (docs_dir() / page_path).read_text(encoding="utf-8")
    # markdown-it escapes every text and attribute and renders no raw HTML (html=False);
    # the example blocks come from an auto-escaping template.
    return mark_safe(_renderer().render(text, page_path))


def rendered_page(page: DocPage) -> SafeString:
    """The HTML of ``page``, re-rendered when its file changes. Raises ``OSError`` when the
    file is missing."""
    path = docs_dir() / page.path
    return _rendered(page.path, path.stat().st_mtime_ns)


# --------------------------------------------------------------------------- views


def _doc_response(request: HttpRequest, page: DocPage, title: str) -> HttpResponse:
    try:
        body = rendered_page(page)
    except OSError:
        return not_found(request, f"The page {page.path} is missing from this installation.")
    return render(request, "web/doc_page.html", {"title": title, "body": body, "page": page})


def rules_index(request: HttpRequest) -> HttpResponse:
    """``/rules/``: ``docs/rules/README.md``, the three games and their shared notation."""
    return _doc_response(request, RULES_INDEX, "The rules")


def rules_page(request: HttpRequest, variant: str) -> HttpResponse:
    """``/rules/<variant id>/``: ``docs/rules/<variant id>.md``; 404 for another name."""
    page = RULE_PAGES.get(variant)
    if page is None:
        return not_found(request, f"There is no variant {variant!r}; the rules are at /rules/.")
    return _doc_response(request, page, f"Rules: {variant}")


def docs_index(request: HttpRequest) -> HttpResponse:
    """``/docs/``: the index of the engine author's documentation."""
    return render(
        request,
        "web/docs_index.html",
        {"docs": list(AUTHOR_DOCS.values()), "rules": RULES_INDEX, "variants": RULE_PAGES},
    )


def doc_page(request: HttpRequest, slug: str) -> HttpResponse:
    """``/docs/<slug>/``: one of ``AUTHOR_DOCS``; 404 for another slug."""
    page = AUTHOR_DOCS.get(slug)
    if page is None:
        return not_found(request, f"There is no document {slug!r}; the list is at /docs/.")
    return _doc_response(request, page, page.title)


def doc_data(request: HttpRequest, name: str) -> HttpResponse | FileResponse:
    """``/docs/data/<name>``: a conformance file of ``DATA_FILES`` as a download (the bytes of
    ``docs/rules/conformance/<name>``, never decompressed); 404 for any other name."""
    content_type = DATA_FILES.get(name)
    if content_type is None:
        return not_found(
            request, f"There is no data file {name!r}; the list is at /docs/conformance/."
        )
    path = docs_dir() / "rules" / "conformance" / name
    return FileResponse(
        path.open("rb"), as_attachment=True, filename=name, content_type=content_type
    )
