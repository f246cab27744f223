"""MiniMax's `base_resp.status_code`s (platform.minimax.io/docs/api-reference/errorcode) as
the adapter classifies them at a create: they come in an HTTP 200, so the code decides."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.minimax import MinimaxFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)


def base_resp(code: int, message: str) -> dict[str, object]:
    return {"task_id": "", "base_resp": {"status_code": code, "status_msg": message}}


CASES: list[Case] = [
    (200, base_resp(1008, "insufficient balance"), AccountRefused, "1008"),
    (200, base_resp(1004, "authentication failed"), AccountRefused, "1004"),
    (200, base_resp(2049, "invalid api key"), AccountRefused, "2049"),
    (200, base_resp(2056, "usage limit exceeded"), AccountRefused, "2056"),
    (200, base_resp(1002, "rate limit"), RateLimited, "1002"),
    (200, base_resp(1039, "token limit"), RateLimited, "1039"),
    (200, base_resp(1000, "unknown error"), ProviderUnavailable, "1000"),
    (200, base_resp(1001, "timeout"), ProviderTimeout, "1001"),
    (200, base_resp(1026, "input new_sensitive"), ContentRejected, "1026"),
    (200, base_resp(2013, "invalid params"), InvalidInput, "2013"),
    (402, base_resp(1008, "insufficient balance"), AccountRefused, "1008"),  # the V2 status
]


async def test_each_documented_code_is_classified_by_its_code(tmp_path: Path) -> None:
    fake = MinimaxFake()
    env = {"MINIMAX_API_KEY": fake.api_key, "VIDROUTER_MINIMAX_BASE_URL": "{url}"}
    async with adapter_before(fake, "minimax", tmp_path, env) as (adapter, _):
        submitted = request("MiniMax-Hailuo-02", duration=6.0)
        await check_cases(adapter, fake.plan, submitted, CASES)
