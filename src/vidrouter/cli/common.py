"""What every command needs: the settings, with the command line's overrides."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import typer

from vidrouter.settings import Settings, load_settings


def settings_from(ctx: typer.Context, **overrides: Any) -> Settings:
    data_dir: Path | None = (ctx.obj or {}).get("data_dir")
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    return load_settings(**{k: v for k, v in overrides.items() if v is not None})


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
