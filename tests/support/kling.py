"""What the Kling tests share: the fake served (its requests timed), our app wired to it, the adapter on its own."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from tests.fakes.kling import KlingFake
from tests.support import harness
from tests.support.images import image_host
from tests.support.servers import serve_app
from vidrouter.providers.base import (
    ProviderRequest,
)
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.kling import KlingProvider


class Timed:
    """ASGI wrapper recording when each request arrived (faults included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.log: list[tuple[float, str, str]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.log.append((time.monotonic(), scope["method"], scope["path"]))
        await self.app(scope, receive, send)


@contextlib.asynccontextmanager
async def frame_url(data: bytes) -> AsyncIterator[str]:
    async with image_host(data) as url:
        yield f"{url}/frame.png"


@contextlib.asynccontextmanager
async def service(
    tmp_path: Path,
    fake: KlingFake,
    *,
    scale: float = 0.005,
    overrides: dict[str, Any] | None = None,
    **environ: str,
) -> AsyncIterator[tuple[harness.Harness, Timed]]:
    timed = Timed(fake.app)
    async with serve_app(timed) as url:
        env = {
            "KLING_ACCESS_KEY": fake.access_key,
            "KLING_SECRET_KEY": fake.secret_key,
            "VIDROUTER_KLING_BASE_URL": url,
            **environ,
        }
        # A short circuit-breaker cooldown: fault bursts against one route would otherwise
        # park the generation for the real 30 s (the cooldown is not scaled).
        values: dict[str, Any] = {"circuit_cooldown_seconds": 0.2, **(overrides or {})}
        settings = harness.test_settings(
            tmp_path / "data", environ=env, provider_delay_scale=scale, **values
        )
        async with harness.running(settings) as app:
            yield app, timed


# The options the engine hands Kling's routes: the shipped catalog's (catalog/kling.toml).
ROUTE_OPTIONS = AdapterConfig("").route_options("kling")


def request(**kw: Any) -> ProviderRequest:
    values: dict[str, Any] = {
        "generation_id": "gen_test1",
        "model": "kling-v2-5-turbo",
        "prompt": "a lighthouse at dusk",
        "duration": 5.0,
        "aspect_ratio": "16:9",
    }
    values.update(kw)
    values.setdefault("options", ROUTE_OPTIONS[values["model"]])
    return ProviderRequest(**values)


@contextlib.asynccontextmanager
async def adapter_for(fake: KlingFake) -> AsyncIterator[KlingProvider]:
    async with serve_app(fake.app) as url:
        provider = KlingProvider(
            AdapterConfig(
                url, {"KLING_ACCESS_KEY": fake.access_key, "KLING_SECRET_KEY": fake.secret_key}.get
            )
        )
        try:
            yield provider
        finally:
            await provider.aclose()
