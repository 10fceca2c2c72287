"""Admin pages of version tests and their pairs (read mostly: the service writes the counts)."""

from django.contrib import admin

from versiontests.models import VersionTest, VersionTestPair


@admin.register(VersionTest)
class VersionTestAdmin(admin.ModelAdmin[VersionTest]):
    list_display = ["id", "new_version", "base_version", "variant", "status", "decision", "llr"]
    list_filter = ["status", "decision", "variant"]
    readonly_fields = ["pentanomial", "llr_history"]


@admin.register(VersionTestPair)
class VersionTestPairAdmin(admin.ModelAdmin[VersionTestPair]):
    list_display = ["id", "test", "index", "match", "state", "score"]
    list_filter = ["state"]
