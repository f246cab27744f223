"""TODO docstring"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.harness import test_settings
from vidrouter.settings import Settings

KEY = "test-key"


def settings_for(tmp_path: Path, url: str, token: str = KEY, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "provider_delay_scale": 0.01,
        "circuit_failure_threshold": 100,
        **overrides,
    }
    environ = {"REPLICATE_API_TOKEN": token, "VIDROUTER_REPLICATE_BASE_URL": url}
    environ.update(values.pop("environ", {}))
    return test_settings(tmp_path / "data", environ=environ, **values)
