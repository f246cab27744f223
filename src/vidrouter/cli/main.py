"""`vidrouter`: serve, manage API keys, and generate against a running server."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vidrouter.cli import accounts, batch, catalog, characters, generate, keys, lookup, serve

app = typer.Typer(
    help="vidrouter: one HTTP API in front of many AI video generation models.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(keys.app, name="keys")
app.add_typer(catalog.app, name="catalog")
app.add_typer(accounts.app, name="accounts")
app.add_typer(batch.app, name="batch")
app.add_typer(characters.app, name="characters")
app.command("serve")(serve.serve)
app.command("generate")(generate.generate)
app.command("models")(lookup.models)
app.command("status")(lookup.status)


@app.callback()
def _root(
    ctx: typer.Context,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Data directory (env VIDROUTER_DATA_DIR, default ./vidrouter-data)."),
    ] = None,
) -> None:
    ctx.obj = {"data_dir": data_dir}


def main() -> None:
    app()
