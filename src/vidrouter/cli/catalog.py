"""`vidrouter catalog list | check`: the model catalog, and how it compares with what the
hosts publish now (prices, durations, aspect ratios)."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated

import httpx
import typer
from rich.console import Console
from rich.table import Table

from vidrouter.cli.common import settings_from
from vidrouter.domain.catalog import ModelSpec, Route, load_catalog
from vidrouter.domain.catalog_diff import Difference, PublishedLimits, compare
from vidrouter.providers.base import ProviderContext, ProviderError
from vidrouter.providers.registry import Providers, factories
from vidrouter.settings import Settings

app = typer.Typer(help="Inspect the model catalog and check it against the hosts.")
console = Console()


@app.command("list")
def list_models(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """Every model and route, and whether its credentials are set here."""
    settings = settings_from(ctx)
    catalog = load_catalog(settings.catalog)
    providers = _providers(settings)
    table = Table("model", "route", "USD/s", "usable", "retired")
    for model in catalog.models:
        for route in model.routes or ():
            usable = providers.usable(route)
            if as_json:
                typer.echo(
                    json.dumps(
                        {
                            "model": model.id,
                            "route": route.key,
                            "price_per_second": route.price_per_second,
                            "usable": usable,
                        }
                    )
                )
            table.add_row(
                model.id,
                route.key,
                f"{route.price_per_second:g}",
                "yes" if usable else "no",
                str(model.retired_on or ""),
            )
    if not as_json:
        console.print(table)


@app.command()
def check(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """Compare our routes with the catalogs hosts publish (exit 1 on any difference)."""
    settings = settings_from(ctx)
    differences, skipped = asyncio.run(_check(settings))
    for name, why in skipped:
        console.print(f"[yellow]skipped {name}: {why}[/yellow]", highlight=False)
    if as_json:
        for d in differences:
            typer.echo(json.dumps(d.__dict__))
    elif differences:
        table = Table("model", "route", "field", "ours", "theirs")
        for d in differences:
            table.add_row(d.model, d.route, d.field, d.ours, d.theirs)
        console.print(table)
    else:
        console.print("no differences")
    if differences:
        raise typer.Exit(1)


async def _check(settings: Settings) -> tuple[list[Difference], list[tuple[str, str]]]:
    catalog = load_catalog(settings.catalog)
    providers = _providers(settings)
    context = _context(settings)
    differences: list[Difference] = []
    skipped: list[tuple[str, str]] = []
    for name, factory in sorted(factories().items()):
        if factory.published is None:
            continue
        routes = _routes_of(catalog.models, name)
        if not routes:
            continue
        if not providers.configured(name):
            skipped.append((name, "credentials not set"))
            continue
        wanted = sorted({route.provider_model for _, route in routes})
        try:
            published = await factory.published(context, wanted)
        except (ProviderError, httpx.HTTPError) as exc:
            skipped.append((name, f"could not read its catalog: {exc}"))
            continue
        limits = {
            p.provider_model: PublishedLimits(
                p.price_per_second, p.durations, p.max_duration, p.aspect_ratios
            )
            for p in published
        }
        differences += compare(routes, limits)
    return differences, skipped


def _routes_of(models: tuple[ModelSpec, ...], provider: str) -> list[tuple[ModelSpec, Route]]:
    return [
        (model, route)
        for model in models
        if model.retired_on is None
        for route in model.routes
        if route.provider == provider
    ]


def _context(settings: Settings) -> ProviderContext:
    return ProviderContext(
        settings, settings.data_dir / "work", lambda: ThreadPoolExecutor(max_workers=1)
    )


def _providers(settings: Settings) -> Providers:
    return Providers(_context(settings))
