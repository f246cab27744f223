"""Budgets: a spend limit per key and per account, the estimated cost of a
generation from its creation, and a deleted marker so that a deleted video's spend stays
in the usage history and in the budgets.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.types import UTCDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("accounts", "api_keys"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("budget_usd", sa.Float, nullable=True))
            batch.add_column(sa.Column("budget_period", sa.String(8), nullable=True))
    with op.batch_alter_table("generations") as batch:
        batch.add_column(sa.Column("estimated_cost", sa.Float, nullable=True))
        batch.add_column(sa.Column("deleted_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("generations") as batch:
        batch.drop_column("deleted_at")
        batch.drop_column("estimated_cost")
    for table in ("api_keys", "accounts"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("budget_period")
            batch.drop_column("budget_usd")
