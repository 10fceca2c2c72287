"""Input and output serializers of the engine endpoints (one per operation, no logic)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from arena.api.filters import VariantField
from arena.api.serializers import BodySerializer
from engines.consent import consent_of
from engines.models import ChallengeConsent, Engine, EngineVersion, RatedPairing
from engines.selectors import version_visible_rejection_log


class EngineFilterInputSerializer(serializers.Serializer[Any]):
    """Query parameters of ``GET /api/engines/``."""

    owner = serializers.CharField(required=False, help_text="Owner's username (exact).")
    variant = VariantField(
        required=False,
        help_text="Variant id: engines with an active version that plays it.",
    )
    enabled = serializers.BooleanField(
        required=False, help_text="Only enabled (true) or disabled (false) engines."
    )
    bundled = serializers.BooleanField(
        required=False, help_text="Only bundled (true) or user (false) engines."
    )
    search = serializers.CharField(required=False, help_text="Case-insensitive part of the name.")


class EngineUploadInputSerializer(BodySerializer):
    """``POST /api/engines/`` (multipart/form-data)."""

    name = serializers.SlugField(
        max_length=64,
        help_text="Engine name: letters, digits, '-' and '_'. A new name creates the engine; "
        "your own existing name adds a version.",
    )
    file = serializers.FileField(
        allow_empty_file=True,  # an empty file is refused as `bad_upload` by the service
        help_text="A single executable (#! script or ELF binary; the arena sets the executable "
        "bit, since browsers do not send file modes) or a .zip/.tar.gz holding bao-engine.json.",
    )
    description = serializers.CharField(
        required=False, allow_blank=True, max_length=4000, default=""
    )


class ConsentSerializer(BodySerializer):
    """The owner's consent to play with others (``engines.consent``); in a ``PATCH``, any
    subset of the fields."""

    rated_pairing = serializers.ChoiceField(
        choices=RatedPairing.choices,
        required=False,
        help_text="Who may put the engine into rated play: 'anyone', or 'own_events' (only "
        "your own challenges and tournaments).",
    )
    challenges = serializers.ChoiceField(
        choices=ChallengeConsent.choices,
        required=False,
        help_text="Challenges by other users it accepts: 'all', 'unrated' or 'none'.",
    )
    ladder = serializers.BooleanField(
        required=False, help_text="Whether it plays automatic rated play (a ladder)."
    )
    version_tests = serializers.BooleanField(
        required=False, help_text="Whether other users may test their versions against it."
    )
    people = serializers.BooleanField(
        required=False,
        help_text="Whether signed-in people may play it in the browser (casual games, "
        "POST /api/play/). Off by default; on for the bundled engines.",
    )


class EngineUpdateInputSerializer(BodySerializer):
    """``PATCH /api/engines/{name}/``: any subset of the fields."""

    description = serializers.CharField(required=False, allow_blank=True, max_length=4000)
    is_enabled = serializers.BooleanField(required=False)
    consent = ConsentSerializer(required=False)


class EngineVersionOutputSerializer(serializers.ModelSerializer[EngineVersion]):
    """A version. ``rejection_reason`` (code and the referee's detail) is public;
    ``rejection_log`` (the engine's stderr tail) is given to the owner and staff only, null for
    everyone else (the viewer is ``context["request"].user``)."""

    engine = serializers.CharField(source="engine.name")
    rejection_log = serializers.SerializerMethodField()

    class Meta:
        model = EngineVersion
        fields = (
            "engine",
            "number",
            "status",
            "rejection_code",
            "rejection_reason",
            "rejection_log",
            "original_filename",
            "sha256",
            "size_bytes",
            "variants",
            "failed_variants",
            "reported_name",
            "reported_author",
            "created_at",
            "validated_at",
        )

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_rejection_log(self, version: EngineVersion) -> str | None:
        request = self.context.get("request")
        return version_visible_rejection_log(version, getattr(request, "user", None))


class VersionSummarySerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=EngineVersion.Status.choices)


class EngineListOutputSerializer(serializers.ModelSerializer[Engine]):
    owner = serializers.CharField(source="owner.username")
    latest_version = serializers.SerializerMethodField()
    active_version = serializers.SerializerMethodField()
    variants = serializers.SerializerMethodField()

    class Meta:
        model = Engine
        fields: tuple[str, ...] = (
            "name",
            "owner",
            "description",
            "is_enabled",
            "is_bundled",
            "created_at",
            "latest_version",
            "active_version",
            "variants",
        )

    # The versions are prefetched (engines.selectors.engine_list): these read no database.
    def _active(self, engine: Engine) -> EngineVersion | None:
        active = [v for v in engine.versions.all() if v.status == EngineVersion.Status.ACTIVE]
        return active[-1] if active else None

    @extend_schema_field(VersionSummarySerializer(allow_null=True))
    def get_latest_version(self, engine: Engine) -> dict[str, Any] | None:
        versions = list(engine.versions.all())
        if not versions:
            return None
        return VersionSummarySerializer(versions[-1]).data

    def get_active_version(self, engine: Engine) -> int | None:
        active = self._active(engine)
        return active.number if active else None

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_variants(self, engine: Engine) -> list[str]:
        active = self._active(engine)
        return list(active.variants) if active else []


class EngineDetailOutputSerializer(EngineListOutputSerializer):
    versions = serializers.SerializerMethodField()
    consent = serializers.SerializerMethodField()

    class Meta(EngineListOutputSerializer.Meta):
        fields = (
            *EngineListOutputSerializer.Meta.fields,
            "versions",
            "consent",
        )

    @extend_schema_field(ConsentSerializer)
    def get_consent(self, engine: Engine) -> dict[str, Any]:
        return consent_of(engine)

    @extend_schema_field(EngineVersionOutputSerializer(many=True))
    def get_versions(self, engine: Engine) -> list[dict[str, Any]]:
        return list(
            EngineVersionOutputSerializer(
                engine.versions.all(), many=True, context=self.context
            ).data
        )


class RuntimeOutputSerializer(serializers.Serializer[Any]):
    """One runtime a worker offers engines (docs/runtimes.md)."""

    name = serializers.CharField(help_text="python, node, java, libc or libstdc++")
    version = serializers.CharField(help_text="as the runtime prints it: 3.11.2, 17.0.15")
    command = serializers.CharField(
        help_text='what a manifest command starts with to use it ("" for a library)'
    )


class WorkerRuntimesOutputSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="the worker's Celery node name")
    runtimes = RuntimeOutputSerializer(many=True)


class RuntimesOutputSerializer(serializers.Serializer[Any]):
    runtimes = RuntimeOutputSerializer(
        many=True, help_text="every runtime at least one live worker offers"
    )
    workers = WorkerRuntimesOutputSerializer(many=True, help_text="each live worker's probe")
