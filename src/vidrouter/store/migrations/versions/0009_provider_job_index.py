"""An index to find a waiting generation by its provider's job id, for providers whose
webhooks are registered account-wide and name only their own job (PixVerse). Partial: only
rows that still wait (terminal rows have no next_attempt_at).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

from alembic import op

from vidrouter.store.migrations import parts

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_generations_provider_job",
        "generations",
        ["provider_job_id"],
        sqlite_where=parts.WAITING,
        postgresql_where=parts.WAITING,
    )


def downgrade() -> None:
    op.drop_index("ix_generations_provider_job", table_name="generations")
