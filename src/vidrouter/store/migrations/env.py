"""Alembic environment: runs on the connection that `Database.migrate` hands over."""

from __future__ import annotations

from alembic import context

from vidrouter.store.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through vidrouter (Database.migrate), not the alembic CLI")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
