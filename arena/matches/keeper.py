"""Keeping the lease of a running match, and its stop channel (one thread per running match).

Every ``poll_s`` (1 s) the keeper reads whether the claim still holds the match: a match
cancelled (its tournament, or ``POST /api/matches/{id}/cancel/``), handed back by a worker
shutting down, or taken over by another worker after the lease expired no longer carries our
token, and the keeper stops the referee at once (``MatchControl.request_stop``: the engines are
killed from this thread, whatever the referee thread does). So a stop reaches a running match
within about ``poll_s`` plus the time to kill its engines.

Every ``renew_s`` (lease / 3) it renews the lease, but only while the referee loop is alive
(``MatchControl.seconds_since_check`` under ``stall_s``): a loop that handles events or waits on
an engine deadline checks in every few ms, a loop stuck in our code does not, and then its lease
runs out and another worker plays the match. After ``deadline_s`` (the match's own soft time
limit) it stops the match as overdue. Database errors in this thread are logged and retried
at the next tick: an outage must not be mistaken for a lost lease.
"""

from __future__ import annotations

import logging
import threading
import time

from django.db import close_old_connections, connection

from arena.matches.leases import Claim, match_lease_held, match_renew_lease
from arena.referee import MatchControl

log = logging.getLogger(__name__)

#: Stop reasons the runner tells apart.
LEASE_LOST = "lease lost"
OVERDUE = "match time limit exceeded"
#: How often the keeper looks for a stop, in seconds.
POLL_S = 1.0


class LeaseKeeper:
    """Renews ``claim`` while ``control`` shows a live referee loop; stops the match when the
    lease is lost or ``deadline_s`` has passed. ``start()``/``stop()``; uses its own database
    connection and closes it when stopped. ``lost`` is True once the lease was found gone."""

    def __init__(
        self,
        claim: Claim,
        control: MatchControl,
        *,
        deadline_s: float | None = None,
        poll_s: float = POLL_S,
        renew_s: float | None = None,
        stall_s: float | None = None,
    ) -> None:
        self.claim = claim
        self.control = control
        self.poll_s = poll_s
        self.renew_s = renew_s if renew_s is not None else max(1.0, claim.lease / 3)
        # A loop may legitimately pause between checks (engine start-up, quit waits): far
        # under this; the lease itself lasts longer still, so one slow moment loses nothing.
        self.stall_s = stall_s if stall_s is not None else max(5.0, claim.lease / 3)
        self.deadline = None if deadline_s is None else time.monotonic() + deadline_s
        self.lost = False
        self.renewals = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"lease-match-{claim.match_id}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _lose(self) -> None:
        if not self.lost:
            log.warning("match %s: lease lost; stopping it", self.claim.match_id)
        self.lost = True
        self.control.request_stop(LEASE_LOST)

    def tick(self, *, renew: bool) -> None:
        """One look (and a renewal if ``renew`` and the referee loop is alive)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.control.request_stop(OVERDUE)
        if renew:
            stalled = self.control.seconds_since_check()
            if stalled < self.stall_s:
                if match_renew_lease(self.claim):
                    self.renewals += 1
                    return
            else:
                log.warning(
                    "match %s: referee loop silent for %.1f s; lease not renewed",
                    self.claim.match_id,
                    stalled,
                )
        if match_lease_held(self.claim) is False:
            self._lose()

    def _run(self) -> None:
        last_renew = time.monotonic()
        try:
            while not self._stop.wait(self.poll_s):
                now = time.monotonic()
                renew = now - last_renew >= self.renew_s
                try:
                    self.tick(renew=renew)
                    if renew:
                        last_renew = now
                except Exception:  # a database hiccup must not kill the keeper
                    log.exception("match %s: lease check failed", self.claim.match_id)
                    close_old_connections()
                    connection.close()
        finally:
            connection.close()
