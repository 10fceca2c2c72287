"""Keeping the leases of a worker process's running matches, and publishing their live games: one
thread and one database connection per process, whatever it plays (issue 29).

``LeaseKeeper`` (one per running match) and ``live.LivePublisher`` are handles on the process's
``WorkerLink``: a daemon thread started at the first handle of a process (again after a fork)
that owns the process's only connection for this work. Every ``poll_s`` (1 s) it runs one
statement for all its matches (``leases.match_leases_tick``): it reads their status and token
by primary key and, when ``renew_s`` (lease / 3) has passed for some, renews every such lease
whose referee loop is alive and beats the lease clock in the same statement (PostgreSQL; three
queries on SQLite); in between it writes the queued live events. So a worker process costs one
control query a second while it plays (none while idle) and one connection for them, not one
thread, connection and query stream per match.

For each match: a match cancelled (its tournament, or ``POST /api/matches/{id}/cancel/``),
handed back by a worker shutting down, or taken over after its lease expired no longer carries
our token, and the link stops the referee at once (``MatchControl.request_stop``: the engines
are killed from the link's thread, whatever the referee thread does). So a stop reaches a
running match within about ``poll_s`` plus the time to kill its engines. A lease is renewed
only while the referee loop is alive (``MatchControl.seconds_since_check`` under ``stall_s``):
a loop that handles events or waits on an engine deadline checks in every few ms, a loop stuck
in our code does not, and then its lease runs out and another worker plays the match. After
``deadline_s`` (the match's own soft time limit) the match is stopped as overdue. Once the
runner records the result (``LeaseKeeper.finishing``) the match leaving ``running`` is its own
doing, not a lost lease.

A database outage is not a lost lease: the link's queries fail, are retried every poll (each
bounded by ``QUERY_DEADLINE_S``), and the first that succeeds renews every live lease at once
(renewals are due by then) and beats the lease clock (``leases.lease_clock_beat``: no expired
lease is taken over until the workers have had time to renew after an outage); live events
queued meanwhile are dropped (the stored games keep every move). The outage is logged once when
it starts and once when it ends, with its length and counts ("database unavailable for 17 s:
312 live publishes dropped"), never per move. Inside a transaction (a test's) a handle does no
database work: the link's connection could not see the uncommitted match.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from django.db import InterfaceError, OperationalError, close_old_connections, connection

from arena.dbbackend import deadline
from arena.matches.leases import Claim, match_leases_tick
from arena.referee import MatchControl

log = logging.getLogger(__name__)

#: Stop reasons the runner tells apart.
LEASE_LOST = "lease lost"
OVERDUE = "match time limit exceeded"
#: How often the link looks for a stop, in seconds.
POLL_S = 1.0
#: The most one of the link's queries may wait for the database, in seconds.
QUERY_DEADLINE_S = 5.0


class _Publisher(Protocol):
    match_id: int

    def write(self, batch: list[Any]) -> None: ...


_Item = tuple[_Publisher | None, Any, threading.Event | None]


class LeaseKeeper:
    """Renews ``claim`` while ``control`` shows a live referee loop; stops the match when the
    lease is lost or ``deadline_s`` has passed. ``start()``/``stop()``; its database work runs
    on the process's ``WorkerLink``. ``lost`` is True once the lease was found gone;
    ``renewals`` counts the renewals that held."""

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
        self.last_renew = time.monotonic()
        self.uses_database = True
        self._finishing = False
        self._stall_logged = False

    def start(self) -> None:
        self.uses_database = not connection.in_atomic_block
        worker_link().add_keeper(self)

    def stop(self) -> None:
        worker_link().remove_keeper(self)

    def finishing(self) -> None:
        """The runner is recording the result: the match leaving ``running`` from now on is
        the record's doing (no "lease lost")."""
        self._finishing = True

    def lose(self) -> None:
        if not self.lost:
            log.warning("match %s: lease lost; stopping it", self.claim.match_id)
        self.lost = True
        self.control.request_stop(LEASE_LOST)

    def alive(self) -> bool:
        """Whether the referee loop checked in lately (else logs it once per silence)."""
        stalled = self.control.seconds_since_check()
        if stalled < self.stall_s:
            self._stall_logged = False
            return True
        if not self._stall_logged:
            log.warning(
                "match %s: referee loop silent for %.1f s; lease not renewed",
                self.claim.match_id,
                stalled,
            )
            self._stall_logged = True
        return False

    def seen(self, row: tuple[str, str] | None, renewed: bool, now: float) -> None:
        """The link's look at the match: ``row`` (status, token) or None (not found: nothing to
        stop for, the record will find out); ``renewed`` whether it was in the renewal."""
        from arena.matches.models import Match

        if row is None:
            return
        if row != (Match.Status.RUNNING, self.claim.token):
            if not self._finishing:
                self.lose()
            return
        if renewed:
            self.renewals += 1
            self.last_renew = now


