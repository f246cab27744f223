"""ModelArk's documented error codes, as the Seedance adapter classifies them at a create.

A 429 is a rate limit only when its code says so: `ModelQuotaExhausted` (Free Tokens Only
mode), `QuotaExceeded` and `SetLimitExceeded` are the account's and move to the next route.
"""

from __future__ import annotations

from pathlib import Path

from tests.fakes.seedance import FakeArk, ark_error
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)

QUOTA = "Your account has exhausted its free trial quota (Free Tokens Only Mode)"
CASES: list[Case] = [
    (429, ark_error(429, "ModelQuotaExhausted", QUOTA), AccountRefused, "ModelQuotaExhausted"),
    (429, ark_error(429, "QuotaExceeded", "quota"), AccountRefused, "QuotaExceeded"),
    (429, ark_error(429, "SetLimitExceeded", "limit"), AccountRefused, "SetLimitExceeded"),
    (403, ark_error(403, "AccountOverdueError", "overdue"), AccountRefused, "AccountOverdueError"),
    (401, ark_error(401, "AuthenticationError", "key"), AccountRefused, "AuthenticationError"),
    (403, ark_error(403, "AccessDenied", "denied"), AccountRefused, "AccessDenied"),
    (
        404,
        ark_error(404, "InvalidEndpointOrModel.NotFound", "no such model"),
        AccountRefused,
        "InvalidEndpointOrModel.NotFound",
    ),
    (
        429,
        ark_error(429, "RateLimitExceeded.EndpointRPMExceeded", "rpm"),
        RateLimited,
        "RateLimitExceeded.EndpointRPMExceeded",
    ),
    (429, ark_error(429, "ServerOverloaded", "busy"), RateLimited, "ServerOverloaded"),
    (
        500,
        ark_error(500, "InternalServiceError", "oops"),
        ProviderUnavailable,
        "InternalServiceError",
    ),
    (400, ark_error(400, "InvalidParameter", "ratio"), InvalidInput, "InvalidParameter"),
    (400, ark_error(400, "MissingParameter", "content"), InvalidInput, "MissingParameter"),
    (
        400,
        ark_error(400, "InputTextSensitiveContentDetected", "no"),
        ContentRejected,
        "InputTextSensitiveContentDetected",
    ),
]


async def test_each_documented_code_is_classified_by_its_code(tmp_path: Path) -> None:
    fake = FakeArk()
    env = {"ARK_API_KEY": fake.api_key, "VIDROUTER_SEEDANCE_BASE_URL": "{url}"}
    async with adapter_before(fake, "seedance", tmp_path, env) as (adapter, _):
        errors = await check_cases(adapter, fake.plan, request("seedance-1-0-pro-250528"), CASES)
    # Ark quotes its request id at the end of each message: kept for the operator.
    assert all(error.request_id for error in errors)
