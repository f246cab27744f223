"""Runway's errors (docs.dev.runwayml.com/errors/errors) as the adapter classifies them at a
create: they carry words, not codes; a 400 about credits is the account's."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.runway import RunwayFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import AccountRefused, InvalidInput, ProviderUnavailable, RateLimited

NO_CREDITS = "You do not have enough credits to run this task."
CASES: list[Case] = [
    (400, {"error": NO_CREDITS}, AccountRefused, "insufficient_credits"),
    (401, {"error": "Invalid API key."}, AccountRefused, None),
    (429, {"error": "Too many requests."}, RateLimited, None),
    (503, {"error": "Service unavailable."}, ProviderUnavailable, None),
    (400, {"error": "Validation of body failed", "issues": []}, InvalidInput, "bad_request"),
]


async def test_each_documented_error_is_classified(tmp_path: Path) -> None:
    fake = RunwayFake()
    env = {"RUNWAYML_API_SECRET": fake.api_key, "VIDROUTER_RUNWAY_BASE_URL": "{url}"}
    async with adapter_before(fake, "runway", tmp_path, env) as (adapter, _):
        submitted = request("gen4.5", image_url=None)
        await check_cases(adapter, fake.plan, submitted, CASES)
