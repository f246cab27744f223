"""Replicate's problem+json errors (replicate.com/docs/reference/http) as the adapter
classifies them at a create: 402 is the account's credit, 429 a throttle."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.replicate import ReplicateFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)


def problem(status: int, title: str, detail: str) -> dict[str, object]:
    return {"title": title, "detail": detail, "status": status}


THROTTLED = "Request was throttled. Expected available in 2 seconds."
CASES: list[Case] = [
    (402, problem(402, "Insufficient credit", "You have insufficient credit"), AccountRefused, "Insufficient credit"),
    (401, problem(401, "Unauthenticated", "You did not pass a valid authentication token"), AccountRefused, "Unauthenticated"),
    (404, problem(404, "Not found", "The requested resource could not be found"), AccountRefused, "Not found"),
    (429, problem(429, "Request was throttled.", THROTTLED), RateLimited, "Request was throttled."),
    (503, problem(503, "Service unavailable", "try again"), ProviderUnavailable, "Service unavailable"),
    (422, problem(422, "Input validation failed", "- input.duration: must be one of 5, 10"), InvalidInput, "Input validation failed"),
    (422, problem(422, "Invalid input", "flagged as sensitive"), ContentRejected, "Invalid input"),
]  # fmt: skip


async def test_each_documented_error_is_classified(tmp_path: Path) -> None:
    fake = ReplicateFake()
    env = {"REPLICATE_API_TOKEN": fake.api_token, "VIDROUTER_REPLICATE_BASE_URL": "{url}"}
    async with adapter_before(fake, "replicate", tmp_path, env) as (adapter, _):
        errors = await check_cases(adapter, fake.plan, request("kwaivgi/kling-v2.1"), CASES)
    assert isinstance(errors[3], RateLimited) and errors[3].retry_after == 2.0
