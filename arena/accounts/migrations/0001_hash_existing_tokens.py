"""Existing API tokens (``rest_framework.authtoken``, keys in clear) become knox tokens (digests).

Each old key keeps working (clients need not log in again) until one token lifetime
(``settings.REST_KNOX["TOKEN_TTL"]``) after this migration; the clear keys are then deleted. On
SQLite ``secure_delete`` overwrites the deleted rows, so the file keeps no old key; on
PostgreSQL run ``VACUUM`` once after upgrading so the dead rows' pages are reused. Written by
hand (raw SQL on the old table) because ``rest_framework.authtoken`` is no longer installed.
"""

from __future__ import annotations

from django.db import migrations
from django.utils import timezone

OLD_TABLE = "authtoken_token"


def hash_existing_tokens(apps, schema_editor):  # type: ignore[no-untyped-def]
    from knox.crypto import hash_token
    from knox.settings import CONSTANTS, knox_settings

    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    quoted = schema_editor.quote_name(OLD_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {quoted}")
        rows = cursor.fetchall()
    AuthToken = apps.get_model("knox", "AuthToken")
    expiry = timezone.now() + knox_settings.TOKEN_TTL
    for key, user_id, created in rows:
        token = AuthToken.objects.create(
            digest=hash_token(key),
            token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH],
            user_id=user_id,
            expiry=expiry,
        )
        AuthToken.objects.filter(pk=token.pk).update(created=created)
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA secure_delete = ON")
        cursor.execute(f"DELETE FROM {quoted}")


class Migration(migrations.Migration):
    dependencies = [
        ("knox", "0009_extend_authtoken_field"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(hash_existing_tokens, migrations.RunPython.noop)]
