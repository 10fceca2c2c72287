"""Prometheus metrics: ``GET /metrics`` of the web process and a worker's metrics server.

Samples are kept per checkout across processes (``PROMETHEUS_MULTIPROC_DIR``), so earlier runs
may have counted too: tests compare values before and after what they do.
"""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena import metrics
from arena import terminations as T
from arena.matches import runner
from arena.matches.models import Match

from .conftest import make_version

pytestmark = pytest.mark.django_db

HANG = Path(__file__).resolve().parents[2] / "referee" / "engines" / "hang.py"


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _scrape(client) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:  # type: ignore[no-untyped-def]
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return _samples(response.content.decode())


def _value(samples, name: str, **labels: str) -> float:  # type: ignore[no-untyped-def]
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_the_endpoint_counts_matches_by_status_from_the_database(client, greedy, randomer) -> None:
    Match.objects.create(engine_a=greedy, engine_b=randomer, variant="bao-la-kete",
                         time_control="2+0.1", seed=1, status="pending")  # fmt: skip
    for _ in range(2):
        Match.objects.create(engine_a=greedy, engine_b=randomer, variant="bao-la-kete",
                             time_control="2+0.1", seed=1, status="finished")  # fmt: skip
    samples = _scrape(client)
    assert _value(samples, "bao_matches", status="pending") == 1
    assert _value(samples, "bao_matches", status="running") == 0
    assert _value(samples, "bao_matches", status="finished") == 2
    assert _value(samples, "bao_matches", status="aborted") == 0


def test_api_requests_are_timed_by_route_not_by_path(client, greedy) -> None:
    name = "bao_api_request_seconds_count"
    labels = {"method": "GET", "route": "api/engines/<slug:name>/", "status": "200"}
    before = _value(_scrape(client), name, **labels)
    assert client.get("/api/engines/greedy/").status_code == 200
    assert client.get("/api/engines/nope/").status_code == 404
    samples = _scrape(client)
    assert _value(samples, name, **labels) == before + 1
    assert _value(samples, name, **{**labels, "status": "404"}) >= 1
    assert not any("greedy" in dict(key[1]).get("route", "") for key in samples)


def test_a_recorded_match_feeds_the_referee_and_game_metrics(
    client, greedy, randomer, fast_referee
) -> None:
    before = _scrape(client)
    match = Match.objects.create(engine_a=greedy, engine_b=randomer, variant="bao-la-kete",
                                 time_control="2+0.1", seed=7)  # fmt: skip
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    after = _scrape(client)
    games = list(match.games.values_list("termination", "plies"))
    starts = "bao_engine_start_seconds_count"
    assert _value(after, starts) - _value(before, starts) == 2  # each engine once
    moves = "bao_referee_move_overhead_seconds_count"
    assert _value(after, moves) - _value(before, moves) == sum(plies for _, plies in games)
    for termination in {t for t, _ in games}:
        count = sum(1 for t, _ in games if t == termination)
        assert (
            _value(after, "bao_games_total", termination=termination)
            - _value(before, "bao_games_total", termination=termination)
        ) == count


def test_time_forfeits_are_counted_for_the_worker_that_played_them(
    client, arena_user, randomer, fast_referee, monkeypatch
) -> None:
    monkeypatch.setenv("BAO_WORKER_NAME", "worker-7")
    hang = make_version(arena_user, "hang", str(HANG))
    before = _value(_scrape(client), "bao_time_forfeits_total", worker="worker-7")
    match = Match.objects.create(engine_a=hang, engine_b=randomer, variant="bao-la-kete",
                                 time_control="1+0", seed=3)  # fmt: skip
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    forfeits = match.games.filter(termination=T.TIME_FORFEIT).count()
    assert forfeits >= 2
    after = _value(_scrape(client), "bao_time_forfeits_total", worker="worker-7")
    assert after - before == forfeits


def test_a_worker_serves_its_hosts_samples_on_its_metrics_port() -> None:
    metrics.ENGINE_START.observe(0.042)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    metrics.start_worker_server(port, addr="127.0.0.1")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        samples = _samples(response.read().decode())
    assert _value(samples, "bao_engine_start_seconds_count") >= 1
    assert not any(name == "bao_matches" for name, _ in samples)  # the web process's alone
