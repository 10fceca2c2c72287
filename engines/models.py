"""The engine registry: an ``Engine`` (a name owned by a user) and its uploaded ``EngineVersion`` s.

An engine is a user-written program speaking the Bao engine protocol; each upload under the
same name is a new version, validated on a worker (``engines.tasks.validate_engine_version``)
before it may play. Only ``active`` versions enter matches. Business logic lives in
``engines.services`` (writes) and ``engines.selectors`` (reads), not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

if TYPE_CHECKING:
    from engines.package import EnginePackage


class RatedPairing(models.TextChoices):
    """Consent: who may put an engine into rated play."""

    ANYONE = "anyone"  # any rated challenge, tournament, ladder game (as today)
    OWN_EVENTS = "own_events"  # only the owner's own challenges and tournaments


class ChallengeConsent(models.TextChoices):
    """Consent: which challenges of other users an engine accepts."""

    ALL = "all"
    UNRATED = "unrated"  # unrated challenges only
    NONE = "none"


class Engine(models.Model):
    """A named engine owned by one user; the name is global (leaderboards show it).

    ``consent_*`` is the owner's consent to play with others (``engines.consent`` decides with
    it; the defaults allow everything, as before the setting existed, so owners opt out), but
    ``consent_people`` (games against people), which owners opt into.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="engines", on_delete=models.CASCADE
    )
    name = models.SlugField(max_length=64, unique=True)
    description = models.TextField(blank=True)
    # The owner can disable an engine: it keeps its history but enters no new matches.
    is_enabled = models.BooleanField(default=True)
    is_bundled = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    consent_rated = models.CharField(
        max_length=16, choices=RatedPairing.choices, default=RatedPairing.ANYONE
    )
    consent_challenges = models.CharField(
        max_length=16, choices=ChallengeConsent.choices, default=ChallengeConsent.ALL
    )
    consent_ladder = models.BooleanField(default=True)
    consent_version_tests = models.BooleanField(default=True)
    # Whether signed-in people may play it in the browser (``people``): off unless the owner
    # opts in, on for the bundled engines (their registration and the migration set it).
    consent_people = models.BooleanField(default=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            # Names differing only in case would look the same on a leaderboard.
            models.UniqueConstraint(Lower("name"), name="engine_name_unique_ignoring_case"),
        ]

    def __str__(self) -> str:
        return self.name

    def latest_active_version(self) -> EngineVersion | None:
        """The highest-numbered ``active`` version, or None if no version passed validation."""
        return self.versions.filter(status=EngineVersion.Status.ACTIVE).order_by("-number").first()


class EngineVersion(models.Model):
    """One uploaded build of an engine: stored file, checksum, validation status."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VALIDATING = "validating"
        ACTIVE = "active"
        REJECTED = "rejected"

    engine = models.ForeignKey(Engine, related_name="versions", on_delete=models.CASCADE)
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    # A termination code (arena.terminations) or a package error code, with a readable reason
    # (public: the referee's one-line detail) and the engine's stderr tail (``rejection_log``:
    # shown to the owner and staff only, since stderr can reveal an engine's internals).
    rejection_code = models.CharField(max_length=32, blank=True)
    rejection_reason = models.TextField(blank=True)
    rejection_log = models.TextField(blank=True)
    original_filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveIntegerField()
    # The upload's name in the package storage (engines.storage): "<sha256>/<file name>".
    storage_path = models.CharField(max_length=512)
    # The variants the version passed validation in: the only ones it plays. A variant it
    # announced but failed is in ``failed_variants``: {variant: "<code>: <detail>"} (public).
    variants = models.JSONField(default=list, blank=True)
    failed_variants = models.JSONField(default=dict, blank=True)
    reported_name = models.CharField(max_length=128, blank=True)
    reported_author = models.CharField(max_length=128, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    # When its validation task was last handed to the broker (None: never; the requeue scan
    # re-sends validations that never left, or left long ago without a verdict).
    validation_queued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["engine__name", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["engine", "number"], name="engine_version_unique_number"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.engine.name} v{self.number}"

    @property
    def rejection_detail(self) -> str:
        """``rejection_reason`` without its leading ``"<rejection_code>: "`` (validation stores
        the reason as ``"crash: exited with status 3"``), for pages that show the code beside
        it."""
        prefix = f"{self.rejection_code}: "
        reason = self.rejection_reason
        return (
            reason[len(prefix) :] if self.rejection_code and reason.startswith(prefix) else reason
        )

    def package(self) -> EnginePackage:
        """The runnable ``EnginePackage`` (``engines.package``) of this version, named
        ``"<engine> v<number>"`` so match records name the version unambiguously, from this
        host's package cache (fetched from the package storage if needed, not pinned: use
        ``engines.storage.checkout`` to run it for longer than a moment).

        Raises ``engines.package.EnginePackageError`` (``not_found``: not in the storage) and
        ``engines.package_cache.FetchError`` (storage fault, hash mismatch).
        """
        from engines.storage import load_stored  # lazy: the model module stays light

        return load_stored(self)


class PackageBlob(models.Model):
    """The bytes of one stored upload, for the default package storage (the database:
    ``engines.blobstore.DatabaseStorage``). ``name`` is the storage name
    ``"<sha256>/<file name>"`` (``EngineVersion.storage_path``); rows are written once and
    never changed (the name holds the content hash)."""

    name = models.CharField(max_length=320, primary_key=True)
    size_bytes = models.PositiveBigIntegerField()
    data = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class WorkerRuntimes(models.Model):
    """The runtimes one worker's sandbox offers engines (docs/runtimes.md), probed by the
    worker when it starts (``engines.sandbox.runtimes.probe_runtimes``, run as an engine) and
    written by ``engines.services.worker_runtimes_record``; ``last_seen`` is refreshed with the
    worker's presence (``arena.worker_hooks``) and the row removed at its warm shutdown.

    ``runtimes``: ``[{"name": "python", "version": "3.11.2", "command": "python3"}, ...]`` in
    the order of ``engines.sandbox.runtimes.RUNTIMES`` (``command`` "" for a library)."""

    worker = models.CharField(max_length=200, unique=True)
    runtimes = models.JSONField(default=list)
    probed_at = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["worker"]
        verbose_name_plural = "worker runtimes"

    def __str__(self) -> str:
        return f"{self.worker}: {', '.join(r['name'] for r in self.runtimes) or 'no runtime'}"
