"""What the MiniMax tests share: our app wired to the fake, the adapter on its own, a request."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tests.fakes.minimax import MinimaxFake
from tests.support.harness import Harness, running, test_settings
from tests.support.servers import serve_app
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.minimax import MinimaxProvider

WAIT = 20.0


@contextlib.asynccontextmanager
async def service(
    tmp_path: Path, fake: MinimaxFake, *, key: str = "test-key", scale: float = 0.01
) -> AsyncIterator[Harness]:
    async with serve_app(fake.app()) as url:
        environ = {"MINIMAX_API_KEY": key, "VIDROUTER_MINIMAX_BASE_URL": url}
        settings = test_settings(tmp_path / "data", environ=environ, provider_delay_scale=scale)
        async with running(settings) as app:
            yield app


@contextlib.asynccontextmanager
async def adapter(fake: MinimaxFake, key: str = "test-key") -> AsyncIterator[MinimaxProvider]:
    async with serve_app(fake.app()) as url:
        provider = MinimaxProvider(
            AdapterConfig(url, {"MINIMAX_API_KEY": key}.get, allow_private_images=True)
        )
        try:
            yield provider
        finally:
            await provider.aclose()


HAILUO = base.ProviderRequest(
    "gen_test", "MiniMax-Hailuo-2.3", "a red fox in the snow", 6.0, "16:9",
    options={"resolution": "768P"},
)  # fmt: skip


def request(**overrides: Any) -> base.ProviderRequest:
    return dataclasses.replace(HAILUO, **overrides)
