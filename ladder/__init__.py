"""The ladder: rated play that runs itself, per variant (docs/ladder.md).

``ladder.matchmaking`` (who meets whom) and ``ladder.simulate`` (its simulations, ``python -m
ladder.simulate simulate|spread``) are pure: no Django. The Django app around them keeps the
ladder's matches and kept versions (``ladder.models``), tops up each variant's queue
(``ladder.services``, after every recorded match and every minute) and serves ``/api/ladder/``.
It reads the ratings app's fit. The tournaments app never imports it; its simulation borrows the
pure round-robin table of ``tournaments.pairing`` as a baseline, nothing else.
"""
