"""Input and output serializers of ``/api/play/`` (one per operation)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from arena.api.filters import VariantField
from arena.api.serializers import BodySerializer


class PlayStartInput(BodySerializer):
    """``POST /api/play/``: a game against ``engine`` (by name, its latest active version)."""

    engine = serializers.SlugField(max_length=64)
    variant = VariantField()
    time_control = serializers.CharField(
        max_length=32,
        default="300+3",
        help_text="'<base s>+<increment s>' as everywhere in the API: '300+3' is five "
        "minutes and 3 s a move (what players call 5+3). The base may be "
        "BAO_PEOPLE_MIN_BASE_S..BAO_PEOPLE_MAX_BASE_S (default 60..3600 s), the increment "
        "at most BAO_PEOPLE_MAX_INCREMENT_S (default 60 s).",
    )
    side = serializers.ChoiceField(choices=["south", "north", "random"], default="random")
    start_suite = serializers.CharField(
        max_length=64,
        default="standard",
        help_text="'standard' or a suite of start positions (one is drawn at random).",
    )


class PlayResignInput(BodySerializer):
    """``POST /api/play/{id}/resign/``: no fields (an empty object or no body); an unknown
    field is refused as everywhere (``unknown_field``)."""


class PlayMoveInput(BodySerializer):
    """``POST /api/play/{id}/move/``: one move token in the rules' notation (rules 4)."""

    move = serializers.CharField(max_length=16, help_text="e.g. 'f2-', 'c2+s', 'a1' (Kingulu)")
    ply = serializers.IntegerField(
        min_value=1,
        max_value=100_000,
        required=False,
        help_text="the ply this move will be (1-based): `plies` + 1 of the state you saw. "
        "Given, a move for another ply is refused (409 `ply_mismatch`) and the same move "
        "resent for a ply already taken answers the game as it stands (200), so a second "
        "click or a retry is never a second move. Omitted, the move is for the ply at hand.",
    )


class LegalMoveOutput(serializers.Serializer[Any]):
    """One legal move: its token and its parts."""

    move = serializers.CharField()
    pit = serializers.CharField(help_text="the pit clicked first, e.g. 'f2'")
    direction = serializers.CharField(
        allow_null=True, help_text="'+' clockwise, '-' anticlockwise; null in Bao Kingulu"
    )
    choice = serializers.CharField(
        allow_null=True,
        help_text="where a lap ends in the mover's functional nyumba: 's' stop there or "
        "'c' continue (safari); null where the move has no choice",
    )


class ClocksOutput(serializers.Serializer[Any]):
    south_ms = serializers.IntegerField()
    north_ms = serializers.IntegerField()
    running = serializers.CharField(allow_null=True, help_text="'S', 'N' or null")


class PersonGameOutput(serializers.Serializer[Any]):
    """A person's game as its person sees it: the position, the legal moves when it is their
    turn (from the server's rules engine), both clocks now, and the result at the end."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["pending", "running", "finished", "aborted"])
    variant = serializers.CharField()
    time_control = serializers.CharField()
    engine = serializers.CharField(help_text="'<engine> v<n>'")
    engine_name = serializers.CharField()
    your_side = serializers.CharField(help_text="'S' or 'N'")
    side_to_move = serializers.CharField()
    your_turn = serializers.BooleanField()
    start_position = serializers.CharField()
    position = serializers.CharField(help_text="BPN/KPN (docs/rules/README.md 5)")
    plies = serializers.IntegerField()
    moves = serializers.ListField(child=serializers.DictField())
    legal_moves = serializers.ListField(child=serializers.CharField())
    legal = LegalMoveOutput(many=True)
    clocks = ClocksOutput()
    result = serializers.CharField(help_text="'1-0', '0-1', '1/2-1/2', '*' or '' while played")
    termination = serializers.CharField()
    detail = serializers.CharField()
    replay = serializers.CharField(help_text="the page of the game (its replay at the end)")
