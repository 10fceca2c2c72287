"""Query filters of ``GET /api/matches/`` (django-filter): engine name (either side),
tournament id, variant, status, rated."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet

from arena.matches.models import VARIANT_CHOICES, Match


class MatchFilter(django_filters.FilterSet):
    engine = django_filters.CharFilter(method="filter_engine", label="engine name (either side)")
    tournament = django_filters.NumberFilter(field_name="tournament_id")
    variant = django_filters.ChoiceFilter(choices=VARIANT_CHOICES)
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    rated = django_filters.BooleanFilter()

    class Meta:
        model = Match
        fields = ["engine", "tournament", "variant", "status", "rated"]

    def filter_engine(self, queryset: QuerySet[Match], name: str, value: str) -> QuerySet[Match]:
        return queryset.filter(Q(engine_a__engine__name=value) | Q(engine_b__engine__name=value))
