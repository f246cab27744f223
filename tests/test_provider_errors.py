"""Every documented error code of every provider, as its adapter classifies it (issue 17).

For each provider, `tests/provider_errors/<provider>.json` holds the codes its documentation
lists (with the source and date), each as the exact HTTP status and body the provider sends,
and the class we expect: retry on the route (`RateLimited`, `ProviderUnavailable`,
`ProviderTimeout`), move to the next route (`AccountRefused`: no credit, an exhausted quota,
a refused key, whatever the status), or fail the generation (`InvalidInput`,
`ContentRejected`). The adapter is built the way the registry builds it and stands in front of
the provider's fake, which answers the create with that status and body.
"""

from __future__ import annotations

import importlib
import json
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.base import FaultInjector
from tests.support.harness import test_settings
from tests.support.servers import serve_app
from vidrouter.providers import base
from vidrouter.providers.registry import factories

CASES = Path(__file__).parent / "provider_errors"
PROVIDERS = sorted(path.stem for path in CASES.glob("*.json"))


def _no_pool() -> Executor:
    raise AssertionError("no rendering in an adapter test")


def _filled(value: Any, url: str) -> Any:
    """`value` with "{url}" in its strings replaced by the fake's URL."""
    if isinstance(value, str):
        return value.replace("{url}", url)
    if isinstance(value, dict):
        return {key: _filled(item, url) for key, item in value.items()}
    return value


def _fake(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)()


def test_every_adapter_has_its_documented_codes() -> None:
    assert set(PROVIDERS) == set(factories()) - {"local"}


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_each_documented_code_is_classified_by_its_code(
    provider: str, tmp_path: Path
) -> None:
    spec = json.loads((CASES / f"{provider}.json").read_text())
    fake = _fake(spec["fake"])
    app = fake.app if isinstance(fake.app, FaultInjector) else fake.app()
    async with serve_app(app) as url:
        settings = test_settings(tmp_path, environ=_filled(spec["environ"], url))
        adapter = factories()[provider].build(base.ProviderContext(settings, tmp_path, _no_pool))
        request: dict[str, Any] = {"generation_id": "gen_errors1", "prompt": "a lighthouse at dusk"}
        request |= {"duration": 5.0, "aspect_ratio": "16:9", **_filled(spec["request"], url)}
        try:
            for case in spec["cases"]:
                fake.plan.add(status=case["status"], body=case["body"])
                before = len(fake.plan.requests)
                with pytest.raises(base.ProviderError) as caught:
                    await adapter.submit(base.ProviderRequest(**request))
                fake.plan.clear()
                _check(caught.value, case, calls=len(fake.plan.requests) - before)
        finally:
            await adapter.aclose()


def _check(error: base.ProviderError, case: dict[str, Any], *, calls: int) -> None:
    said = f"{case['status']} {case['body']}: got {type(error).__name__} {error.message}"
    assert calls == 1, said  # one create: the adapter never retries, the engine decides
    assert isinstance(error, getattr(base, case["class"])), said
    assert error.provider_code == case["code"], said
    assert error.status_code == case["status"], said
    if "request_id" in case:  # the provider's request id, kept for the operator
        assert error.request_id == case["request_id"], said
    if "retry_after" in case:
        assert isinstance(error, base.RateLimited) and error.retry_after == case["retry_after"]
    if isinstance(error, base.AccountRefused):
        # Never retried on this route; the client reads provider_unavailable.
        assert not error.is_retryable and error.code == "provider_unavailable", said


def test_minimax_rate_limit_in_a_429_keeps_its_retry_after() -> None:
    """MiniMax may send its 1002 body in an HTTP 429 with Retry-After: the wait is honoured."""
    from vidrouter.providers.minimax import errors as minimax_errors

    request = httpx.Request("POST", "https://api.minimax.io/v1/video_generation")
    body = {"base_resp": {"status_code": 1002, "status_msg": "rate limit"}}
    throttled = httpx.Response(429, json=body, headers={"Retry-After": "7"}, request=request)
    error = minimax_errors.for_code(1002, "rate limit", throttled)
    assert isinstance(error, base.RateLimited) and error.retry_after == 7.0
    plain = httpx.Response(200, json=body, request=request)
    assert minimax_errors.for_code(1002, "rate limit", plain).retry_after is None  # type: ignore[attr-defined]
