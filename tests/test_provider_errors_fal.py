"""fal's errors (fal.ai/docs, queue API and model errors) as the adapter classifies them at a
submit: 402 and 403 "User is locked. Reason: Exhausted balance" are the account's."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.fal import FalFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)

VALIDATION = {"detail": [{"loc": ["body", "duration"], "msg": "bad", "type": "literal_error"}]}
CASES: list[Case] = [
    (403, {"detail": "User is locked. Reason: Exhausted balance"}, AccountRefused, "403"),
    (402, {"detail": "Payment required"}, AccountRefused, "402"),
    (401, {"detail": "Invalid key"}, AccountRefused, None),
    (429, {"detail": "Too many concurrent requests"}, RateLimited, None),
    (503, {"detail": "Service unavailable"}, ProviderUnavailable, None),
    (422, {"detail": "Flagged by content_policy", "error_type": "content_policy_violation"}, ContentRejected, "content_policy_violation"),
    (422, VALIDATION, InvalidInput, None),
]  # fmt: skip


async def test_each_documented_error_is_classified(tmp_path: Path) -> None:
    fake = FalFake()
    env = {"FAL_KEY": fake.api_key, "VIDROUTER_FAL_BASE_URL": "{url}"}
    async with adapter_before(fake, "fal", tmp_path, env) as (adapter, _):
        submitted = request("fal-ai/kling-video/v2.1/master/text-to-video")
        await check_cases(adapter, fake.plan, submitted, CASES)
