"""What every command needs: the settings, with the command line's overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from vidrouter.observability.logs import LogFormat
from vidrouter.observability.logs import configure_logging as observability_logging
from vidrouter.settings import Settings, load_settings


def settings_from(ctx: typer.Context, **overrides: Any) -> Settings:
    data_dir: Path | None = (ctx.obj or {}).get("data_dir")
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    return load_settings(**{k: v for k, v in overrides.items() if v is not None})


def configure_logging(level: str, log_format: LogFormat = "text") -> None:
    observability_logging(level, log_format)
