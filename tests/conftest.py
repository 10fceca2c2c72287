"""The shared fixture world of the test suite (users, engines) lives here."""

# --- accounts: users and API clients (owner: accounts+engines helper) -------------------------
import pytest


@pytest.fixture(scope="session", autouse=True)
def _embedded_broker_stopped_at_the_end():  # type: ignore[no-untyped-def]
    """Stop the embedded redis-server if this test process started it (``arena.embedded``):
    at the end of the session, before interpreter shutdown, not left to ``atexit`` alone.

    The Celery app is loaded and its broker resolved first, so an embedded broker keeps its
    files in the checkout's ``var/``: started inside a test that points ``VAR_DIR`` at a
    temporary directory, it would lose them when that test cleans up (and refuse every write
    after: ``MISCONF``)."""
    from arena.celery import broker_url

    broker_url()

    yield
    from arena.embedded import stop_embedded_broker

    stop_embedded_broker()


@pytest.fixture(autouse=True)
def _no_throttle_counts_carried_over():  # type: ignore[no-untyped-def]
    """API write rates (``arena.api.throttling``) count in the cache: every test starts with
    nothing counted, so no test is throttled by the requests of another."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(db):  # type: ignore[no-untyped-def]
    """A registered user with an API token, its key in ``alice.api_token`` (password
    ``correct horse 1``)."""
    return _user_with_token("alice", "alice@example.org", "correct horse 1")


def _user_with_token(username: str, email: str, password: str):  # type: ignore[no-untyped-def]
    from django.contrib.auth import get_user_model

    from arena.accounts.services import token_mint

    user = get_user_model().objects.create_user(username, email, password)
    user.api_token, _expiry = token_mint(user=user)
    return user


@pytest.fixture
def bob(db):  # type: ignore[no-untyped-def]
    """A second user, to own engines alice may not touch (token key in ``bob.api_token``)."""
    return _user_with_token("bob", "bob@example.org", "battery staple 2")


@pytest.fixture
def anon_client():  # type: ignore[no-untyped-def]
    """An unauthenticated DRF test client."""
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def alice_client(alice):  # type: ignore[no-untyped-def]
    """A DRF test client authenticated as alice by her token."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {alice.api_token}")
    return client


@pytest.fixture
def bob_client(bob):  # type: ignore[no-untyped-def]
    """A DRF test client authenticated as bob by his token."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {bob.api_token}")
    return client
