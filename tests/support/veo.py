"""TODO docstring"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.providers import keyed_settings
from vidrouter.settings import Settings

PREDICT = ":predictLongRunning"


def settings_for(
    tmp_path: Path, url: str, *, key: str | None = "test-key", scale: float = 0.01, **kw: Any
) -> Settings:
    environ = {"VIDROUTER_GEMINI_BASE_URL": url}
    return keyed_settings(
        tmp_path, environ, "GEMINI_API_KEY", key, provider_delay_scale=scale, **kw
    )
