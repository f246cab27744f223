"""What the per-provider test files share: their fake served on a port, settings holding the
provider's environment, and the limits our API checks before any provider is called."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from starlette.types import ASGIApp

from tests.support.harness import Harness, test_settings
from tests.support.servers import serve_app
from vidrouter.settings import Settings
from vidrouter.store.keys import NewKey

F = TypeVar("F")


def fake_fixture(make: Callable[[], F], app: Callable[[F], ASGIApp] | None = None) -> Any:
    """A fixture `fake`: a fresh fake from `make`, served, as `(fake, its URL)`; `app` takes
    the fake's ASGI app (default: its `app` attribute)."""

    @pytest.fixture
    async def fake() -> AsyncIterator[tuple[F, str]]:
        made = make()
        async with serve_app(app(made) if app else made.app) as url:  # type: ignore[attr-defined]
            yield made, url

    return fake


def keyed_settings(
    tmp_path: Path, environ: dict[str, str], key_env: str, key: str | None, **overrides: Any
) -> Settings:
    """Settings with the provider's `environ`, and its credential `key` in `key_env` unless
    it is None."""
    if key is not None:
        environ = {**environ, key_env: key}
    return test_settings(tmp_path / "data", environ=environ, **overrides)


async def assert_limits_refused(
    app: Harness, key: NewKey, model: str, cases: Iterable[tuple[dict[str, Any], str]]
) -> None:
    """Each case's fields on a create of `model` are a 400 with its code, naming the duration
    or the aspect ratio as the param."""
    for extra, code in cases:
        response = await app.create(key, model=model, prompt="p", **extra)
        assert response.status_code == 400, (extra, response.text)
        error = response.json()["error"]
        assert error["code"] == code, extra
        assert error["param"] == ("duration" if code.startswith("duration") else "aspect_ratio")
