"""OpenRouter's errors (openrouter.ai/docs/api_reference/errors-and-debugging) as the adapter
classifies them at a create: 402 is no credit on the account or key."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openrouter import OpenRouterFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)


def error(code: int, message: str, **metadata: object) -> dict[str, object]:
    return {"error": {"code": code, "message": message, "metadata": metadata}}


CREDITS = "Insufficient credits. Add more using https://openrouter.ai/credits"
CASES: list[Case] = [
    (402, error(402, CREDITS), AccountRefused, "402"),
    (401, error(401, "No auth credentials found"), AccountRefused, "401"),
    (403, error(403, "Input flagged", reasons=["violence"]), ContentRejected, "violence"),
    (429, error(429, "Rate limit exceeded"), RateLimited, "429"),
    (503, error(503, "No provider available"), ProviderUnavailable, "503"),
    (400, error(400, "duration 7 is not supported by this model"), InvalidInput, "400"),
]


async def test_each_documented_error_is_classified(tmp_path: Path) -> None:
    fake = OpenRouterFake()
    env = {"OPENROUTER_API_KEY": fake.api_key, "VIDROUTER_OPENROUTER_BASE_URL": "{url}/api"}
    async with adapter_before(fake, "openrouter", tmp_path, env) as (adapter, _):
        await check_cases(adapter, fake.plan, request("alibaba/wan-2.7"), CASES)
