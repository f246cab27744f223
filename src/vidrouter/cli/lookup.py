"""`vidrouter models` and `vidrouter status ID`: what a running server offers and where a
generation is."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Column, Table

from vidrouter.cli.remote import Server, money, out, shown, with_server
from vidrouter.client import Generation


@with_server
def models(server: Server) -> None:
    """The models of a running server, with their limits and prices."""
    listed = server.ask(lambda api: api.models())
    if server.as_json:
        for model in listed:
            typer.echo(model.model_dump_json())
        return
    headers = (
        "provider",
        "type",
        "max s",
        "durations",
        "aspect ratios",
        "resolutions",
        "supports",
        "USD/s",
        "status",
    )
    table = Table(Column("model", no_wrap=True), *headers)
    for m in listed:
        durations = ", ".join(f"{d:g}" for d in m.durations) if m.durations else "any"
        cells = (
            m.id,
            m.provider,
            m.type,
            f"{m.max_duration:g}",
            durations,
            ", ".join(m.aspect_ratios),
            ", ".join(m.resolutions) or "-",
            ", ".join(m.supports) or "-",
            f"{m.pricing.per_second:g}",
            m.status,
        )
        table.add_row(*(shown(cell) for cell in cells))
    out.print(table)


@with_server
def status(
    generation_id: Annotated[str, typer.Argument(help="The generation's id (gen_...).")],
    server: Server,
) -> None:
    """Where a generation is: status, progress, cost, video URL or error."""
    generation = server.ask(lambda api: api.get(generation_id))
    if server.as_json:
        typer.echo(generation.model_dump_json())
        return
    out.print(describe(generation))


def describe(g: Generation) -> Table:
    table = Table(show_header=False, box=None)
    rows = {
        "id": g.id,
        "status": g.status,
        "progress": "-" if g.progress is None else f"{g.progress}%",
        "model": f"{g.model} via {g.route}" if g.route else g.model,
        "video": f"{g.duration:g} s, {g.aspect_ratio}",
        "prompt": g.prompt,
        "cost": money(g.cost.amount, g.cost.currency) if g.cost else "-",
        "created": g.created_at.isoformat(),
        "completed": g.completed_at.isoformat() if g.completed_at else "-",
    }
    if g.error:
        rows["error"] = f"{g.error.code}: {g.error.message}"
    if g.video_url:
        rows["video_url"] = g.video_url
    for name, value in rows.items():
        table.add_row(f"[bold]{name}[/]", shown(value, 10_000))
    return table
