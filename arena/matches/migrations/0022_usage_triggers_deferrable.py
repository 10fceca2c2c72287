"""The fair share's rollup triggers (migration 0020) become deferrable on PostgreSQL (issue 29).

The same function, the same rows and conditions, and by default the same moment (``INITIALLY
IMMEDIATE``: at the statement that ends the match). A constraint trigger can be deferred by the
transaction that ends the match (``SET CONSTRAINTS ... DEFERRED``, ``usage.usage_at_commit``):
recording a result does so, and its add to the account's minute and total then runs at its
COMMIT. Those rows are one per account, shared by every slot ending a match of that account:
taken at the UPDATE, they stayed locked through the games' insert, the subscribers and the
round trips to the client until the commit, and the other slots' records of the account queued
behind them (the lock waits of the dispatch harness). SQLite serialises writers: unchanged.
"""

from django.db import migrations

_ENDED = "('finished', 'aborted')"
_WHEN = f"NEW.status IN {_ENDED} AND NEW.started_at IS NOT NULL AND NEW.finished_at IS NOT NULL"
_DROP = [
    "DROP TRIGGER IF EXISTS matches_usage_on_end ON matches_match",
    "DROP TRIGGER IF EXISTS matches_usage_on_insert ON matches_match",
]


def _triggers(kind: str) -> list[str]:
    deferrable = " DEFERRABLE INITIALLY IMMEDIATE" if kind == "CONSTRAINT TRIGGER" else ""
    return [
        *_DROP,
        f"CREATE {kind} matches_usage_on_end AFTER UPDATE OF status ON matches_match"
        f"{deferrable} FOR EACH ROW WHEN ({_WHEN} AND OLD.status NOT IN {_ENDED})"
        " EXECUTE FUNCTION matches_usage_add()",
        f"CREATE {kind} matches_usage_on_insert AFTER INSERT ON matches_match{deferrable}"
        f" FOR EACH ROW WHEN ({_WHEN}) EXECUTE FUNCTION matches_usage_add()",
    ]


def deferrable(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        for sql in _triggers("CONSTRAINT TRIGGER"):
            schema_editor.execute(sql)


def immediate(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        for sql in _triggers("TRIGGER"):
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("matches", "0021_live_events_appended")]

    operations = [migrations.RunPython(deferrable, immediate)]
