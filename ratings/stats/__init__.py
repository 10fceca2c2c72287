"""The pure statistics of ratings: no Django, no Celery, no app (an import-linter contract).

* ``ratings.stats.whr``: the whole-history maximum-likelihood Elo fit and its command line
  (``python -m ratings.stats.whr fit FILE``);
* ``ratings.stats.sprt``: the sequential probability ratio test of version tests and its
  command line (``python -m ratings.stats.sprt``).

A plain script (the local match runner) imports these with no Django installed or configured.
"""
