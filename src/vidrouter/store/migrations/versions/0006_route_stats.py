"""Route stats (one row per job a route finished), the lost jobs a breaker counts, and the
routing policy of a generation.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.types import JSONText, UTCDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "route_outcomes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("route", sa.String(300), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("seconds", sa.Float, nullable=True),
        sa.Column("finished_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_route_outcomes_route_finished", "route_outcomes", ["route", "finished_at"])
    with op.batch_alter_table("generations") as batch:
        batch.add_column(sa.Column("routing", JSONText(), nullable=True))
    with op.batch_alter_table("route_health") as batch:
        batch.add_column(
            sa.Column("job_failures", sa.Integer, nullable=False, server_default=sa.text("0"))
        )


def downgrade() -> None:
    with op.batch_alter_table("route_health") as batch:
        batch.drop_column("job_failures")
    with op.batch_alter_table("generations") as batch:
        batch.drop_column("routing")
    op.drop_index("ix_route_outcomes_route_finished", table_name="route_outcomes")
    op.drop_table("route_outcomes")
