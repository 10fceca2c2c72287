"""``/metrics`` is not public (issue 30, finding 8): with ``BAO_METRICS_TOKEN`` set it asks for
that bearer token; without one it answers loopback and private addresses only."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("address", "served"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("10.1.2.3", True),
        ("172.18.0.5", True),  # a docker network
        ("192.168.1.20", True),
        ("fd12:3456::7", True),
        ("8.8.8.8", False),
        ("203.0.113.7", False),  # a documentation range Python calls private: not internal
        ("2001:4860::8888", False),
    ],
)
def test_without_a_token_only_internal_addresses_are_served(address: str, served: bool) -> None:
    response = Client(REMOTE_ADDR=address).get("/metrics")
    assert response.status_code == (200 if served else 403)
    if not served:
        assert b"BAO_METRICS_TOKEN" in response.content


def test_with_a_token_every_address_needs_it(settings) -> None:
    settings.BAO_METRICS_TOKEN = "scrape-secret"
    local = Client(REMOTE_ADDR="127.0.0.1")
    assert local.get("/metrics").status_code == 403
    refused = Client(REMOTE_ADDR="203.0.113.7").get(
        "/metrics", headers={"Authorization": "Bearer wrong"}
    )
    assert (refused.status_code, refused["WWW-Authenticate"]) == (403, 'Bearer realm="metrics"')
    served = Client(REMOTE_ADDR="203.0.113.7").get(
        "/metrics", headers={"Authorization": "Bearer scrape-secret"}
    )
    assert served.status_code == 200
    assert served["Content-Type"].startswith("text/plain; version=")


def test_behind_a_proxy_the_forwarded_client_address_decides(settings) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = Client(REMOTE_ADDR="127.0.0.1")
    outside = proxy.get("/metrics", headers={"X-Forwarded-For": "203.0.113.7"})
    assert outside.status_code == 403
    inside = proxy.get("/metrics", headers={"X-Forwarded-For": "10.0.0.4"})
    assert inside.status_code == 200
