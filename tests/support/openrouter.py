"""What the OpenRouter tests share: the models it routes, settings pointing at the fake, an
adapter context."""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.support.harness import test_settings
from vidrouter.providers.base import (
    ProviderContext,
)
from vidrouter.settings import Settings

KEY = "test-key"
ROUTED = {
    "veo-3.1",
    "veo-3.1-fast",
    "kling-v3",
    "hailuo-2.3",
    "seedance-2",
    "seedance-2-fast",
    "seedance-2-mini",
    "seedance-1.5-pro",
    "wan-2.7",
    "wan-2.6",
    "gen4.5",
    "grok-imagine-video",  # xAI
}


def settings_for(
    tmp_path: Path,
    url: str,
    *,
    key: str | None = KEY,
    scale: float = 0.01,
    environ: dict[str, str] | None = None,
    public_url: str | None = "https://videos.example.com",
    **overrides: Any,
) -> Settings:
    env = {"VIDROUTER_OPENROUTER_BASE_URL": url + "/api", **(environ or {})}
    if key is not None:
        env["OPENROUTER_API_KEY"] = key
    return test_settings(
        tmp_path / "data",
        environ=env,
        provider_delay_scale=scale,
        public_url=public_url,
        **overrides,
    )


def context(settings: Settings, tmp_path: Path) -> ProviderContext:
    def pool() -> Executor:
        return ThreadPoolExecutor(1)

    return ProviderContext(settings, tmp_path / "work", pool)
