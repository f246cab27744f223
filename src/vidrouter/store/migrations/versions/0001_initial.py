"""Initial schema: accounts, keys, generations, webhook deliveries, service values.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.migrations import parts
from vidrouter.store.types import JSONText, UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(64), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("key_prefix", sa.String(16), nullable=False),
        sa.Column("webhook_secret", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("revoked_at", UTCDateTime(), nullable=True),
    )
    op.create_table(
        "generations",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(64), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("api_key_id", sa.String(64), nullable=True),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("duration", sa.Float, nullable=False),
        sa.Column("aspect_ratio", sa.String(16), nullable=False),
        sa.Column("image_url", sa.Text, nullable=True),
        sa.Column("webhook_url", sa.Text, nullable=True),
        sa.Column("metadata", JSONText, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("step", sa.String(16), nullable=False),
        sa.Column("progress", sa.Integer, nullable=True),
        sa.Column("route", sa.String(300), nullable=True),
        sa.Column("provider_job_id", sa.String(300), nullable=True),
        sa.Column("provider_job_data", JSONText, nullable=False),
        sa.Column("video_key", sa.String(300), nullable=True),
        sa.Column("video_duration", sa.Float, nullable=True),
        sa.Column("video_width", sa.Integer, nullable=True),
        sa.Column("video_height", sa.Integer, nullable=True),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error_message", sa.Text, nullable=True),
        sa.Column("provider_error_code", sa.String(200), nullable=True),
        sa.Column("provider_request_id", sa.String(200), nullable=True),
        sa.Column("billed_seconds", sa.Float, nullable=True),
        sa.Column("cost_amount", sa.Float, nullable=True),
        sa.Column("cost_currency", sa.String(8), nullable=True),
        sa.Column("tries", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("attempts", JSONText, nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=True),
        sa.Column("completed_at", UTCDateTime(), nullable=True),
        sa.Column("next_attempt_at", UTCDateTime(), nullable=True),
        sa.Column("deadline_at", UTCDateTime(), nullable=True),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", UTCDateTime(), nullable=True),
    )
    parts.create_due_index("generations")
    op.create_index(
        "ix_generations_account_created", "generations", ["account_id", "created_at", "id"]
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("generation_id", sa.String(64), sa.ForeignKey("generations.id"), nullable=False),
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("api_key_id", sa.String(64), nullable=True),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("tries", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("last_status_code", sa.Integer, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("delivered_at", UTCDateTime(), nullable=True),
        *parts.lease_columns(),
    )
    parts.create_due_index("webhook_deliveries")
    op.create_index("ix_webhook_deliveries_generation", "webhook_deliveries", ["generation_id"])
    op.create_table(
        "service_values",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("service_values")
    op.drop_table("webhook_deliveries")
    op.drop_table("generations")
    op.drop_table("api_keys")
    op.drop_table("accounts")
