"""Input and output serializers of the tournaments API, one pair per operation (no logic here)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from arena.api.filters import VariantField
from arena.api.serializers import BodySerializer
from tournaments.formats import DEFAULT_FORMAT, format_choices
from tournaments.models import Tournament
from tournaments.selectors import Progress, TournamentTable


class TournamentCreateInput(BodySerializer):
    """``POST /api/tournaments/``.

    ``engines`` are engine names (their latest active versions play); ``rounds`` is the
    number of Swiss rounds (only for ``swiss``); ``start_at`` null or absent starts at once.
    """

    name = serializers.CharField(max_length=120)
    variant = VariantField()
    engines = serializers.ListField(child=serializers.CharField(max_length=64), max_length=64)
    time_control = serializers.CharField(max_length=32, default="10+0.1")
    start_at = serializers.DateTimeField(required=False, allow_null=True)
    format = serializers.ChoiceField(choices=format_choices(), default=DEFAULT_FORMAT)
    rated = serializers.BooleanField(default=True)
    # "standard" or a suite of start positions (arena.openings); checked by the service
    # (unknown_start_suite, with the known choices).
    start_suite = serializers.CharField(max_length=64, default="standard")
    rounds = serializers.IntegerField(min_value=1, max_value=1000, required=False, allow_null=True)


class TournamentCancelInput(BodySerializer):
    """``POST /api/tournaments/{id}/cancel/``: an optional reason, kept with the event."""

    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class TournamentListQuery(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)
    variant = VariantField(required=False)


class TournamentTrfQuery(serializers.Serializer[Any]):
    """``GET /api/tournaments/{id}/trf/``: the round to pair from the file (optional)."""

    round = serializers.IntegerField(required=False, min_value=1, max_value=9999)


class TournamentListOutput(serializers.ModelSerializer[Tournament]):
    matches_total = serializers.IntegerField(read_only=True)
    matches_done = serializers.IntegerField(read_only=True)
    rated_note = serializers.SerializerMethodField(
        help_text="Why a request for a rated tournament was made casual (a stable text), else null."
    )

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "variant",
            "time_control",
            "format",
            "status",
            "rated",
            "rated_note",
            "start_suite",
            "start_at",
            "started_at",
            "finished_at",
            "matches_total",
            "matches_done",
        ]

    @extend_schema_field({"type": "string", "nullable": True})
    def get_rated_note(self, tournament: Tournament) -> str | None:
        return tournament.rated_note or None


class EngineRefOutput(serializers.Serializer[Any]):
    """An engine version in a tournament's body: its id, engine name and version number."""

    id = serializers.IntegerField()
    engine = serializers.CharField()
    version = serializers.IntegerField()


class EntryOutput(EngineRefOutput):
    seed_no = serializers.IntegerField(help_text="Number in the pairing table (1..n).")


class ProgressOutput(serializers.Serializer[Any]):
    matches_total = serializers.IntegerField()
    matches_done = serializers.IntegerField()
    matches_running = serializers.IntegerField()
    games_played = serializers.IntegerField()


class StandingOutput(EngineRefOutput):
    """One row of the standings (``tournaments.standings``): match points, match and game
    W/D/L, and the tie-breaks."""

    rank = serializers.IntegerField(help_text="1-based; engines equal on every tie-break share it.")
    points = serializers.FloatField(help_text="Match points: 1 a win, 1/2 a draw.")
    matches = serializers.IntegerField()
    match_wins = serializers.IntegerField()
    match_draws = serializers.IntegerField()
    match_losses = serializers.IntegerField()
    game_points = serializers.FloatField()
    games = serializers.IntegerField()
    game_wins = serializers.IntegerField()
    game_draws = serializers.IntegerField()
    game_losses = serializers.IntegerField()
    sonneborn_berger = serializers.FloatField()
    head_to_head = serializers.FloatField()


class CrossCellOutput(serializers.Serializer[Any]):
    """Row engine against column engine: game points each way, match points, match ids."""

    score = serializers.FloatField()
    opponent_score = serializers.FloatField()
    match_points = serializers.FloatField()
    matches = serializers.ListField(child=serializers.IntegerField())


class CrosstableOutput(serializers.Serializer[Any]):
    engines = serializers.ListField(
        child=serializers.CharField(), help_text="Engine names in seed order."
    )
    rows = serializers.ListField(
        child=serializers.ListField(child=CrossCellOutput(allow_null=True)),
        help_text="rows[i][j]: engine i against engine j, null on the diagonal or if unplayed.",
    )


