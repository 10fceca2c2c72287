"""Query filters of ``GET /api/matches/`` (django-filter): engine name (either side, any case),
tournament id, variant (id or alias), status, rated.

Bad values are refused, not ignored (``arena.api.filters``): ``?tournament=`` must be an id,
``?rated=`` a boolean (400 ``invalid``), ``?variant=`` a known id or alias (400
``unknown_variant``), ``?status=`` one of the statuses (400 ``invalid``).
"""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet

from arena.api.filters import IdFilter, StrictBooleanFilter, VariantFilter
from arena.matches.models import Match
from engines.selectors import engine_version_ids


class MatchFilter(django_filters.FilterSet):
    engine = django_filters.CharFilter(
        method="filter_engine", label="engine name (either side, any case)"
    )
    tournament = IdFilter(field_name="tournament_id")
    variant = VariantFilter(label="variant id or alias (bao-la-kete, kete, ...)")
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    rated = StrictBooleanFilter()

    class Meta:
        model = Match
        fields = ["engine", "tournament", "variant", "status", "rated"]

    def filter_engine(self, queryset: QuerySet[Match], name: str, value: str) -> QuerySet[Match]:
        # Engine names are one name whatever the case (engines.selectors.engine_by_name). The
        # versions are looked up first (a small table), so the match query filters on the
        # indexed engine_a/engine_b columns instead of joining engines by UPPER(name).
        versions = engine_version_ids(value)
        return queryset.filter(Q(engine_a_id__in=versions) | Q(engine_b_id__in=versions))
