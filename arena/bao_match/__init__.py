"""bao-match: a local match runner for engine authors (``bao-match``, ``python -m
arena.bao_match``). No Django: it plays with the referee (``arena.referee``), starts engines
through the sandbox (``engines.sandbox``) and counts with the service's statistics
(``ratings.stats``). The user's page is docs/bao-match.md.

Modules: ``plan`` (engines, options, the schedule of game pairs, start positions), ``runner``
(the games on ``--concurrency`` threads), ``tally`` (the counts), ``output`` (``--out`` lines
and ``--resume``), ``report`` (progress, summary, ``--json``), ``cli`` (the command line).
"""

from .cli import main

__all__ = ["main"]
