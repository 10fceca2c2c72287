"""Engine registry writes: uploads become versions, owners toggle engines, bundled engines.

HackSoft style: every write of the ``engines`` app goes through a function here. Validation
of a new version runs on a worker (``engines.tasks.validate_engine_version``), enqueued once the
transaction that created the version has committed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from engines import errors, storage
from engines.models import Engine, EngineVersion, WorkerRuntimes
from engines.selectors import engine_by_name, missing_runtime

if TYPE_CHECKING:
    from engines.sandbox.runtimes import Runtime

log = logging.getLogger(__name__)

#: The bundled engines (``engines/bundled/<name>``), owned by the system user ``arena``.
BUNDLED_ENGINES: tuple[tuple[str, str], ...] = (
    ("random", "Uniformly random legal moves (reproducible from its Seed option)."),
    ("greedy", "Takes the move that captures the most seeds now."),
    ("search", "Alpha-beta search with a material evaluation."),
)
SYSTEM_USERNAME = "arena"
BUNDLED_DIR = Path(settings.BASE_DIR) / "engines" / "bundled"

# engines.package.EnginePackageError.code -> the API error raised for it.
_PACKAGE_ERRORS: dict[str, type[errors.ApiError]] = {
    "unsafe_archive": errors.UnsafeArchive,
    "bad_manifest": errors.BadManifest,
    "not_executable": errors.NotExecutable,
    "too_large": errors.UploadTooLarge,
    "bad_archive": errors.BadUpload,
    "not_found": errors.BadUpload,
}


class UploadedFile(Protocol):
    """What an upload must offer (Django's ``UploadedFile`` does)."""

    name: str | None
    size: int | None

    def chunks(self, chunk_size: int | None = None) -> Iterable[bytes]: ...


def engine_version_create(
    *, owner: Any, name: str, upload: UploadedFile, description: str = ""
) -> EngineVersion:
    """Store ``upload`` as the next version of engine ``name`` (created on the first upload).

    ``name`` is matched case-insensitively against existing engines (``Alpha`` adds a version
    to ``alpha``). ``upload`` is a single executable (``#!`` script or ELF binary; the executable
    bit is set here) or a ``.zip``/``.tar.gz`` archive with a ``bao-engine.json`` manifest. It is
    checked with ``engines.package.load_engine`` before anything is written to the database; a
    refused upload leaves no row and no file. ``description``, if given, replaces the engine's.
    The new version is ``pending``; validation is enqueued when the transaction commits.

    Raises (``engines.errors``): ``EngineNotYours`` (403, the name belongs to another user),
    ``UploadTooLarge`` (413, over ``settings.BAO_ENGINE_MAX_BYTES`` bytes, or over four times
    that once unpacked), ``UnsafeArchive``, ``BadManifest``, ``NotExecutable``, ``BadUpload``
    (corrupt archive, empty file), ``RuntimeMissing`` (its command needs a runtime of the
    promised table that no live worker offers: ``engines.selectors.missing_runtime``) - all
    400; ``DuplicateVersion`` (409, the same sha256 as the
    engine's latest version: a re-upload would only replay the same engine).
    """
    from engines.package import EnginePackageError, load_engine
    from engines.sandbox.runtimes import required_programs

    # Names differing only in case would look the same on a leaderboard: they are one name,
    # spelled as on its first upload.
    existing = engine_by_name(name)
    if existing is not None:
        if existing.owner_id != owner.pk:
            raise errors.EngineNotYours(details={"engine": existing.name})
        name = existing.name
    max_bytes = int(settings.BAO_ENGINE_MAX_BYTES)
    if upload.size is not None and upload.size > max_bytes:
        raise _too_large(max_bytes)
    try:
        incoming = storage.receive(upload.chunks(), upload.name or "engine", max_bytes=max_bytes)
    except storage.TooLarge:
        raise _too_large(max_bytes) from None
    try:
        if incoming.size_bytes == 0:
            raise errors.BadUpload("The uploaded file is empty.")
        if incoming.kind == "file" and not storage.looks_runnable(incoming.path):
            raise errors.NotExecutable(
                "A single-file engine must be a script starting with '#!' (e.g. "
                "'#!/usr/bin/env python3') or an ELF binary; other engines are uploaded as a "
                ".zip or .tar.gz with a bao-engine.json manifest."
            )
        try:
            package = load_engine(
                incoming.path,
                unpack_dir=incoming.root,
                max_bytes=storage.unpacked_max_bytes(),
            )
        except EnginePackageError as exc:
            raise _PACKAGE_ERRORS.get(exc.code, errors.BadUpload)(
                str(exc.args[0]), details=dict(exc.details)
            ) from None
        missing = missing_runtime(required_programs(package))
        if missing is not None:
            raise missing
        original = Path((upload.name or "engine").replace("\\", "/")).name or "engine"
        version = _create_version_row(owner, name, description, original, incoming)
    finally:
        incoming.discard()  # stored (or refused): the local copy is no longer needed
    _enqueue_validation(version.pk)
    return version


def _create_version_row(
    owner: Any,
    name: str,
    description: str,
    original_filename: str,
    incoming: storage.IncomingFile,
) -> EngineVersion:
    """Allocate the version number under a row lock, put the upload into the package storage,
    insert the row.

    With the database storage the package is written in the same transaction as the row: no
    package without a row. An object storage may keep a package whose row failed; its name is
    its content hash, so a later upload of the same bytes reuses it.
    """
    with transaction.atomic():
        engine = _engine_for_upload(owner, name, description)
        # Under the engine's row lock, so two identical uploads at once make one version.
        latest = engine.versions.order_by("-number").first()
        if latest is not None and latest.sha256 == incoming.sha256:
            raise errors.DuplicateVersion(
                f"The upload is identical to {latest} (sha256 {incoming.sha256}).",
                details={"engine": engine.name, "version": latest.number},
            )
        number = (latest.number if latest is not None else 0) + 1
        return EngineVersion.objects.create(
            engine=engine,
            number=number,
            original_filename=original_filename[:255],
            sha256=incoming.sha256,
            size_bytes=incoming.size_bytes,
            storage_path=storage.store(incoming),
        )


def _engine_for_upload(owner: Any, name: str, description: str) -> Engine:
    """The engine row, locked for the version allocation; created on the first upload."""
    engine = Engine.objects.select_for_update().filter(name__iexact=name).first()
    if engine is None:
        try:
            with (
                transaction.atomic()
            ):  # savepoint: a lost creation race must not poison the outer one
                engine = Engine.objects.create(owner=owner, name=name, description=description)
        except IntegrityError:
            # Another upload created it meanwhile, perhaps spelled in another case.
            engine = Engine.objects.select_for_update().get(name__iexact=name)
    if engine.owner_id != owner.pk:
        raise errors.EngineNotYours(details={"engine": name})
    if description and engine.description != description:
        engine.description = description
        engine.save(update_fields=["description"])
    return engine


def _too_large(max_bytes: int) -> errors.UploadTooLarge:
    return errors.UploadTooLarge(
        f"The upload is larger than {max_bytes} bytes.",
        details={"max_bytes": max_bytes},
    )


#: The task that validates an engine version (``engines.tasks.validate_engine_version``).
VALIDATE_TASK = "engines.tasks.validate_engine_version"


def _enqueue_validation(version_id: int) -> None:
    transaction.on_commit(partial(_send_validation, version_id))


def _send_validation(version_id: int) -> bool:
    """Queue ``validate_engine_version`` and note when (``validation_queued_at``). A broker
    failure is logged, not raised: the upload is already committed, the version stays
    ``pending``, and the requeue scan sends it later (``validations_resend_lost``)."""
    # By name through the project's app (tasks are leaves: nothing imports a tasks module).
    from arena.celery import registered_task

    try:
        registered_task(VALIDATE_TASK).delay(version_id)
    except Exception:
        log.exception("engine version %s: could not queue its validation", version_id)
        return False
    EngineVersion.objects.filter(pk=version_id).update(validation_queued_at=timezone.now())
    return True


#: A pending version never queued this long after its upload is queued by the requeue scan.
UNQUEUED_VALIDATION_GRACE_S = 30


def validations_resend_lost() -> list[int]:
    """Queue again the validations of ``pending`` versions whose task never reached the broker
    (never queued, ``UNQUEUED_VALIDATION_GRACE_S`` after the upload) or was queued more than
    ``settings.BAO_LOST_MESSAGE_SECONDS`` ago without a verdict. Validation is idempotent, so a
    message that was only slow costs one no-op. Returns the version ids sent."""
    now = timezone.now()
    lost = now - timedelta(seconds=int(settings.BAO_LOST_MESSAGE_SECONDS))
    grace = now - timedelta(seconds=UNQUEUED_VALIDATION_GRACE_S)
    waiting = EngineVersion.objects.filter(
        Q(validation_queued_at__isnull=True, created_at__lt=grace)
        | Q(validation_queued_at__lt=lost),
        status=EngineVersion.Status.PENDING,
    )
    return [pk for pk in waiting.values_list("pk", flat=True) if _send_validation(pk)]


#: API names of the consent setting -> ``Engine`` fields (``engines.consent``).
CONSENT_FIELDS = {
    "rated_pairing": "consent_rated",
    "challenges": "consent_challenges",
    "ladder": "consent_ladder",
    "version_tests": "consent_version_tests",
    "people": "consent_people",
}


def engine_update(
    *,
    engine: Engine,
    description: str | None = None,
    is_enabled: bool | None = None,
    consent: dict[str, Any] | None = None,
) -> Engine:
    """Change an engine's ``description``, ``is_enabled`` and/or ``consent`` (None leaves a
    field alone; ``consent`` holds any of ``rated_pairing``, ``challenges``, ``ladder``,
    ``version_tests``, ``people``, checked by the caller's serializer; see ``engines.consent``).

    A disabled engine keeps its versions, games and ratings but enters no new match. Consent
    binds pairings made after the change (and tournaments that have not started yet); matches
    already created are played. Ownership is checked by the caller (``engine_for_owner``).
    """
    fields = []
    for key, value in (consent or {}).items():
        setattr(engine, CONSENT_FIELDS[key], value)
        fields.append(CONSENT_FIELDS[key])
    if description is not None:
        engine.description = description
        fields.append("description")
    if is_enabled is not None:
        engine.is_enabled = is_enabled
        fields.append("is_enabled")
    if fields:
        engine.save(update_fields=fields)
    return engine


def engine_set_enabled(*, engine: Engine, enabled: bool) -> Engine:
    """Enable or disable ``engine`` (see ``engine_update``)."""
    return engine_update(engine=engine, is_enabled=enabled)


def register_bundled_engines(*, validate: bool = True) -> list[EngineVersion]:
    """Idempotently register the bundled engines ``random``, ``greedy``, ``search``.

    Creates the system user ``arena`` (no usable password) and one engine per file in
    ``engines/bundled/`` (``is_bundled=True``), each with a version holding the current file;
    a changed file (new sha256) becomes a new version. Versions are validated synchronously
    here (handshake and a short game, no worker needed), so they are ``active`` at once when
    the sandbox works. Returns the current version of each bundled engine, in the order above.
    A missing bundled file is logged and skipped.
    """
    from engines.validation import ValidationDeferred, validate_version_now

    User = get_user_model()
    system, created = User.objects.get_or_create(
        username=SYSTEM_USERNAME, defaults={"is_active": False}
    )
    if created:
        system.set_unusable_password()
        system.save(update_fields=["password"])
    result: list[EngineVersion] = []
    for name, description in BUNDLED_ENGINES:
        path = BUNDLED_DIR / name
        if not path.is_file():
            log.warning("bundled engine %s is missing at %s; skipped", name, path)
            continue
        version = _bundled_version(system, name, description, path)
        if validate and version.status in (
            EngineVersion.Status.PENDING,
            EngineVersion.Status.VALIDATING,
        ):
            try:
                validate_version_now(version.pk)
            except (
                ValidationDeferred
            ) as exc:  # the sandbox is unusable here: a worker retries later
                log.warning("bundled engine %s left pending: %s", version, exc)
            version.refresh_from_db()
        result.append(version)
    return result


def _bundled_version(system: Any, name: str, description: str, path: Path) -> EngineVersion:
    from engines.package import load_engine

    digest = storage.file_sha256(path)
    # Any case: a user's "Random" is the name "random" (engines.selectors.engine_by_name). The
    # owner is checked first, so a user's engine is never taken for the bundled one.
    engine = engine_by_name(name)
    if engine is not None:
        if not engine.is_bundled or engine.owner_id != system.pk:
            raise errors.EngineNotYours(
                f"The bundled engine name {name!r} is taken by a user's engine.",
                details={"engine": engine.name},
            )
        current = engine.versions.filter(sha256=digest).order_by("-number").first()
        if current is not None:
            return current
    with open(path, "rb") as handle:
        incoming = storage.receive(iter(lambda: handle.read(1 << 16), b""), name, max_bytes=1 << 30)
    try:
        load_engine(incoming.path, unpack_dir=incoming.root)
        with transaction.atomic():
            engine, _ = Engine.objects.get_or_create(
                name=name,
                defaults={
                    "owner": system,
                    "description": description,
                    "is_bundled": True,
                    "consent_people": True,
                },
            )
        version = _create_version_row(system, name, "", name, incoming)
    finally:
        incoming.discard()
    return version


def engine_versions_revalidate(version_ids: list[int]) -> int:
    """Put versions back to ``pending`` (clearing the verdict) and enqueue their validation on
    commit; returns how many were reset. For admins, e.g. after a sandbox fix."""
    with transaction.atomic():
        count = EngineVersion.objects.filter(pk__in=version_ids).update(
            status=EngineVersion.Status.PENDING,
            rejection_code="",
            rejection_reason="",
            rejection_log="",
            validated_at=None,
        )
        for version_id in version_ids:
            _enqueue_validation(version_id)
    return count


def worker_runtimes_record(worker: str, runtimes: Iterable[Runtime]) -> WorkerRuntimes:
    """Store what ``worker``'s sandbox offers (``engines.sandbox.runtimes.probe_runtimes``),
    replacing its earlier probe; seen now."""
    now = timezone.now()
    row, _ = WorkerRuntimes.objects.update_or_create(
        worker=worker,
        defaults={
            "runtimes": [
                {"name": r.name, "version": r.version, "command": r.command} for r in runtimes
            ],
            "probed_at": now,
            "last_seen": now,
        },
    )
    return row


def worker_runtimes_seen(worker: str) -> bool:
    """Mark ``worker``'s probe as still current (its presence update); False if it has none."""
    return bool(WorkerRuntimes.objects.filter(worker=worker).update(last_seen=timezone.now()))


def worker_runtimes_forget(worker: str) -> None:
    """Remove ``worker``'s probe (its warm shutdown): it offers nothing any more."""
    WorkerRuntimes.objects.filter(worker=worker).delete()
