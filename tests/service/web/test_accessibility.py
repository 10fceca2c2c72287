"""Keyboard and screen-reader basics of every page: each input has a label, each button a
name, each chart and board a text alternative, no positive tabindex (the tab order is the
reading order); and the stylesheet's text colours reach WCAG AA contrast (4.5:1)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

CSS = Path(__file__).resolve().parents[3] / "arena" / "web" / "static" / "web" / "arena.css"


class Audit(HTMLParser):
    """Collects what the checks need from a page."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[dict[str, str]] = []
        self.labels: set[str] = set()
        self.buttons: list[tuple[dict[str, str], str]] = []
        self.images: list[dict[str, str]] = []
        self.tabindex: list[str] = []
        self._button: dict[str, str] | None = None
        self._text = ""
        self._in_label = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "tabindex" in a:
            self.tabindex.append(a["tabindex"])
        if tag in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit"):
            if self._in_label:  # wrapped in its label
                a.setdefault("aria-label", "(its label)")
            self.inputs.append(a)
        elif tag == "label":
            self._in_label += 1
            if "for" in a:
                self.labels.add(a["for"])
        elif tag == "button":
            self._button, self._text = a, ""
        elif tag in ("svg", "img") and (a.get("role") == "img" or tag == "img"):
            self.images.append(a)

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._in_label -= 1
        if tag == "button" and self._button is not None:
            self.buttons.append((self._button, self._text.strip()))
            self._button = None


@pytest.mark.django_db
def test_every_page_labels_its_controls_and_describes_its_pictures(
    world: Any, alice: Any, make_game: Any
) -> None:
    w = world(2)
    game = make_game("bao-la-kete", plies=6)
    client = Client()
    client.force_login(alice)
    pages = [
        "/",
        "/engines/",
        "/engines/alpha/",
        "/matches/",
        "/tournaments/",
        f"/tournaments/{w['tournament'].pk}/",
        f"/matches/{w['running'].pk}/",
        f"/games/{game.pk}/",
        f"/live/{w['live'].pk}/",
        "/engines/upload/",
        "/matches/new/",
        "/tournaments/new/",
        "/matches/?variant=chess",
        "/rules/",
        "/rules/bao-la-kete/",
        "/rules/bao-kingulu/",
        "/docs/",
        "/docs/protocol/",
    ]
    anonymous = ["/accounts/login/", "/accounts/signup/"]
    for url in pages + anonymous:
        audit = Audit()
        audit.feed((Client() if url in anonymous else client).get(url).content.decode())
        for field in audit.inputs:
            assert field.get("id") in audit.labels or field.get("aria-label"), (url, field)
        for attrs, text in audit.buttons:
            assert text or attrs.get("aria-label") or attrs.get("title"), (url, attrs)
        for image in audit.images:
            assert image.get("aria-label") or image.get("aria-labelledby") or image.get("alt"), (
                url,
                image,
            )
        assert all(int(t) <= 0 for t in audit.tabindex), url


def _luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    channels = [int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """The WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rules() -> dict[str, dict[str, str]]:
    """Selector -> declarations of the stylesheet, variables resolved."""
    text = re.sub(r"/\*.*?\*/", "", CSS.read_text(), flags=re.S)
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        props = dict(
            (k.strip(), v.strip())
            for k, v in (d.split(":", 1) for d in body.split(";") if ":" in d)
        )
        for one in selector.split(","):
            rules.setdefault(one.strip(), {}).update(props)
    variables = rules[":root"]
    for props in rules.values():
        for key, value in props.items():
            props[key] = re.sub(r"var\((--[\w-]+)\)", lambda m: variables[m.group(1)], value)
    return rules


def test_the_text_colours_reach_aa_contrast() -> None:
    rules = _rules()
    paper = rules["body"]["background"]
    pairs = {
        "body text": (rules["body"]["color"], paper),
        "muted text": (rules[".muted"]["color"], paper),
        "muted text on a table cell": (rules[".muted"]["color"], rules["table"]["background"]),
        "links": (rules["a"]["color"], paper),
        "site links": (rules["header.site a"]["color"], rules["header.site"]["background"]),
        "field errors": (rules["ul.errors"]["color"], paper),
        "form errors": (rules[".form-errors"]["color"], rules[".form-errors"]["background"]),
        "primary button": (
            rules[".button.primary"]["color"],
            rules[".button.primary"]["background"],
        ),
        "help": (rules[".help"]["color"], paper),
    }
    for status in (".badge.active", ".badge.running", ".badge.rejected", ".badge.bundled"):
        pairs[status] = (rules[status]["color"], rules[status]["background"])
    low = {name: round(contrast(*pair), 2) for name, pair in pairs.items() if contrast(*pair) < 4.5}
    assert low == {}
