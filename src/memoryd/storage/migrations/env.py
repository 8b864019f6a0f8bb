"""Alembic environment: runs memoryd's migrations on the connection it is handed."""

from __future__ import annotations

from alembic import context

from memoryd.storage.tables import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - memoryd always passes its connection
    raise RuntimeError("run memoryd migrations with `memoryd db upgrade`")

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
