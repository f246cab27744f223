"""Batches and the cache of identical requests.

`batches` and `batch_lines`: a batch of create bodies (a JSONL file), its lines turned into
generations by leased work; a line's `generation_id` is set in the transaction that inserts
its generation, so each line is created exactly once across crashes. `generations` gains
`batch_id` (the batch that made it), `cache_key` (the hash of what makes two requests the
same) and `cached_from` (the generation whose video a cache hit shares). A webhook delivery
may be a batch's (`batch_id`, no `generation_id`). A key may turn the cache on for every
create it makes (`api_keys.cache`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.migrations import parts
from vidrouter.store.types import JSONText, UTCDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "batches",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(64), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("api_key_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("estimated_total", sa.Float, nullable=False),
        sa.Column("webhook_url", sa.Text, nullable=True),
        sa.Column("metadata", JSONText(), nullable=False),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error_message", sa.Text, nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("completed_at", UTCDateTime(), nullable=True),
        *parts.lease_columns(),
    )
    parts.create_due_index("batches")
    op.create_index("ix_batches_account_created", "batches", ["account_id", "created_at", "id"])
    op.create_table(
        "batch_lines",
        sa.Column("batch_id", sa.String(64), sa.ForeignKey("batches.id"), primary_key=True),
        sa.Column("line", sa.Integer, primary_key=True),
        sa.Column("custom_id", sa.String(200), nullable=False),
        sa.Column("body", JSONText(), nullable=False),
        sa.Column("generation_id", sa.String(64), nullable=True),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error_message", sa.Text, nullable=True),
    )
    if op.get_bind().dialect.name == "postgresql":
        # A batch due now wakes idle workers on every node, as generations do (0005).
        parts.create_due_trigger("batches")
    with op.batch_alter_table("generations") as batch:
        batch.add_column(sa.Column("batch_id", sa.String(64), nullable=True))
        batch.add_column(sa.Column("cache_key", sa.String(64), nullable=True))
        batch.add_column(sa.Column("cached_from", sa.String(64), nullable=True))
    op.create_index("ix_generations_batch", "generations", ["batch_id"])
    op.create_index("ix_generations_cache_key", "generations", ["cache_key", "completed_at"])
    op.create_index("ix_generations_video_key", "generations", ["video_key"])
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.alter_column("generation_id", existing_type=sa.String(64), nullable=True)
        batch.add_column(sa.Column("batch_id", sa.String(64), nullable=True))
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("cache", sa.Boolean, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("cache")
    op.execute("DELETE FROM webhook_deliveries WHERE generation_id IS NULL")
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.drop_column("batch_id")
        batch.alter_column("generation_id", existing_type=sa.String(64), nullable=False)
    op.drop_index("ix_generations_video_key", "generations")
    op.drop_index("ix_generations_cache_key", "generations")
    op.drop_index("ix_generations_batch", "generations")
    with op.batch_alter_table("generations") as batch:
        batch.drop_column("cached_from")
        batch.drop_column("cache_key")
        batch.drop_column("batch_id")
    op.drop_table("batch_lines")
    if op.get_bind().dialect.name == "postgresql":
        parts.drop_due_trigger("batches")
    op.drop_index("ix_batches_account_created", "batches")
    op.drop_index("ix_batches_due", "batches")
    op.drop_table("batches")
