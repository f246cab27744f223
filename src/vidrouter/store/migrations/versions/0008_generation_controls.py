"""Controls: what a generation asked beyond the seed's fields, its model's
defaults filled in (domain/controls.py), as JSON; and its resolution in a column of its
own, so that usage can be grouped by it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from vidrouter.store.types import JSONText

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("generations") as batch:
        batch.add_column(sa.Column("controls", JSONText(), nullable=True))
        batch.add_column(sa.Column("resolution", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("generations") as batch:
        batch.drop_column("resolution")
        batch.drop_column("controls")
