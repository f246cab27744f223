"""What every command needs: the settings, with the command line's overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from pydantic import ValidationError

from vidrouter.observability.logs import LogFormat
from vidrouter.observability.logs import configure_logging as observability_logging
from vidrouter.settings import Settings, load_settings


def settings_from(ctx: typer.Context, **overrides: Any) -> Settings:
    """The settings, or exit 2 with what is wrong with them (one line each, no traceback)."""
    data_dir: Path | None = (ctx.obj or {}).get("data_dir")
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    try:
        return load_settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            where = "_".join(str(part) for part in error["loc"]).upper()
            name = f"VIDROUTER_{where}: " if where else ""
            message = str(error["msg"]).removeprefix("Value error, ")
            typer.echo(f"Invalid settings: {name}{message}", err=True)
        raise typer.Exit(2) from None


def configure_logging(level: str, log_format: LogFormat = "text") -> None:
    observability_logging(level, log_format)
