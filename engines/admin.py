"""Admin of the engine registry: engines with their versions inline, versions on their own."""

from __future__ import annotations

from django.contrib import admin

from engines.models import Engine, EngineVersion


class EngineVersionInline(admin.TabularInline[EngineVersion, Engine]):
    model = EngineVersion
    extra = 0
    fields = (
        "number",
        "status",
        "rejection_code",
        "original_filename",
        "size_bytes",
        "created_at",
        "validated_at",
    )
    readonly_fields = fields
    show_change_link = True
    can_delete = False


@admin.register(Engine)
class EngineAdmin(admin.ModelAdmin[Engine]):
    list_display = (
        "name",
        "owner",
        "is_enabled",
        "is_bundled",
        "created_at",
    )
    list_filter = (
        "is_enabled",
        "is_bundled",
    )
    search_fields = (
        "name",
        "owner__username",
        "description",
    )
    readonly_fields = ("created_at",)
    raw_id_fields = ("owner",)
    inlines = (EngineVersionInline,)


@admin.register(EngineVersion)
class EngineVersionAdmin(admin.ModelAdmin[EngineVersion]):
    list_display = (
        "__str__",
        "status",
        "rejection_code",
        "size_bytes",
        "created_at",
        "validated_at",
    )
    list_filter = (
        "status",
        "rejection_code",
    )
    search_fields = (
        "engine__name",
        "sha256",
        "reported_name",
    )
    list_select_related = ("engine",)
    # Files on disk are described by these fields: editing them would break the version.
    readonly_fields = (
        "engine",
        "number",
        "original_filename",
        "sha256",
        "size_bytes",
        "storage_path",
        "variants",
        "failed_variants",
        "reported_name",
        "reported_author",
        "created_at",
        "validated_at",
    )
    actions = ("revalidate",)

    @admin.action(description="Validate again (back to pending, enqueue validation)")
    def revalidate(self, request, queryset):  # type: ignore[no-untyped-def]
        from engines.services import engine_versions_revalidate

        count = engine_versions_revalidate(list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} version(s) queued for validation.")
