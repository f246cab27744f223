"""Key rotation (expiry, previous webhook secret), per-key limits, rate counters, and the
index that counts a key's unfinished generations.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.types import UTCDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("expires_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("previous_webhook_secret", sa.String(200), nullable=True))
        batch.add_column(sa.Column("previous_secret_expires_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("requests_per_minute", sa.Integer, nullable=True))
        batch.add_column(sa.Column("max_concurrent", sa.Integer, nullable=True))
    # Written on every request and worthless after a crash: on PostgreSQL the table skips
    # the write-ahead log (UNLOGGED: several times cheaper per write; emptied by a crash
    # and not replicated, which at worst hands out one fresh minute of budget).
    postgres = op.get_bind().dialect.name == "postgresql"
    op.create_table(
        "rate_counters",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("window_start", sa.BigInteger, nullable=False),
        sa.Column("hits", sa.Integer, nullable=False),
        prefixes=["UNLOGGED"] if postgres else [],
    )
    op.create_index(
        "ix_generations_account_status", "generations", ["account_id", "status", "api_key_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_generations_account_status", table_name="generations")
    op.drop_table("rate_counters")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("max_concurrent")
        batch.drop_column("requests_per_minute")
        batch.drop_column("previous_secret_expires_at")
        batch.drop_column("previous_webhook_secret")
        batch.drop_column("expires_at")