class TournamentDetailOutput(serializers.Serializer[Any]):
    """The body of ``GET /api/tournaments/{id}/`` (built by ``tournament_detail_data``; this
    class documents it in the schema)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    variant = serializers.CharField()
    time_control = serializers.CharField()
    format = serializers.ChoiceField(choices=format_choices())
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    cancel_reason = serializers.CharField(help_text='Why it was cancelled, else "".')
    rated = serializers.BooleanField()
    rated_note = serializers.CharField(
        allow_null=True, help_text="Why a rated request was made casual (stable text), else null."
    )
    start_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    tie_breaks = serializers.ListField(child=serializers.CharField())
    max_rounds = serializers.IntegerField(
        allow_null=True,
        help_text="The most rounds a Swiss of these entrants may ask for (entrants - 1; the "
        "event plays them all whenever repeat-free pairings exist), null for other formats.",
    )
    progress = ProgressOutput()
    entries = EntryOutput(many=True)
    standings = StandingOutput(many=True)
    crosstable = CrosstableOutput()


def _engine_ref(entry_version: Any) -> dict[str, Any]:
    return {
        "id": entry_version.pk,
        "engine": entry_version.engine.name,
        "version": entry_version.number,
    }


def tournament_detail_data(
    tournament: Tournament, progress: Progress, table: TournamentTable
) -> dict[str, Any]:
    """The body of ``GET /api/tournaments/{id}/``.

    ``standings``: ordered rows (rank, engine, points, match and game W/D/L, byes and
    forfeits, tie-breaks), ordered by ``tie_breaks`` (the format's ranking, first to last);
    ``crosstable``: ``engines`` in seed order and ``rows[i][j]`` = i's record against j
    (``score``/``opponent_score`` in game points, ``match_points``, ``matches``) or None;
    ``entries``: seed order, with ``status`` (``active``/``withdrawn``), ``withdrawn_at``,
    ``withdrawn_reason`` and ``rating`` (Elo at the start); ``pairings``: each round paired
    so far, its matches (``south`` is engine_a, South in game 1; ``best_of`` 1 for a knockout
    decider), ``byes`` and ``forfeits``; ``bracket``: knockout rounds of ties, else None.
    """
    entries = table.entries
    dt_field = serializers.DateTimeField()

    def name(i: int | None) -> str | None:
        return None if i is None else entries[i].engine_version.engine.name

    return {
        "id": tournament.pk,
        "name": tournament.name,
        "variant": tournament.variant,
        "time_control": tournament.time_control,
        "format": tournament.format,
        "status": tournament.status,
        "cancel_reason": tournament.cancel_reason,
        "rated": tournament.rated,
        "rated_note": tournament.rated_note or None,
        "start_suite": tournament.start_suite,
        "start_at": serializers.DateTimeField().to_representation(tournament.start_at),
        "started_at": tournament.started_at
        and serializers.DateTimeField().to_representation(tournament.started_at),
        "finished_at": tournament.finished_at
        and serializers.DateTimeField().to_representation(tournament.finished_at),
        "rounds": tournament.rounds,
        "max_rounds": table.max_rounds,
        "current_round": tournament.current_round,
        "end_reason": tournament.end_reason,
        "tie_breaks": list(table.ranking),
        "progress": {
            "matches_total": progress.matches_total,
            "matches_done": progress.matches_done,
            "matches_running": progress.matches_running,
            "games_played": progress.games_played,
        },
        "entries": [
            {
                "seed_no": e.seed_no,
                **_engine_ref(e.engine_version),
                "status": e.status,
                "withdrawn_at": e.withdrawn_at and dt_field.to_representation(e.withdrawn_at),
                "withdrawn_reason": e.withdrawn_reason,
                "rating": None if e.rating is None else round(e.rating, 1),
            }
            for e in entries
        ],
        "standings": [
            {
                "rank": row.rank,
                **_engine_ref(entries[row.player].engine_version),
                "points": row.points,
                "matches": row.matches,
                "match_wins": row.match_wins,
                "match_draws": row.match_draws,
                "match_losses": row.match_losses,
                "game_points": row.game_points,
                "games": row.games,
                "game_wins": row.game_wins,
                "game_draws": row.game_draws,
                "game_losses": row.game_losses,
                "sonneborn_berger": row.sonneborn_berger,
                "head_to_head": row.head_to_head,
                "buchholz": row.buchholz,
                "byes": row.byes,
                "forfeit_wins": row.forfeit_wins,
                "forfeit_losses": row.forfeit_losses,
                "status": entries[row.player].status,
            }
            for row in table.standings
        ],
        "pairings": [
            {
                "round": rnd.number,
                "matches": [
                    {
                        "id": m.id,
                        "south": m.engine_a.engine.name,
                        "north": m.engine_b.engine.name,
                        "best_of": m.best_of,
                        "status": m.status,
                        "score": [m.score_a, m.score_b],
                    }
                    for m in rnd.matches
                ],
                "byes": [name(i) for i in rnd.byes],
                "forfeits": [
                    {
                        "winner": u.entry.engine_version.engine.name,
                        "loser": u.opponent and u.opponent.engine_version.engine.name,
                        "match": u.match_id,
                    }
                    for u in rnd.forfeits
                ],
            }
            for rnd in table.rounds
        ],
        "bracket": None
        if table.bracket is None
        else [
            [
                {
                    "high": name(t.high),
                    "low": name(t.low),
                    "winner": name(t.winner),
                    "decided_by": t.decided_by,
                    "match_points": t.match_points,
                    "deciders": list(t.deciders),
                }
                for t in ties
            ]
            for ties in table.bracket
        ],
        "crosstable": {
            "engines": [entries[i].engine_version.engine.name for i in range(len(entries))],
            "rows": [
                [
                    None
                    if cell is None
                    else {
                        "score": cell.score,
                        "opponent_score": cell.opponent_score,
                        "match_points": cell.match_points,
                        "matches": cell.match_ids,
                    }
                    for cell in row
                ]
                for row in table.crosstable
            ],
        },
    }
