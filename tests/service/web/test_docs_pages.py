"""The rule pages and the author docs on the site: rendered from ``docs/``, every worked example
drawn, every link between them landing on an anchor that exists, nothing unescaped, and the
links from the home, upload and replay pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from arena.rules import VARIANTS
from arena.web import docs_pages
from arena.web.rules_examples import examples_in

DOCS = Path(__file__).resolve().parents[3] / "docs"
PAGES = ["/rules/", *(f"/rules/{v}/" for v in VARIANTS), "/docs/", "/docs/protocol/"]


def _get(url: str) -> str:
    response = Client().get(url)
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.mark.django_db
def test_each_rule_page_draws_every_example_before_and_after_each_move() -> None:
    for variant in VARIANTS:
        html = _get(f"/rules/{variant}/")
        examples = examples_in((DOCS / "rules" / f"{variant}.md").read_text())
        assert html.count('<figure class="rules-example"') == len(examples) > 0
        boards = sum(1 + len(e.moves) for e in examples)
        assert html.count('<svg class="board ') == boards, variant
        kind = "kingulu" if variant == "bao-kingulu" else "bao"
        assert html.count(f'<svg class="board {kind}"') == boards
        first = examples[0]
        assert f"<b>{first.name}</b>" in html and f"<code>{first.legal[0]}</code>" in html
        assert "```" not in html and "example:" not in html  # no block left as raw text


@pytest.mark.django_db
def test_the_kete_page_marks_the_owned_kuu_and_the_hizi_zetu_pit() -> None:
    html = _get("/rules/bao-la-kete/")
    assert '<h2 id="10-worked-examples">' in html and '<h3 id="42-the-mtaji-stage">' in html
    assert 'class="pit south nyumba owned"' in html  # e2 while South's kuu is owned
    assert 'class="pit north marked"' in html  # e3 in KETE-12's position after g2-
    assert "<b>1-0 bao_hamna hand 3</b>" in html and "0-1 no_legal_move" in html


@pytest.mark.django_db
def test_the_rules_index_lists_the_three_games_and_the_notation() -> None:
    html = _get("/rules/")
    for variant in VARIANTS:
        assert f'href="/rules/{variant}/"' in html
    assert '<h3 id="71-bpn-bao-la-kete-bao-la-kiswahili">' in html and "<table>" in html


@pytest.mark.django_db
def test_every_link_between_the_docs_lands_on_an_anchor_that_exists() -> None:
    ids: dict[str, set[str]] = {}
    hrefs: list[tuple[str, str]] = []
    for url in PAGES:
        html = _get(url)
        ids[url] = set(re.findall(r' id="([^"]+)"', html))
        body = html[html.index("<main") :]
        hrefs += [(url, h) for h in re.findall(r' href="([^"]+)"', body)]
    checked = 0
    for page, href in hrefs:
        path, _, anchor = href.partition("#")
        target = path or page
        if not (target.startswith("/rules/") or target.startswith("/docs/")):
            continue
        if target not in ids:
            ids[target] = set(re.findall(r' id="([^"]+)"', _get(target)))
        assert not anchor or anchor in ids[target], (page, href)
        checked += 1
    assert checked > 100


@pytest.mark.django_db
def test_an_unknown_variant_or_document_is_the_styled_404_page() -> None:
    for url, name in (("/rules/chess/", "chess"), ("/docs/passwords/", "passwords")):
        response = Client().get(url)
        assert response.status_code == 404
        html = response.content.decode()
        assert "<h1>Not found</h1>" in html and f"&#x27;{name}&#x27;" in html


@pytest.mark.django_db
def test_the_docs_index_links_the_protocol_and_the_rules() -> None:
    html = _get("/docs/")
    for href in ("/docs/protocol/", "/docs/api-engines/", "/docs/sandbox/", "/rules/"):
        assert f'href="{href}"' in html
    protocol = _get("/docs/protocol/")
    assert '<h2 id="7-notation">' in protocol
    assert 'href="/rules/#6-move-tokens"' in protocol and 'href="/rules/bao-la-kete/"' in protocol


@pytest.mark.django_db
def test_markdown_html_links_and_example_fields_are_escaped() -> None:
    text = (
        "# T <b>x</b>\n\n<script>alert(1)</script>\n\n[a](javascript:alert(1)) [b](../x/y.py)"
        " [c](bao-kingulu.md#3-a-move)\n\n```example\nexample: <i>E</i>\n"
        "position: <img src=x onerror=alert(1)>\nlegal: <b>\n```\n"
    )
    html = docs_pages._renderer().render(text, "rules/bao-la-kete.md")
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>x</b>" not in html
    assert 'id="t-bxb"' in html
    assert "javascript:" not in html.replace("[a](javascript:alert(1))", "")
    assert '[a](javascript:alert(1)) b <a href="/rules/bao-kingulu/#3-a-move">c</a>' in html
    assert "../x/y.py" not in html  # an unserved file: its text, no link
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<i>E</i>" not in html and "&lt;i&gt;E&lt;/i&gt;" in html


@pytest.mark.django_db
def test_the_home_page_says_what_bao_is_and_links_the_docs() -> None:
    html = _get("/")
    assert 'id="what-is-bao"' in html
    for href in ("/rules/", "/rules/bao-la-kete/", "/docs/protocol/", "/docs/"):
        assert f'href="{href}"' in html


@pytest.mark.django_db
def test_the_upload_page_links_the_protocol_and_the_rules(alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    html = client.get("/engines/upload/").content.decode()
    assert 'href="/docs/protocol/"' in html and 'href="/rules/"' in html
    assert "<code>docs/protocol.md</code>" not in html


@pytest.mark.django_db
def test_the_replay_and_live_pages_link_the_rules_of_their_variant(
    make_game: Any, world: Any
) -> None:
    game = make_game("bao-kingulu", plies=4)
    html = _get(f"/games/{game.pk}/")
    assert 'href="/rules/bao-kingulu/">The rules of bao-kingulu</a>' in html
    live = world(2)["live"]
    html = _get(f"/live/{live.pk}/")
    variant = live.match.variant
    assert f'href="/rules/{variant}/">The rules of {variant}</a>' in html


@pytest.mark.django_db
def test_the_conformance_page_links_its_data_files_as_downloads() -> None:
    html = _get("/docs/conformance/")
    for name in [*(f"{v}.jsonl.gz" for v in VARIANTS), "perft.json"]:
        assert f'href="/docs/data/{name}"' in html, name
        response = Client().get(f"/docs/data/{name}")
        assert response.status_code == 200
        assert (
            b"".join(response.streaming_content)
            == (  # type: ignore[attr-defined]
                DOCS / "rules" / "conformance" / name
            ).read_bytes()
        )
    assert Client().get("/docs/data/bao-la-kete.jsonl.gz")["Content-Type"] == "application/gzip"
    for name in ("conformance.md", "..%2F..%2Fsettings.py", "chess.jsonl.gz"):
        assert Client().get(f"/docs/data/{name}").status_code == 404, name
