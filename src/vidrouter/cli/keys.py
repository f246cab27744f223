"""`vidrouter keys create | list | revoke`: API keys, on the same data dir as `serve`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from vidrouter.cli.common import settings_from
from vidrouter.domain.clock import isoformat
from vidrouter.settings import Settings
from vidrouter.store.database import Database
from vidrouter.store.keys import ApiKey, KeyStore, NewKey

T = TypeVar("T")

app = typer.Typer(help="Create, list and revoke API keys.", no_args_is_help=True)
console = Console()


async def _with_keys(settings: Settings, action: Callable[[KeyStore], Awaitable[T]]) -> T:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.resolved_database_url, pool_size=2)
    try:
        await db.migrate()
        return await action(KeyStore(db))
    finally:
        await db.close()


def key_json(key: ApiKey) -> dict[str, object]:
    return {
        "id": key.id,
        "name": key.name,
        "account_id": key.account_id,
        "prefix": key.prefix,
        "created_at": isoformat(key.created_at),
        "revoked_at": isoformat(key.revoked_at),
    }


@app.command()
def create(
    ctx: typer.Context,
    name: Annotated[str, typer.Option(help="A name to recognise the key by.")],
    account: Annotated[
        str | None, typer.Option(help="Account id to add the key to (default: a new account).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Create a key. The key and its webhook secret are shown once, now."""
    settings = settings_from(ctx)
    new: NewKey = asyncio.run(_with_keys(settings, lambda ks: ks.create(name, account_id=account)))
    if as_json:
        out = key_json(new.key) | {"key": new.plaintext, "webhook_secret": new.key.webhook_secret}
        typer.echo(json.dumps(out))
        return
    console.print(
        f"[bold]API key[/bold] {new.key.id} ({new.key.name}), account {new.key.account_id}"
    )
    console.print(f"  key:            [green]{new.plaintext}[/green]")
    console.print(f"  webhook secret: [green]{new.key.webhook_secret}[/green]")
    console.print("Both are shown only now: store them somewhere safe.")


@app.command("list")
def list_keys(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """List keys (never their secrets)."""
    settings = settings_from(ctx)
    keys = asyncio.run(_with_keys(settings, lambda ks: ks.list()))
    if as_json:
        for key in keys:
            typer.echo(json.dumps(key_json(key)))
        return
    table = Table("id", "name", "account", "prefix", "created", "revoked")
    for key in keys:
        table.add_row(
            key.id,
            key.name,
            key.account_id,
            key.prefix + "…",
            isoformat(key.created_at) or "",
            isoformat(key.revoked_at) or "",
        )
    console.print(table)


@app.command()
def revoke(
    ctx: typer.Context, key_id: Annotated[str, typer.Argument(help="The key's id.")]
) -> None:
    """Revoke a key: requests with it are refused from now on."""
    settings = settings_from(ctx)
    done = asyncio.run(_with_keys(settings, lambda ks: ks.revoke(key_id)))
    if not done:
        console.print(f"[red]no active key with id {key_id}[/red]")
        raise typer.Exit(1)
    console.print(f"revoked {key_id}")
