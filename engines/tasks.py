"""Celery tasks of the engine registry (thin: ids in, the work lives in ``engines.validation``)."""

from __future__ import annotations

from celery import shared_task

from engines.validation import ValidationDeferred, validate_version_now


@shared_task(
    name="engines.tasks.validate_engine_version",
    autoretry_for=(ValidationDeferred,),
    retry_backoff=30,
    retry_backoff_max=600,
    max_retries=5,
    acks_late=True,
)
def validate_engine_version(version_id: int) -> str:
    """Validate engine version ``version_id`` (handshake + one short game against the bundled
    random engine); returns the status afterwards (``active``/``rejected``, or the unchanged
    status of a version that was already decided). Idempotent; retried with back-off when the
    sandbox could not start an engine (``ValidationDeferred``)."""
    return validate_version_now(version_id)
