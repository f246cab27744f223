"""What the migrations of the tables of leased work (store/leases.py) create alike: the
columns that lease a row, the partial index work is found through, and on PostgreSQL the
trigger that wakes idle workers when a row falls due.

Part of the history: each migration that calls a part creates what the part makes, so a
part never changes once a migration calls it; a new shape is a new part."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from vidrouter.store.types import UTCDateTime

# Rows still waiting: terminal rows have no next_attempt_at.
WAITING = sa.text("next_attempt_at IS NOT NULL")


def lease_columns() -> list[sa.Column[Any]]:
    """When the row is due next, and which process holds it until when."""
    return [
        sa.Column("next_attempt_at", UTCDateTime(), nullable=True),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", UTCDateTime(), nullable=True),
    ]


def create_due_index(table: str) -> None:
    op.create_index(
        f"ix_{table}_due",
        table,
        ["next_attempt_at"],
        sqlite_where=WAITING,
        postgresql_where=WAITING,
    )


def create_due_trigger(table: str) -> None:
    """PostgreSQL only: a row due now and not leased (a create, a failover, a lease given
    back) notifies `vidrouter_work` through `vidrouter_notify_work()` (migration 0005).
    "Now" takes in the next 200 ms: the engine's own short retries."""
    op.execute(
        f"""
        CREATE TRIGGER {table}_due_notify
        AFTER INSERT OR UPDATE OF next_attempt_at, lease_owner ON {table}
        FOR EACH ROW
        WHEN (NEW.next_attempt_at IS NOT NULL AND NEW.lease_owner IS NULL
              AND NEW.next_attempt_at <= (now() AT TIME ZONE 'UTC') + interval '200 milliseconds')
        EXECUTE FUNCTION vidrouter_notify_work()
        """
    )


def drop_due_trigger(table: str) -> None:
    op.execute(f"DROP TRIGGER IF EXISTS {table}_due_notify ON {table}")
