"""Scale-out: wake-up notifications on PostgreSQL, and route slots (exact caps).

- Triggers `NOTIFY vidrouter_work` when a generation or a webhook delivery becomes due now
  and is not leased (a create, a failover, a callback, a lease given back): idle workers on
  every node wake at once instead of at their next idle poll. Notifications are sent at
  commit, so a woken worker always finds the row.
- `route_slots`: a submit reserved on a route with a `max_concurrent` cap, until its
  outcome is saved (see store/route_slots.py).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.migrations import parts
from vidrouter.store.types import UTCDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

CHANNEL = "vidrouter_work"


def upgrade() -> None:
    op.create_table(
        "route_slots",
        sa.Column("generation_id", sa.String(64), primary_key=True),
        sa.Column("route", sa.String(300), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_route_slots_route", "route_slots", ["route"])
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        f"""
        CREATE OR REPLACE FUNCTION vidrouter_notify_work() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify('{CHANNEL}', TG_TABLE_NAME);
            RETURN NULL;
        END
        $$ LANGUAGE plpgsql
        """
    )
    for table in ("generations", "webhook_deliveries"):
        parts.create_due_trigger(table)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in ("generations", "webhook_deliveries"):
            parts.drop_due_trigger(table)
        op.execute("DROP FUNCTION IF EXISTS vidrouter_notify_work()")
    op.drop_index("ix_route_slots_route", table_name="route_slots")
    op.drop_table("route_slots")
