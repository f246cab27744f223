"""Luma's errors (docs.lumalabs.ai/docs/api) as the adapter classifies them at a create:
no codes, so the words decide; "Insufficient credits" comes as a 400 and is the account's."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.luma import LumaFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)

CASES: list[Case] = [
    (400, {"detail": "Insufficient credits"}, AccountRefused, "insufficient_credits"),
    (402, {"detail": "Payment required"}, AccountRefused, "insufficient_credits"),
    (401, {"detail": "Invalid API key"}, AccountRefused, None),
    (429, {"detail": "Too many concurrent generations"}, RateLimited, None),
    (500, {"detail": "Internal server error"}, ProviderUnavailable, None),
    (400, {"detail": "Prompt not allowed by moderation"}, ContentRejected, None),
    (
        422,
        {"detail": [{"loc": ["body", "duration"], "msg": "bad", "type": "x"}]},
        InvalidInput,
        None,
    ),
]


async def test_each_documented_error_is_classified(tmp_path: Path) -> None:
    fake = LumaFake()
    env = {"LUMAAI_API_KEY": fake.api_key, "VIDROUTER_LUMA_BASE_URL": "{url}"}
    async with adapter_before(fake, "luma", tmp_path, env) as (adapter, _):
        await check_cases(adapter, fake.plan, request("ray-2"), CASES)
