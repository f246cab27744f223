"""What the Luma tests share: the key, the create path and settings pointing at the fake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.harness import test_settings
from vidrouter.settings import Settings

KEY = "test-key"
CREATE = "/dream-machine/v1/generations"


def settings_for(tmp_path: Path, url: str, key: str = KEY, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"provider_delay_scale": 0.01, **overrides}
    environ = {"LUMAAI_API_KEY": key, "VIDROUTER_LUMA_BASE_URL": url}
    return test_settings(tmp_path / "data", environ=environ, **values)
