"""Input and output serializers of the account endpoints (one pair per operation)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

from arena.api.serializers import BodySerializer

_TOKEN_HELP = (
    "Send as 'Authorization: Token <token>'. Shown once: the arena keeps only a digest of it."
)
_EXPIRY_HELP = "When the token stops working (ISO 8601, UTC); null: never."


class RegisterInputSerializer(BodySerializer):
    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = serializers.CharField(
        write_only=True, min_length=1, max_length=128, trim_whitespace=False
    )
    email = serializers.EmailField(required=False, allow_blank=True, default="")


class TokenInputSerializer(BodySerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(write_only=True, max_length=128, trim_whitespace=False)


class PasswordChangeInputSerializer(BodySerializer):
    old_password = serializers.CharField(write_only=True, max_length=128, trim_whitespace=False)
    new_password = serializers.CharField(write_only=True, max_length=128, trim_whitespace=False)


class TokenOutputSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(help_text=_TOKEN_HELP)
    expires_at = serializers.DateTimeField(allow_null=True, help_text=_EXPIRY_HELP)


class TokenListOutputSerializer(serializers.Serializer[Any]):
    """One live token as its owner sees it: never the key, only its first characters."""

    prefix = serializers.CharField(
        source="token_key",
        help_text="The key's first characters: names the token (DELETE /api/auth/tokens/"
        "{prefix}/ revokes it).",
    )
    created_at = serializers.DateTimeField(source="created")
    expires_at = serializers.DateTimeField(source="expiry", allow_null=True, help_text=_EXPIRY_HELP)
    current = serializers.BooleanField(help_text="The token this request was sent with.")


class UserOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    # Not an EmailField: the address is optional at registration, so it may be "", which the
    # schema's `format: email` would call invalid.
    email = serializers.CharField(help_text='The e-mail address given at registration, or "".')
    date_joined = serializers.DateTimeField()


class RegisterOutputSerializer(serializers.Serializer[Any]):
    user = UserOutputSerializer()
    token = serializers.CharField(help_text=_TOKEN_HELP)
    expires_at = serializers.DateTimeField(allow_null=True, help_text=_EXPIRY_HELP)


class MeOutputSerializer(UserOutputSerializer):
    engines = serializers.ListField(
        child=serializers.CharField(), help_text="Names of the user's engines."
    )
