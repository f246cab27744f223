"""What the tests/test_provider_errors_<provider>.py files share.

An adapter built the way the registry builds it, in front of its provider's fake; each case
makes the fake answer the create with one documented error (the exact status and body the
provider sends) and checks which of our classes the adapter raises: retry on the route
(`RateLimited`, `ProviderUnavailable`), move to the next route (`AccountRefused`), or fail
the generation (`InvalidInput`, `ContentRejected`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.base import FaultInjector, FaultPlan
from tests.support.harness import test_settings
from tests.support.servers import serve_app
from vidrouter.providers.base import (
    AccountRefused,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderRequest,
)
from vidrouter.providers.registry import factories

# (HTTP status, JSON body, the class we expect, the provider code kept on the error)
Case = tuple[int, object, type[ProviderError], str | None]


def request(model: str, **kw: Any) -> ProviderRequest:
    values: dict[str, Any] = {
        "generation_id": "gen_errors1",
        "model": model,
        "prompt": "a lighthouse at dusk",
        "duration": 5.0,
        "aspect_ratio": "16:9",
    }
    values.update(kw)
    return ProviderRequest(**values)


def _no_pool() -> Executor:
    raise AssertionError("no rendering in an adapter test")


@contextlib.asynccontextmanager
async def adapter_before(
    fake: Any, provider: str, tmp_path: Path, environ: Mapping[str, str]
) -> AsyncIterator[tuple[Provider, str]]:
    """The adapter (and the fake's URL); `{url}` in `environ` values becomes the fake's URL."""
    app = fake.app if isinstance(fake.app, FaultInjector) else fake.app()
    async with serve_app(app) as url:
        env = {name: value.format(url=url) for name, value in environ.items()}
        context = ProviderContext(test_settings(tmp_path, environ=env), tmp_path, _no_pool)
        adapter = factories()[provider].build(context)
        try:
            yield adapter, url
        finally:
            await adapter.aclose()


async def check_cases(
    adapter: Provider, plan: FaultPlan, submitted: ProviderRequest, cases: Sequence[Case]
) -> list[ProviderError]:
    """The error each case made the adapter raise, after checking its class and code."""
    errors = []
    for status, body, expected, provider_code in cases:
        plan.add(status=status, body=body)
        before = len(plan.requests)
        with pytest.raises(ProviderError) as caught:
            await adapter.submit(submitted)
        plan.clear()
        error = caught.value
        case = f"{status} {body}: got {type(error).__name__} {error.message}"
        assert len(plan.requests) == before + 1, case  # one create; the engine decides the rest
        assert isinstance(error, expected), case
        assert error.provider_code == provider_code, case
        assert error.status_code == status, case
        if expected is AccountRefused:
            # Never retried on this route, and the client reads provider_unavailable.
            assert not error.is_retryable and error.code == "provider_unavailable", case
        errors.append(error)
    return errors
