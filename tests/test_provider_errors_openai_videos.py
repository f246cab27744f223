"""The OpenAI error codes (developers.openai.com, "Error codes") as the openai_videos adapter
classifies them at a create: a 429 `insufficient_quota` is the account's, a 429
`rate_limit_exceeded` a rate limit."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_videos import FakeOpenAIVideos
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)


def error(message: str, kind: str, code: str | None) -> dict[str, object]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


QUOTA = "You exceeded your current quota, please check your plan and billing details."
CASES: list[Case] = [
    (429, error(QUOTA, "insufficient_quota", "insufficient_quota"), AccountRefused, "insufficient_quota"),
    (429, error("Rate limit reached", "requests", "rate_limit_exceeded"), RateLimited, "rate_limit_exceeded"),
    (401, error("Incorrect API key provided", "invalid_request_error", "invalid_api_key"), AccountRefused, "invalid_api_key"),
    (403, error("Country not supported", "invalid_request_error", "unsupported_country_region_territory"), AccountRefused, "unsupported_country_region_territory"),
    (400, error("Blocked by our moderation system", "invalid_request_error", "moderation_blocked"), ContentRejected, "moderation_blocked"),
    (400, error("Invalid value for seconds", "invalid_request_error", "invalid_value"), InvalidInput, "invalid_value"),
    (500, error("The server had an error", "server_error", None), ProviderUnavailable, "server_error"),
]  # fmt: skip


async def test_each_documented_code_is_classified_by_its_code(tmp_path: Path) -> None:
    fake = FakeOpenAIVideos()
    async with adapter_before(fake, "openai_videos", tmp_path, {"UPSTREAM_KEY": fake.api_key}) as (
        adapter,
        url,
    ):
        options = {"base_url": f"{url}/v1", "api_key_env": "UPSTREAM_KEY", "request_format": "json"}
        submitted = request("sora-2", duration=4.0, options=options)
        await check_cases(adapter, fake.plan, submitted, CASES)
