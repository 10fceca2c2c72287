"""Validation of an uploaded engine version: a handshake, then a short refereed game per variant.

A version is ``active`` when it completes the BEP handshake (``bep`` ... ``bepok`` with an
``id name``) and then, in *every* variant it announces (all three if it announces none), plays
one short game against the bundled ``random`` engine without an engine fault of its own (losing
on the board is fine). It is active for the variants it passed only (``EngineVersion.variants``);
each variant it failed is kept in ``failed_variants`` with the fault, so an engine cannot pass
in one variant and then lose rated games on purpose in another. If it passes none, it is
``rejected`` with the
termination code of its fault (``arena.terminations``: ``handshake_failed``, ``crash``,
``illegal_move``, ``invalid_output``, ``time_forfeit``, ``stall``, ``output_limit``, ...) and the
referee's detail as a readable reason. An ``aborted`` game (the sandbox could not start an
engine: our fault, not the engine's) rejects nothing: the version goes back to ``pending`` and
``ValidationDeferred`` is raised so the task retries.

The games: the candidate plays South in each variant, in ``VARIANTS`` order, at time control
``VALIDATION_TIME_CONTROL``, at most ``VALIDATION_PLY_CAP`` plies each (a short game proves the
protocol, not the strength). Engines run in the sandbox configured by
``settings.BAO_SANDBOX_MODE`` / ``BAO_SANDBOX_REQUIRE_FULL``.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import DataError, transaction
from django.utils import timezone

from arena import terminations as T
from arena.engine_text import storable, storable_text
from arena.rules import VARIANTS
from engines.models import EngineVersion

if TYPE_CHECKING:
    from arena.referee import RefereeConfig
    from engines.package import EnginePackage
    from engines.sandbox import SandboxConfig

log = logging.getLogger(__name__)

#: The variant the handshake probe asks for (any would do: only the handshake is checked).
VALIDATION_VARIANT = "bao-la-kiswahili"
VALIDATION_TIME_CONTROL = "5+0.1"
VALIDATION_PLY_CAP = 40
CANDIDATE = "candidate"
OPPONENT = "arena-random"
#: The rejection code of a version whose command needs a runtime no worker offers (the API's
#: ``runtime_missing`` at upload, docs/runtimes.md).
RUNTIME_MISSING = "runtime_missing"
#: Most characters of engine stderr kept in a rejection log.
REASON_STDERR_CHARS = 2000


class ValidationDeferred(RuntimeError):
    """Validation could not run for a reason that is not the engine's fault (retry later)."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a package: ``ok``, else ``code`` + ``reason`` (a rejection;
    ``log``: the engine's stderr tail, for its owner only), or ``deferred`` (infrastructure
    fault). ``variants``: those it passed (an ``ok`` verdict plays only these);
    ``failed_variants``: {variant: "<code>: <detail>"} for the announced ones it failed (an
    ``ok`` verdict keeps the first failure's stderr in ``log``);
    ``name``/``author``: from the handshake."""

    ok: bool
    code: str = ""
    reason: str = ""
    log: str = ""
    deferred: bool = False
    variants: list[str] = field(default_factory=list)
    failed_variants: dict[str, str] = field(default_factory=dict)
    name: str = ""
    author: str = ""


def sandbox_config() -> SandboxConfig:
    """The ``SandboxConfig`` of this host's settings (``BAO_SANDBOX_MODE``,
    ``BAO_SANDBOX_REQUIRE_FULL``, the optional cgroup ``BAO_ENGINE_CGROUP_PARENT`` capped at
    ``BAO_ENGINE_MEMORY_BYTES``): validation and matches start engines alike."""
    from engines.sandbox import SandboxConfig

    return SandboxConfig(
        mode=settings.BAO_SANDBOX_MODE,
        require_full=settings.BAO_SANDBOX_REQUIRE_FULL,
        cgroup_parent=settings.BAO_ENGINE_CGROUP_PARENT,
        cgroup_memory_bytes=int(settings.BAO_ENGINE_MEMORY_BYTES),
    )


def referee_config() -> RefereeConfig:
    """The ``RefereeConfig`` used for validation (sandbox from the settings, short ply cap)."""
    from arena.referee import RefereeConfig

    return RefereeConfig(
        sandbox=sandbox_config(),
        ply_cap=VALIDATION_PLY_CAP,
        memory_cap_bytes=int(settings.BAO_ENGINE_MEMORY_BYTES),
    )


def opponent_package(unpack_dir: Path) -> EnginePackage:
    """The bundled random engine (``engines/bundled/random``), copied into ``unpack_dir``."""
    from engines.package import load_engine

    return load_engine(
        Path(settings.BASE_DIR) / "engines" / "bundled" / "random",
        unpack_dir=unpack_dir,
    )


def check_package(
    package: EnginePackage,
    *,
    config: RefereeConfig | None = None,
    opponent: EnginePackage | None = None,
) -> Verdict:
    """Handshake with ``package`` (an ``EnginePackage``), then one short game against
    ``opponent`` (default: the bundled random engine). Never raises for engine misbehaviour.
    ``config``: a ``RefereeConfig`` (default ``referee_config()``)."""
    from arena.referee import (
        EngineFault,
        EngineSlot,
        StartError,
        TimeControl,
        play_game,
    )

    if opponent is None:
        with tempfile.TemporaryDirectory(prefix="bao-validate-") as tmp:
            return check_package(
                package, config=config, opponent=opponent_package(Path(tmp) / "random")
            )
    config = config or referee_config()
    # Engines started as the sandbox starts them (not by a test's own starter) need their
    # runtime on this worker.
    real_start = config.starter is None and config.transport_factory is None
    if real_start and config.sandbox is not None:
        missing = _runtime_verdict(package, config.sandbox)
        if missing is not None:
            return missing
    probe = EngineSlot(package, CANDIDATE, config)
    try:
        # prepare() starts the process and runs the handshake before it looks at the variant;
        # an engine that does not play VALIDATION_VARIANT fails only that last check.
        probe.prepare(VALIDATION_VARIANT)
    except StartError as exc:
        return Verdict(ok=False, deferred=True, reason=str(exc))
    except EngineFault as fault:
        if probe.ident is None:  # the handshake itself failed
            return _reject(fault.code, fault.detail, probe.stderr_tail())
    finally:
        ident = probe.ident
        probe.close()
    assert ident is not None
    known = [v for v in ident.variants if v in VARIANTS]
    if ident.variants and not known:
        return _reject(
            T.HANDSHAKE_FAILED,
            "the engine announces only variants the arena does not play "
            f"({', '.join(ident.variants)}); "
            f"known: {', '.join(VARIANTS)}",
            "",
        )
    announced = known or list(VARIANTS)  # no 'variant' line: the protocol default is all games
    name, author = ident.name, ident.author
    passed: list[str] = []
    failed: dict[str, Verdict] = {}
    for variant in VARIANTS:  # a fixed order, whatever order the engine announced
        if variant not in announced:
            continue
        south = EngineSlot(package, CANDIDATE, config)
        north = EngineSlot(opponent, OPPONENT, config)
        try:
            record = play_game(
                variant, south, north, TimeControl.parse(VALIDATION_TIME_CONTROL), config
            )
        finally:
            south.close()
            north.close()
        if record.termination == T.ABORTED:
            return Verdict(ok=False, deferred=True, reason=record.detail, name=name, author=author)
        if record.termination in T.ENGINE_FAULTS and record.winner != CANDIDATE:
            failed[variant] = _reject(
                record.termination, record.detail, record.engine_errors.get(CANDIDATE, "")
            )
        else:
            passed.append(variant)
    # Rejected: the first failure is the reason. Active with failures: those are listed per
    # variant, and the first one's stderr is kept for the owner (rejection_log).
    first = next(iter(failed.values()), Verdict(ok=True))
    return Verdict(
        ok=bool(passed),
        code="" if passed else first.code,
        reason="" if passed else first.reason,
        log=first.log,
        variants=passed,
        failed_variants={variant: v.reason for variant, v in failed.items()},
        name=name,
        author=author,
    )


def _runtime_verdict(package: EnginePackage, sandbox: SandboxConfig) -> Verdict | None:
    """None if this worker's sandbox has what ``package``'s command needs
    (``engines.sandbox.runtimes.required_programs``); else a ``runtime_missing`` rejection
    naming it when no worker has it either, or a deferred verdict (retried, perhaps on the
    worker that has it) when another live worker offers it."""
    from engines.sandbox import SandboxError
    from engines.sandbox.runtimes import (
        offered_here,
        program_on_sandbox_path,
        required_programs,
        runtime_for,
    )
    from engines.selectors import offered_runtime_names, runtime_missing_error

    for program in required_programs(package):
        runtime = runtime_for(program)
        if runtime is None:
            if program_on_sandbox_path(program):
                continue
            error = runtime_missing_error(program, program, sorted(offered_runtime_names()))
            return _reject(RUNTIME_MISSING, _sentence(error), "")
        try:
            if offered_here(runtime, sandbox) is not None:
                continue
        except SandboxError as exc:
            return Verdict(ok=False, deferred=True, reason=str(exc))
        elsewhere = offered_runtime_names()
        if runtime in elsewhere:
            return Verdict(
                ok=False, deferred=True, reason=f"{runtime} is not on this worker (another has it)"
            )
        error = runtime_missing_error(runtime, program, sorted(elsewhere))
        return _reject(RUNTIME_MISSING, _sentence(error), "")
    return None


def _sentence(error: Exception) -> str:
    text = str(getattr(error, "detail", error))
    return text[:1].lower() + text[1:].rstrip(".")


def _reject(code: str, detail: str, stderr: str) -> Verdict:
    """A rejection: the public reason (code and the referee's detail) and, apart, the last
    ``REASON_STDERR_CHARS`` characters of the engine's stderr (owner and staff only)."""
    reason = f"{code}: {detail}" if detail else code
    log = stderr[-REASON_STDERR_CHARS:] if stderr.strip() else ""
    return Verdict(ok=False, code=code, reason=reason, log=log)


def validate_version_now(version_id: int, *, config: RefereeConfig | None = None) -> str:
    """Validate version ``version_id`` in this process; returns its status afterwards.

    Idempotent: a version already ``active`` or ``rejected`` is left alone (its status is
    returned). A ``pending`` version, or one left ``validating`` by a worker that died, is
    claimed with a conditional update and checked. Unknown id: returns ``"missing"``.
    Raises ``ValidationDeferred`` (status back to ``pending``) on an infrastructure fault.
    A verdict the database refuses even after ``arena.engine_text.storable_text`` rejects the
    version (``invalid_output``, the database's error as the reason): it never stays
    ``validating``.
    """
    from engines.package import EnginePackageError
    from engines.storage import checkout

    open_states = (EngineVersion.Status.PENDING, EngineVersion.Status.VALIDATING)
    claimed = EngineVersion.objects.filter(pk=version_id, status__in=open_states).update(
        status=EngineVersion.Status.VALIDATING
    )
    if not claimed:
        status = (
            EngineVersion.objects.filter(pk=version_id).values_list("status", flat=True).first()
        )
        return status or "missing"
    version = EngineVersion.objects.select_related("engine").get(pk=version_id)
    try:
        with checkout(version) as package:  # fetched into this host's cache if needed
            verdict = check_package(package, config=config)
    except EnginePackageError as exc:  # the stored files are gone or broken: nothing to run
        verdict = Verdict(ok=False, code=exc.code, reason=str(exc))
    except Exception:
        _release(version_id)
        raise
    if verdict.deferred:
        _release(version_id)
        log.warning("validation of %s deferred: %s", version, verdict.reason)
        raise ValidationDeferred(verdict.reason)
    status = EngineVersion.Status.ACTIVE if verdict.ok else EngineVersion.Status.REJECTED
    try:
        _record(version_id, status, verdict)
    except DataError as exc:
        # The referee cleans engine text, so this is a guard: whatever the database refuses,
        # the version must not stay 'validating' (every retry would fail the same way).
        log.exception("validation of %s: the verdict could not be stored", version)
        status = EngineVersion.Status.REJECTED
        verdict = Verdict(
            ok=False,
            code=T.INVALID_OUTPUT,
            reason=f"{T.INVALID_OUTPUT}: the engine's output could not be stored "
            f"({type(exc).__name__}: {exc})",
        )
        _record(version_id, status, verdict)
    log.info("validation of %s: %s %s", version, status, verdict.code)
    if status == EngineVersion.Status.ACTIVE:
        _announce_active(version_id)
    return str(status)


#: The task that tops up the ladders (tournaments.tasks), sent by name: the engines app does not
#: import the apps that consume its versions.
LADDER_FILL_TASK = "tournaments.tasks.ladder_fill_all"


def _announce_active(version_id: int) -> None:
    """ "A version became active": a ladder may place it at once (docs/ladder.md). A broker
    failure is logged; the ladder's minute job places it then."""
    from arena.celery import registered_task

    try:
        registered_task(LADDER_FILL_TASK).apply_async()
    except Exception:
        log.warning("version %s active: ladder fill not sent", version_id, exc_info=True)


def _record(version_id: int, status: str, verdict: Verdict) -> None:
    """Write ``verdict`` to a version we hold in ``validating``. Text the engine produced is
    made storable (NUL, lone surrogates: ``arena.engine_text.storable_text``) on the way in.
    Raises ``DataError`` if the database still refuses a value (nothing written)."""
    with transaction.atomic():
        EngineVersion.objects.filter(pk=version_id, status=EngineVersion.Status.VALIDATING).update(
            status=status,
            rejection_code=verdict.code,
            rejection_reason=storable_text(verdict.reason),
            rejection_log=storable_text(verdict.log),
            variants=storable(verdict.variants),
            failed_variants=storable(verdict.failed_variants),
            reported_name=storable_text(verdict.name)[:128],
            reported_author=storable_text(verdict.author)[:128],
            validated_at=timezone.now(),
        )


def _release(version_id: int) -> None:
    """Give a claimed version back (``pending``) so a retry can claim it."""
    EngineVersion.objects.filter(pk=version_id, status=EngineVersion.Status.VALIDATING).update(
        status=EngineVersion.Status.PENDING
    )
