"""Ratings: the rating pool of every variant, fed by every rated match, below its consumers.

``ratings.stats`` is the pure statistics (the whole-history fit ``ratings.stats.whr`` and the
SPRT ``ratings.stats.sprt``): no Django, importable by a plain script. The Django app around it
stores the latest fit (``ratings.models``), refits after rated matches (``ratings.services``)
and serves the leaderboard and rating history (``ratings.selectors``, ``ratings.views``).
Tournaments, the ladder and version tests read it; it imports none of them.

Kept free of imports, so ``import ratings.stats`` needs no Django.
"""
