"""The Gemini API's statuses as the Veo adapter classifies them at a create: a 429
RESOURCE_EXHAUSTED is a rate limit unless its QuotaFailure names a per-day quota."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.veo import VeoFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)

TYPES = "type.googleapis.com/google.rpc."


def google(code: int, status: str, message: str, *details: dict[str, Any]) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status, "details": details}}


def quota(quota_id: str) -> dict[str, Any]:
    return {"@type": TYPES + "QuotaFailure", "violations": [{"quotaId": quota_id}]}


KEY_INVALID = {"@type": TYPES + "ErrorInfo", "reason": "API_KEY_INVALID"}
RETRY = {"@type": TYPES + "RetryInfo", "retryDelay": "38s"}
PER_DAY = quota("PredictLongRunningRequestsPerDayPerProjectPerModel")
PER_MINUTE = quota("PredictLongRunningRequestsPerMinutePerProjectPerModel")
CASES: list[Case] = [
    (429, google(429, "RESOURCE_EXHAUSTED", "quota", PER_DAY, RETRY), AccountRefused, "RESOURCE_EXHAUSTED"),
    (429, google(429, "RESOURCE_EXHAUSTED", "quota", PER_MINUTE, RETRY), RateLimited, "RESOURCE_EXHAUSTED"),
    (400, google(400, "INVALID_ARGUMENT", "API key not valid", KEY_INVALID), AccountRefused, "API_KEY_INVALID"),
    (403, google(403, "PERMISSION_DENIED", "denied"), AccountRefused, "PERMISSION_DENIED"),
    (400, google(400, "FAILED_PRECONDITION", "enable billing"), AccountRefused, "FAILED_PRECONDITION"),
    (503, google(503, "UNAVAILABLE", "overloaded"), ProviderUnavailable, "UNAVAILABLE"),
    (400, google(400, "INVALID_ARGUMENT", "bad durationSeconds"), InvalidInput, "INVALID_ARGUMENT"),
    (400, google(400, "INVALID_ARGUMENT", "blocked by safety filters"), ContentRejected, "INVALID_ARGUMENT"),
]  # fmt: skip


async def test_each_documented_status_is_classified(tmp_path: Path) -> None:
    fake = VeoFake()
    env = {"GEMINI_API_KEY": fake.api_key, "VIDROUTER_GEMINI_BASE_URL": "{url}"}
    async with adapter_before(fake, "veo", tmp_path, env) as (adapter, _):
        submitted = request("veo-3.1-fast-generate-preview", duration=8.0)
        errors = await check_cases(adapter, fake.plan, submitted, CASES)
    assert isinstance(errors[1], RateLimited) and errors[1].retry_after == 38.0
