"""Prometheus metrics of the service (prometheus-client, multiprocess mode).

What is measured, and where it is served (docs/metrics.md has the operator's view):

========================================  ==========================================================
``bao_matches{status}``                   matches by status (``pending`` = queued, ``running``,
                                          ``finished``, ``aborted``), counted in the database at
                                          each scrape: web process only
``bao_games_total{termination}``          games recorded by this host's workers, by termination
``bao_time_forfeits_total{worker}``       games lost on time, by the worker that played them
``bao_engine_start_seconds``              histogram: engine process started to handshake done
``bao_referee_move_overhead_seconds``     histogram: the referee's own time per move (the ply's
                                          wall time minus the engine's ``go`` to ``bestmove``)
``bao_api_request_seconds{method,route,   histogram: time to answer an HTTP request of the web
status}``                                 process (``route``: the URL pattern, not the path)
========================================  ==========================================================

Every process of a checkout writes its samples to ``PROMETHEUS_MULTIPROC_DIR`` (default
``<BAO_VAR_DIR>/metrics``, set by ``arena.settings``), so gunicorn workers and Celery pool
children are summed when scraped. The web process serves ``GET /metrics`` (this host's
processes plus the database's match counts); a worker started with ``BAO_WORKER_METRICS_PORT``
serves its host's samples on that port (``start_worker_server``), so workers on other hosts are
scraped there.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from rest_framework.throttling import BaseThrottle

from arena import terminations as T

if TYPE_CHECKING:
    from arena.referee import GameRecord

log = logging.getLogger(__name__)

GAMES = Counter("bao_games", "Games recorded, by termination.", ["termination"])
TIME_FORFEITS = Counter(
    "bao_time_forfeits", "Games lost on time, by the worker that played them.", ["worker"]
)
ENGINE_START = Histogram(
    "bao_engine_start_seconds",
    "Engine start: process spawned through the sandbox to handshake (bepok) done.",
    buckets=(0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 2, 5),
)
MOVE_OVERHEAD = Histogram(
    "bao_referee_move_overhead_seconds",
    "The referee's own time per move: the ply's wall time minus the engine's go-to-bestmove.",
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1),
)
API_LATENCY = Histogram(
    "bao_api_request_seconds",
    "Time to answer an HTTP request of the web process.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)

#: The referee's metric names (``arena.referee`` calls ``RefereeConfig.on_metric`` with them).
_REFEREE_HISTOGRAMS: Mapping[str, Histogram] = {
    "engine_start_seconds": ENGINE_START,
    "move_overhead_seconds": MOVE_OVERHEAD,
}


def worker_name() -> str:
    """The ``worker`` label: ``BAO_WORKER_NAME``, else the host name."""
    return os.environ.get("BAO_WORKER_NAME", "").strip() or socket.gethostname()


def observe_referee(name: str, seconds: float) -> None:
    """``RefereeConfig.on_metric`` of the workers: a referee measurement into its histogram."""
    histogram = _REFEREE_HISTOGRAMS.get(name)
    if histogram is not None:
        histogram.observe(seconds)


def count_recorded_games(games: Iterable[GameRecord]) -> None:
    """Count the games of a recorded match (by termination; time forfeits by worker)."""
    for game in games:
        termination = str(game.termination)
        GAMES.labels(termination=termination).inc()
        if termination == T.TIME_FORFEIT:
            TIME_FORFEITS.labels(worker=worker_name()).inc()


class MatchesCollector(Collector):
    """``bao_matches{status}`` from the database at scrape time: right whichever process or
    host changed a match, and nothing to keep in step."""

    def collect(self) -> Iterator[Metric]:
        from django.db.models import Count

        from arena.matches.models import Match

        family = GaugeMetricFamily(
            "bao_matches", "Matches by status (pending = queued).", labels=["status"]
        )
        counts = dict(
            Match.objects.order_by()
            .values_list("status")
            .annotate(n=Count("id"))
            .values_list("status", "n")
        )
        for status in Match.Status.values:
            family.add_metric([status], counts.get(status, 0))
        yield family


def _registry(with_matches: bool) -> CollectorRegistry:
    registry = CollectorRegistry()
    # prometheus-client leaves this constructor unannotated (its package is otherwise typed).
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    if with_matches:
        registry.register(MatchesCollector())
    return registry


#: The private networks (RFC 1918, RFC 4193 unique local, link-local) served without a token,
#: besides loopback; not the documentation ranges Python also calls private.
INTERNAL_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "169.254.0.0/16",
        "fc00::/7",
        "fe80::/10",
    )
)


def metrics_allowed(request: HttpRequest) -> bool:
    """Whether ``request`` may read ``/metrics``: with ``BAO_METRICS_TOKEN`` set, only with
    ``Authorization: Bearer <token>``; without one, only from a loopback or private address
    (the client address the throttles use: ``X-Forwarded-For`` behind ``BAO_NUM_PROXIES``
    proxies), so a scraper on the same host or network reads it and the internet does not."""
    token = settings.BAO_METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())
    try:
        address = ipaddress.ip_address(str(BaseThrottle().get_ident(request)).strip())  # type: ignore[arg-type]
    except ValueError:
        return False
    return address.is_loopback or any(address in net for net in INTERNAL_NETWORKS)


def metrics_view(request: HttpRequest) -> HttpResponse:
    """``GET /metrics``: this host's processes' samples and the match counts, in the Prometheus
    text format; 403 (plain text) for a client ``metrics_allowed`` refuses."""
    if not metrics_allowed(request):
        refused = HttpResponse(
            "403 Forbidden: /metrics needs BAO_METRICS_TOKEN as a bearer token, or an "
            "internal address (docs/metrics.md)\n",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
        if settings.BAO_METRICS_TOKEN:
            refused["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return refused
    return HttpResponse(generate_latest(_registry(True)), content_type=CONTENT_TYPE_LATEST)


def start_worker_server(port: int, addr: str = "0.0.0.0") -> None:
    """Serve this host's samples on ``addr:port`` from a thread of the calling process (the
    worker's main process; its pool children write to the shared directory)."""
    start_http_server(port, addr=addr, registry=_registry(False))
    log.info("metrics served on %s:%d/metrics", addr, port)


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class RequestLatencyMiddleware:
    """Times every request of the web process into ``bao_api_request_seconds`` (labels: the
    method, the URL pattern that matched, or ``unmatched``, and the status code)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = getattr(match, "route", None) or "unmatched"
        # Only known methods as labels: any client can send any method name.
        method = request.method if request.method in _METHODS else "other"
        API_LATENCY.labels(method=method, route=route, status=str(response.status_code)).observe(
            time.perf_counter() - started
        )
        return response
