"""What the Wan tests share: settings pointing at the fake DashScope, and a create awaited to its end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.harness import Harness, running, test_settings
from vidrouter.settings import Settings

KEY = "test-key"


def wan_settings(
    tmp_path: Path, url: str, *, key: str | None = KEY, scale: float = 0.005, **overrides: Any
) -> Settings:
    environ = {"VIDROUTER_WAN_BASE_URL": url}
    if key is not None:
        environ["DASHSCOPE_API_KEY"] = key
    return test_settings(
        tmp_path / "data", environ=environ, provider_delay_scale=scale, **overrides
    )


async def generate(settings: Settings, timeout: float = 20.0, **body: Any) -> dict[str, Any]:
    async with running(settings) as app:
        return await create_and_wait(app, timeout=timeout, **body)


async def create_and_wait(app: Harness, timeout: float = 20.0, **body: Any) -> dict[str, Any]:
    key = await app.new_key()
    created = await app.create(key, **body)
    assert created.status_code == 202, created.text
    return await app.wait_for(key, created.json()["id"], timeout=timeout)
