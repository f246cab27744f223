"""`vidrouter accounts show | set-budget`: an account's spend limit and its spend, on the same
data dir as `serve`. A key's own budget is `vidrouter keys set-limits --budget-usd`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Literal, NoReturn, TypeVar

import typer
from rich.console import Console

from vidrouter.cli.common import settings_from
from vidrouter.domain.clock import isoformat, utcnow
from vidrouter.domain.money import check_budget, usd
from vidrouter.settings import Settings
from vidrouter.store.budgets import Budget, BudgetStore, Period
from vidrouter.store.database import Database
from vidrouter.store.keys import ApiKey, KeyStore
from vidrouter.usecases.budgets import period_end, period_start

T = TypeVar("T")

app = typer.Typer(help="Show accounts; set their spend limits.", no_args_is_help=True)
console = Console()

AccountId = Annotated[str, typer.Argument(help="The account's id (acct_...).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _budget(value: float | None) -> float | None:
    try:
        return None if value is None else check_budget(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


BudgetUsd = Annotated[
    float | None,
    typer.Option(
        "--budget-usd",
        callback=_budget,
        help="The spend limit in USD, kept to 6 decimals (0: nothing may be spent).",
    ),
]
BudgetPeriod = Annotated[
    Literal["day", "month", "total"],
    typer.Option(
        "--budget-period",
        help="day or month (UTC; the limit applies anew each one), or total (all time).",
    ),
]
ClearBudget = Annotated[bool, typer.Option("--clear-budget", help="Remove the spend limit.")]


async def with_stores(
    settings: Settings, action: Callable[[KeyStore, BudgetStore], Awaitable[T]]
) -> T:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.resolved_database_url, pool_size=2)
    try:
        await db.migrate()
        return await action(KeyStore(db), BudgetStore(db))
    finally:
        await db.close()


def budget_from(
    budget_usd: float | None, period: Period, clear: bool, *, what: str
) -> Budget | None:
    """The budget the flags ask for; None to remove it. Exits 2 on a contradiction."""
    if clear and budget_usd is not None:
        raise typer.BadParameter("give either --budget-usd or --clear-budget, not both")
    if not clear and budget_usd is None:
        raise typer.BadParameter(f"give --budget-usd (or --clear-budget) to change {what}")
    return None if budget_usd is None else Budget(budget_usd, period)


async def budget_json(
    budgets: BudgetStore, account_id: str, budget: Budget | None, *, key_id: str | None = None
) -> dict[str, object] | None:
    """A budget with its spend and remainder in the current period."""
    if budget is None:
        return None
    now = utcnow()
    spent = await budgets.spend(account_id, key_id=key_id, since=period_start(budget.period, now))
    return {
        "limit_usd": budget.limit_usd,
        "period": budget.period,
        "spent_usd": spent,
        "remaining_usd": round(max(0.0, budget.limit_usd - spent), 6),
        "resets_at": isoformat(period_end(budget.period, now)),
    }


@app.command("set-budget")
def set_budget(
    ctx: typer.Context,
    account_id: AccountId,
    budget_usd: BudgetUsd = None,
    budget_period: BudgetPeriod = "month",
    clear_budget: ClearBudget = False,
    as_json: AsJson = False,
) -> None:
    """Set an account's spend limit: creates that would pass it get 402 budget_exceeded.

    Spend is the cost of finished generations plus the estimated cost of unfinished ones,
    over every key of the account, deleted videos included. Running servers apply the
    change to the next create at once (the response header within their key cache time).
    """
    budget = budget_from(budget_usd, budget_period, clear_budget, what="the account's budget")
    settings = settings_from(ctx)

    async def change(_: KeyStore, budgets: BudgetStore) -> dict[str, object] | None:
        if not await budgets.set_account_budget(account_id, budget):
            return None
        return await _account_json(budgets, account_id, [])

    out = asyncio.run(with_stores(settings, change))
    if out is None:
        _no_account(account_id)
    _print(out, as_json)


@app.command()
def show(ctx: typer.Context, account_id: AccountId, as_json: AsJson = False) -> None:
    """An account: its budget and spend, and its keys' budgets and spend."""
    settings = settings_from(ctx)

    async def read(keys: KeyStore, budgets: BudgetStore) -> dict[str, object] | None:
        mine = [k for k in await keys.list() if k.account_id == account_id]
        return await _account_json(budgets, account_id, mine)

    out = asyncio.run(with_stores(settings, read))
    if out is None:
        _no_account(account_id)
    _print(out, as_json)


async def _account_json(
    budgets: BudgetStore, account_id: str, keys: list[ApiKey]
) -> dict[str, object] | None:
    account = await budgets.account(account_id)
    if account is None:
        return None
    return {
        "id": account.id,
        "name": account.name,
        "created_at": isoformat(account.created_at),
        "budget": await budget_json(budgets, account.id, account.budget),
        "spent_total_usd": await budgets.spend(account.id),
        "keys": [
            {
                "id": k.id,
                "name": k.name,
                "revoked_at": isoformat(k.revoked_at),
                "budget": await budget_json(budgets, account.id, k.budget, key_id=k.id),
            }
            for k in keys
        ],
    }


def budget_text(budget: object) -> str:
    if not isinstance(budget, dict):
        return "no budget"
    resets = f", resets {budget['resets_at']}" if budget["resets_at"] else ""
    period = "in total" if budget["period"] == "total" else f"per UTC {budget['period']}"
    return (
        f"{usd(budget['limit_usd'])} {period}: {usd(budget['spent_usd'])} spent, "
        f"{usd(budget['remaining_usd'])} left{resets}"
    )


def _print(out: dict[str, object], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(out))
        return
    console.print(f"[bold]account[/bold] {out['id']} ({out['name']})")
    console.print(f"  budget: {budget_text(out['budget'])}")
    spent = out["spent_total_usd"]
    assert isinstance(spent, float | int)
    console.print(f"  spent in total: {usd(spent)}")
    keys = out["keys"]
    assert isinstance(keys, list)
    for k in keys:
        console.print(f"  key {k['id']} ({k['name']}): {budget_text(k['budget'])}")


def _no_account(account_id: str) -> NoReturn:
    console.print(f"[red]no account with id {account_id}[/red]")
    raise typer.Exit(1)
