"""`vidrouter keys create | list | revoke | rotate | rotate-webhook-secret | set-limits`:
API keys, on the same data dir as `serve`. `set-limits` also sets a key's spend limit
(`--budget-usd`, `--budget-period`); an account's is `vidrouter accounts set-budget`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from vidrouter.cli.accounts import (
    BudgetPeriod,
    BudgetUsd,
    ClearBudget,
    budget_from,
    budget_json,
    budget_text,
    with_stores,
)
from vidrouter.cli.common import settings_from
from vidrouter.domain.clock import isoformat
from vidrouter.domain.money import usd
from vidrouter.settings import Settings
from vidrouter.store.budgets import Budget, BudgetStore
from vidrouter.store.database import Database
from vidrouter.store.keys import ApiKey, KeyStore, NewKey, Rotation

T = TypeVar("T")

app = typer.Typer(
    help="Create, list, revoke and rotate API keys; set their limits.", no_args_is_help=True
)
console = Console()


async def _with_keys(settings: Settings, action: Callable[[KeyStore], Awaitable[T]]) -> T:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.resolved_database_url, pool_size=2)
    try:
        await db.migrate()
        return await action(KeyStore(db))
    finally:
        await db.close()


# What the command line shows of a key, in this order: never its secrets.
_SHOWN = (
    "id",
    "name",
    "account_id",
    "prefix",
    "created_at",
    "revoked_at",
    "expires_at",
    "requests_per_minute",
    "max_concurrent",
    "budget",
    "cache",
)


def key_json(key: ApiKey) -> dict[str, object]:
    return {name: _json_value(getattr(key, name)) for name in _SHOWN}


def _json_value(value: object) -> object:
    if isinstance(value, datetime):
        return isoformat(value)
    if isinstance(value, Budget):
        return {"limit_usd": value.limit_usd, "period": value.period}
    return value


AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
KeyId = Annotated[str, typer.Argument(help="The key's id.")]
Grace = Annotated[
    int,
    typer.Option(min=0, help="How long the old one keeps working, in seconds (0: not at all)."),
]
Rpm = Annotated[
    int | None, typer.Option("--rpm", min=1, help="Requests per minute (default: the service's).")
]
MaxConcurrent = Annotated[
    int | None,
    typer.Option(min=1, help="Unfinished generations at once (default: the service's)."),
]


@app.command()
def create(
    ctx: typer.Context,
    name: Annotated[str, typer.Option(help="A name to recognise the key by.")],
    account: Annotated[
        str | None, typer.Option(help="Account id to add the key to (default: a new account).")
    ] = None,
    rpm: Rpm = None,
    max_concurrent: MaxConcurrent = None,
    as_json: AsJson = False,
) -> None:
    """Create a key. The key and its webhook secret are shown once, now."""
    settings = settings_from(ctx)
    new: NewKey = asyncio.run(
        _with_keys(
            settings,
            lambda ks: ks.create(
                name, account_id=account, requests_per_minute=rpm, max_concurrent=max_concurrent
            ),
        )
    )
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
    table = Table("id", "name", "account", "prefix", "created", "revoked", "expires", "limits")
    for key in keys:
        table.add_row(
            key.id,
            key.name,
            key.account_id,
            key.prefix + "…",
            isoformat(key.created_at) or "",
            isoformat(key.revoked_at) or "",
            isoformat(key.expires_at) or "",
            _limits_text(key),
        )
    console.print(table)


@app.command()
def revoke(ctx: typer.Context, key_id: KeyId) -> None:
    """Revoke a key: requests with it are refused from now on."""
    settings = settings_from(ctx)
    done = asyncio.run(_with_keys(settings, lambda ks: ks.revoke(key_id)))
    if not done:
        console.print(f"[red]no active key with id {key_id}[/red]")
        raise typer.Exit(1)
    console.print(f"revoked {key_id}")


@app.command()
def rotate(
    ctx: typer.Context, key_id: KeyId, grace_seconds: Grace = 86400, as_json: AsJson = False
) -> None:
    """Replace a key; the old one keeps working for the grace period.

    The new key is in the same account, with the same name (plus " (rotated)"), webhook
    secret and limits. It is shown once, now.
    """
    settings = settings_from(ctx)
    grace = timedelta(seconds=grace_seconds)
    done: Rotation | None = asyncio.run(
        _with_keys(settings, lambda ks: ks.rotate(key_id, grace=grace))
    )
    if done is None:
        _no_key(key_id)
    new, old = done.new, done.old
    if as_json:
        out = key_json(new.key) | {
            "key": new.plaintext,
            "webhook_secret": new.key.webhook_secret,
            "rotated_from": old.id,
            "old_key_expires_at": isoformat(old.expires_at),
        }
        typer.echo(json.dumps(out))
        return
    console.print(f"[bold]API key[/bold] {new.key.id} ({new.key.name}) replaces {old.id}")
    console.print(f"  key:            [green]{new.plaintext}[/green]")
    console.print(f"  webhook secret: [green]{new.key.webhook_secret}[/green] (unchanged)")
    console.print(f"{old.id} keeps working until {isoformat(old.expires_at)}.")
    console.print("The key is shown only now: store it somewhere safe.")


@app.command("rotate-webhook-secret")
def rotate_webhook_secret(
    ctx: typer.Context, key_id: KeyId, grace_seconds: Grace = 86400, as_json: AsJson = False
) -> None:
    """Give a key a new webhook secret; the previous one is honoured for the grace period.

    Until the grace period ends every delivery is signed with both secrets, so a receiver
    holding either verifies it, and receivers can switch at any time.
    """
    settings = settings_from(ctx)
    grace = timedelta(seconds=grace_seconds)
    key = asyncio.run(
        _with_keys(settings, lambda ks: ks.rotate_webhook_secret(key_id, grace=grace))
    )
    if key is None:
        _no_key(key_id)
    until = isoformat(key.previous_secret_expires_at)
    if as_json:
        out = {
            "id": key.id,
            "webhook_secret": key.webhook_secret,
            "previous_secret_expires_at": until,
        }
        typer.echo(json.dumps(out))
        return
    console.print(f"new webhook secret of {key.id}: [green]{key.webhook_secret}[/green]")
    if until is not None:
        console.print(f"Deliveries are signed with the previous secret too until {until}.")
    console.print("The secret is shown only now: store it somewhere safe.")


@app.command("set-limits")
def set_limits(
    ctx: typer.Context,
    key_id: KeyId,
    rpm: Rpm = None,
    max_concurrent: MaxConcurrent = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Drop the key's own limits: the defaults apply.")
    ] = False,
    budget_usd: BudgetUsd = None,
    budget_period: BudgetPeriod = "month",
    clear_budget: ClearBudget = False,
    as_json: AsJson = False,
) -> None:
    """Set a key's own rate and concurrency limits, and its spend limit.

    A limit not given keeps its value; --clear drops the rate and concurrency limits (the
    service's defaults apply), --clear-budget the spend limit. A create that would pass the
    key's budget (or its account's) gets 402 budget_exceeded. Running servers apply rate
    limits within their key cache time, a budget to the next create at once.
    """
    rate = rpm is not None or max_concurrent is not None or clear
    spend = budget_usd is not None or clear_budget
    if not rate and not spend:
        raise typer.BadParameter(
            "give --rpm, --max-concurrent, --clear, --budget-usd or --clear-budget"
        )
    budget = budget_from(budget_usd, budget_period, clear_budget, what="") if spend else None
    settings = settings_from(ctx)

    async def change(ks: KeyStore, budgets: BudgetStore) -> tuple[ApiKey, object] | None:
        key = await ks.get(key_id)
        if key is None or key.revoked_at is not None:
            return None
        if rate:
            keep_rpm = None if clear else key.requests_per_minute
            keep_max = None if clear else key.max_concurrent
            await ks.set_limits(
                key_id,
                requests_per_minute=rpm if rpm is not None else keep_rpm,
                max_concurrent=max_concurrent if max_concurrent is not None else keep_max,
            )
        if spend and not await budgets.set_key_budget(key_id, budget):
            return None
        changed = await ks.get(key_id)
        if changed is None:
            return None
        return changed, await budget_json(
            budgets, changed.account_id, changed.budget, key_id=changed.id
        )

    done = asyncio.run(with_stores(settings, change))
    if done is None:
        _no_key(key_id)
    key, budget_now = done
    if as_json:
        typer.echo(json.dumps(key_json(key) | {"budget": budget_now}))
        return
    console.print(f"limits of {key.id}: {_limits_text(key)}; budget: {budget_text(budget_now)}")


class CacheSetting(StrEnum):
    on = "on"
    off = "off"
    default = "default"


@app.command("set-cache")
def set_cache(
    ctx: typer.Context,
    key_id: KeyId,
    setting: Annotated[CacheSetting, typer.Argument(help="on, off, or default (off).")],
) -> None:
    """Turn the cache of identical requests on or off for every create of a key that does
    not say (`"cache": true|false` in a create wins). See docs/api.md, The cache."""
    value = {"on": True, "off": False, "default": None}[setting.value]
    settings = settings_from(ctx)
    key = asyncio.run(_with_keys(settings, lambda ks: ks.set_cache(key_id, value)))
    if key is None:
        _no_key(key_id)
    console.print(f"cache of {key_id}: {setting.value}")


def _limits_text(key: ApiKey) -> str:
    rpm = key.requests_per_minute
    most = key.max_concurrent
    budget = key.budget
    spend = f", {usd(budget.limit_usd)} per {budget.period}" if budget is not None else ""
    return (
        f"{rpm if rpm is not None else 'default'} rpm, "
        f"{most if most is not None else 'default'} concurrent{spend}"
    )


def _no_key(key_id: str) -> NoReturn:
    console.print(f"[red]no active key with id {key_id}[/red]")
    raise typer.Exit(1)