class WorkerLink:
    """The thread of a worker process that keeps its matches' leases and publishes their live
    games (module docstring). Use ``worker_link()``."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._keepers: list[LeaseKeeper] = []
        # (publisher, event, done): an event to write, or a flush mark (``done``), or a
        # wake-up (publisher None: a keeper was added, the poll may have shortened).
        self._events: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._last_tick = 0.0
        self._last_try = 0.0
        self.down_since: float | None = None
        self.dropped = 0
        self.failed = 0
        self.queries = 0
        self.ticks = 0
        self._thread = threading.Thread(target=self._run, name="worker-link", daemon=True)
        self._thread.start()

    # --- handles -------------------------------------------------------------------------
    def add_keeper(self, keeper: LeaseKeeper) -> None:
        with self._lock:
            self._keepers.append(keeper)
        self._events.put((None, None, None))  # its first look within its own poll

    def remove_keeper(self, keeper: LeaseKeeper) -> None:
        with self._lock:
            if keeper in self._keepers:
                self._keepers.remove(keeper)

    def publish(self, publisher: _Publisher, event: Any) -> None:
        """Queue ``event`` of ``publisher`` (constant time, never blocks)."""
        self._events.put((publisher, event, None))

    def flush(self, publisher: _Publisher, timeout: float) -> bool:
        """Wait until every event queued for ``publisher`` so far was handled; False after
        ``timeout`` seconds."""
        done = threading.Event()
        self._events.put((publisher, None, done))
        return done.wait(timeout)

    # --- the thread ----------------------------------------------------------------------
    def _poll_s(self) -> float:
        with self._lock:
            return min((k.poll_s for k in self._keepers), default=POLL_S)

    def _run(self) -> None:
        while True:
            wait = max(0.0, self._last_tick + self._poll_s() - time.monotonic())
            batch: list[_Item] = []
            try:
                batch.append(self._events.get(timeout=wait))
                while True:
                    batch.append(self._events.get_nowait())
            except queue.Empty:
                pass
            if batch:
                self._publish(batch)
            if time.monotonic() - self._last_tick >= self._poll_s():
                self._last_tick = time.monotonic()
                keepers = self._overdue()
                if keepers:
                    self._guarded(functools.partial(self._tick, keepers), "lease check")
                    self.ticks += 1
                elif self._events.empty():
                    connection.close()  # idle: the process holds no connection between matches

    def _publish(self, batch: list[_Item]) -> None:
        by_publisher: dict[int, tuple[_Publisher, list[Any]]] = {}
        for publisher, event, _ in batch:
            if publisher is not None and event is not None:
                by_publisher.setdefault(id(publisher), (publisher, []))[1].append(event)
        for publisher, events in by_publisher.values():
            now = time.monotonic()
            if self.down_since is not None and now - self._last_try < POLL_S:
                self.dropped += len(events)  # tried again once a poll, not once a move
                continue
            self._last_try = now
            if not self._guarded(functools.partial(publisher.write, events), "live update"):
                self.dropped += len(events)
        for _, _, done in batch:
            if done is not None:
                done.set()

    def _guarded(self, action: Callable[[], None], what: str) -> bool:
        """Run ``action``; an outage is counted and logged once (module docstring)."""
        try:
            with deadline(QUERY_DEADLINE_S):
                action()
        except (OperationalError, InterfaceError) as exc:
            self.failed += 1
            if self.down_since is None:
                self.down_since = time.monotonic()
                log.warning(
                    "database unavailable (%s); leases kept, live publishing paused",
                    str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
                )
            close_old_connections()
            connection.close()
            return False
        except Exception:  # a bug in one write must not stop the link
            log.exception("%s failed", what)
            return False
        if self.down_since is not None:
            log.warning(
                "database unavailable for %.0f s: %d live publishes dropped, %d queries failed",
                time.monotonic() - self.down_since,
                self.dropped,
                self.failed,
            )
            self.down_since, self.dropped, self.failed = None, 0, 0
        return True

    def _overdue(self) -> list[LeaseKeeper]:
        """Stop the matches past their time limit; the keepers that use the database."""
        now = time.monotonic()
        with self._lock:
            keepers = list(self._keepers)
        for keeper in keepers:
            if keeper.deadline is not None and now > keeper.deadline:
                keeper.control.request_stop(OVERDUE)
        return [k for k in keepers if k.uses_database]

    def _tick(self, keepers: list[LeaseKeeper]) -> None:
        """One look at every match (and the renewal of those due and alive)."""
        now = time.monotonic()
        # A match being recorded is not renewed: the record's UPDATE holds its row until the
        # commit, and a renewal would wait for it, with every other match of the process.
        renew = [
            k for k in keepers if not k._finishing and now - k.last_renew >= k.renew_s and k.alive()
        ]
        # The renewals, the lease clock's beat with them (the end of an outage is seen here
        # first) and the look at every match: one statement on PostgreSQL.
        rows, queries = match_leases_tick([k.claim for k in keepers], [k.claim for k in renew])
        self.queries += queries
        renewing = {id(k) for k in renew}
        for keeper in keepers:
            keeper.seen(rows.get(keeper.claim.match_id), id(keeper) in renewing, now)


_link: WorkerLink | None = None
_link_lock = threading.Lock()


def worker_link() -> WorkerLink:
    """This process's link, started at the first call (and again in a forked child)."""
    global _link
    with _link_lock:
        if _link is None or _link.pid != os.getpid():
            _link = WorkerLink()
        return _link
