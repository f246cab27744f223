"""Kling's documented codes (kling.ai/document-api, commonInfo) as the adapter classifies
them at a create: its code decides, so 1102 (no units) with HTTP 429 is the account's."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.kling import KlingFake
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)


def envelope(code: int, message: str) -> dict[str, object]:
    return {"code": code, "message": message, "request_id": f"req-{code}", "data": None}


CASES: list[Case] = [
    (429, envelope(1102, "resource pack exhausted"), AccountRefused, "1102"),
    (429, envelope(1101, "account in arrears"), AccountRefused, "1101"),
    (429, envelope(1100, "account exception"), AccountRefused, "1100"),
    (429, envelope(1304, "IP not allowed"), AccountRefused, "1304"),
    (403, envelope(1103, "no access to the model"), AccountRefused, "1103"),
    (401, envelope(1000, "authentication failed"), AccountRefused, "1000"),
    (401, envelope(1004, "token expired"), ProviderUnavailable, "1004"),  # re-signed next try
    (429, envelope(1302, "rate over the limit"), RateLimited, "1302"),
    (429, envelope(1303, "parallel task over resource pack limit"), RateLimited, "1303"),
    (400, envelope(1201, "invalid parameter"), InvalidInput, "1201"),
    (400, envelope(1301, "content-safety policy triggered"), ContentRejected, "1301"),
    (500, envelope(5000, "internal error"), ProviderUnavailable, "5000"),
    (504, envelope(5002, "timeout"), ProviderTimeout, "5002"),
    (200, envelope(1102, "an error envelope behind a 200"), AccountRefused, "1102"),
]


async def test_each_documented_code_is_classified_by_its_code(tmp_path: Path) -> None:
    fake = KlingFake()
    env = {
        "KLING_ACCESS_KEY": fake.access_key,
        "KLING_SECRET_KEY": fake.secret_key,
        "VIDROUTER_KLING_BASE_URL": "{url}",
    }
    async with adapter_before(fake, "kling", tmp_path, env) as (adapter, _):
        errors = await check_cases(adapter, fake.plan, request("kling-v2-5-turbo"), CASES)
    assert [e.request_id for e in errors] == [f"req-{case[3]}" for case in CASES]
