"""Errors of the engine registry: uploads, ownership, and whether a version may play (stable
codes; ``arena.api.errors`` turns an ``ApiError`` into the JSON envelope and its status)."""

from __future__ import annotations

from rest_framework import status

from arena.api.errors import ApiError

__all__ = [
    "ApiError",
    "BadManifest",
    "BadUpload",
    "DuplicateVersion",
    "EngineDisabled",
    "EngineNotActive",
    "EngineNotFound",
    "EngineNotYours",
    "EngineVersionNotFound",
    "NotExecutable",
    "PairingRefused",
    "RuntimeMissing",
    "UnsafeArchive",
    "UploadTooLarge",
    "VariantNotSupported",
]


class EngineNotYours(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "engine_not_yours"
    default_detail = "An engine with this name belongs to another user."


class UploadTooLarge(ApiError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "upload_too_large"
    default_detail = "The uploaded file is larger than the limit."


class UnsafeArchive(ApiError):
    default_code = "unsafe_archive"
    default_detail = "The archive holds absolute paths, '..' parts or links leaving the archive."


class BadManifest(ApiError):
    default_code = "bad_manifest"
    default_detail = "The archive's bao-engine.json manifest is missing or invalid."


class NotExecutable(ApiError):
    default_code = "not_executable"
    default_detail = "The upload is not an executable engine."


class BadUpload(ApiError):
    default_code = "bad_upload"
    default_detail = "The upload is not a usable engine file or archive."


class DuplicateVersion(ApiError):
    """The upload is byte-identical (same sha256) to the engine's latest version."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "duplicate_version"
    default_detail = "The upload is identical to the engine's latest version."


class EngineNotActive(ApiError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "engine_not_active"
    default_detail = "The engine has no active (validated) version."


class EngineNotFound(ApiError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "engine_not_found"
    default_detail = "No engine has this name."


class EngineVersionNotFound(ApiError):
    """The engine exists but has no version with this number (request body)."""

    status_code = status.HTTP_404_NOT_FOUND
    default_code = "engine_version_not_found"
    default_detail = "The engine has no version with this number."


class EngineDisabled(EngineNotActive):
    """The engine's owner disabled it: it keeps its history but enters no new match (409). A
    kind of ``EngineNotActive``, with its own code so clients can tell the two apart."""

    default_code = "engine_disabled"
    default_detail = "The engine is disabled by its owner."


class VariantNotSupported(ApiError):
    default_code = "variant_not_supported"
    default_detail = "An engine did not announce this variant in its handshake."


class PairingRefused(ApiError):
    """The engine's owner does not consent to this pairing (``engines.consent``): ``details``
    names the ``engine``, the ``kind`` of pairing and the consent ``setting`` and ``value``."""

    status_code = status.HTTP_403_FORBIDDEN
    default_code = "pairing_refused"
    default_detail = "The engine's owner does not allow this pairing."


class RuntimeMissing(ApiError):
    """The engine's command needs a runtime no worker offers (docs/runtimes.md): ``details``
    names the ``runtime``, the ``program`` the command starts and the runtimes ``offered``."""

    default_code = "runtime_missing"
    default_detail = "The engine needs a runtime that no worker offers."
