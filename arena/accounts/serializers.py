"""Input and output serializers of the account endpoints (one pair per operation)."""

from __future__ import annotations

from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers


class RegisterInputSerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=150, validators=[UnicodeUsernameValidator()]
    )
    password = serializers.CharField(
        write_only=True, min_length=1, max_length=128, trim_whitespace=False
    )
    email = serializers.EmailField(required=False, allow_blank=True, default="")


class TokenInputSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(
        write_only=True, max_length=128, trim_whitespace=False
    )


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as 'Authorization: Token <token>'.")


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    # Not an EmailField: the address is optional at registration, so it may be "", which the
    # schema's `format: email` would call invalid.
    email = serializers.CharField(help_text="The e-mail address given at registration, or \"\".")
    date_joined = serializers.DateTimeField()


class RegisterOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    token = serializers.CharField(help_text="Send as 'Authorization: Token <token>'.")


class MeOutputSerializer(UserOutputSerializer):
    engines = serializers.ListField(
        child=serializers.CharField(), help_text="Names of the user's engines."
    )
