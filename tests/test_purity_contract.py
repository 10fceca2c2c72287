"""The purity contract of pyproject.toml ("The pure modules import no Django or Celery") names
every module that is pure, so a new pure module cannot be left off it unnoticed.

Pure here means what the contract checks: no import, direct or through other modules of the
project, of the forbidden packages. A module is on the contract when it, or a package above
it, is one of its source modules. Computed from the import graph (grimp, as ``lint-imports``
builds it), without Django.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = "The pure modules import no Django or Celery"

#: Pure by the graph, yet the Django shell's by role: kept off the contract on purpose.
NOT_PURE_BY_ROLE = {
    "arena.accounts.admin": "a Django app's admin module that registers nothing",
}


def _config() -> tuple[list[str], dict[str, list[str]]]:
    linter = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in linter["contracts"] if c["name"] == CONTRACT]
    return linter["root_packages"], contract


def _covered(module: str, sources: list[str]) -> bool:
    return any(module == s or module.startswith(s + ".") for s in sources)


def test_every_pure_module_is_on_the_purity_contract() -> None:
    roots, contract = _config()
    graph = grimp.build_graph(*roots, include_external_packages=True, cache_dir=None)
    forbidden = [m for m in contract["forbidden_modules"] if m in graph.modules]
    ours = [m for m in graph.modules if m.split(".")[0] in roots and ".migrations" not in m]
    pure = {
        m
        for m in ours
        if not any(graph.chain_exists(importer=m, imported=f, as_packages=True) for f in forbidden)
    }
    missing = sorted(
        m
        for m in pure
        if not _covered(m, contract["source_modules"]) and not _covered(m, list(NOT_PURE_BY_ROLE))
    )
    assert missing == []
    # The exemptions are still pure (else they no longer need one).
    assert sorted(m for m in NOT_PURE_BY_ROLE if m in graph.modules and m not in pure) == []
