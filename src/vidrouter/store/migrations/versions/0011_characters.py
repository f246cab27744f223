"""Characters: a clip an account uploaded (OpenAI's `POST /v1/videos/characters`), named
in creates as a reference. Its video and a frame of it are blobs; the row says where.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.types import UTCDateTime

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "characters",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(64), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("video_key", sa.String(200), nullable=False),
        sa.Column("image_key", sa.String(200), nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_characters_account", "characters", ["account_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_characters_account", "characters")
    op.drop_table("characters")
