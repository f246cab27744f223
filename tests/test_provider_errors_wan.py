"""DashScope's codes (alibabacloud.com/help/en/model-studio/error-code) as the Wan adapter
classifies them at a create: `Throttling.RateQuota` is a rate limit, `Throttling.AllocationQuota`
and the bill codes come with the same 429 and are the account's; `Arrearage` is a 400."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.wan import FakeWan
from tests.provider_errors import Case, adapter_before, check_cases, request
from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    ProviderUnavailable,
    RateLimited,
)


def body(code: str, message: str = "m") -> dict[str, str]:
    return {"request_id": f"req-{code}", "code": code, "message": message}


CASES: list[Case] = [
    (400, body("Arrearage", "Access denied, please make sure your account is in good standing."), AccountRefused, "Arrearage"),
    (429, body("Throttling.AllocationQuota", "Free allocated quota exceeded."), AccountRefused, "Throttling.AllocationQuota"),
    (429, body("PrepaidBillOverdue"), AccountRefused, "PrepaidBillOverdue"),
    (429, body("PostpaidBillOverdue"), AccountRefused, "PostpaidBillOverdue"),
    (429, body("CommodityNotPurchased"), AccountRefused, "CommodityNotPurchased"),
    (403, body("AllocationQuota.FreeTierOnly"), AccountRefused, "AllocationQuota.FreeTierOnly"),
    (403, body("Model.AccessDenied"), AccountRefused, "Model.AccessDenied"),
    (401, body("InvalidApiKey"), AccountRefused, "InvalidApiKey"),
    (429, body("Throttling"), RateLimited, "Throttling"),
    (429, body("Throttling.RateQuota", "Requests rate limit exceeded"), RateLimited, "Throttling.RateQuota"),
    (500, body("InternalError"), ProviderUnavailable, "InternalError"),
    (503, body("ModelUnavailable"), ProviderUnavailable, "ModelUnavailable"),
    (400, body("InvalidParameter"), InvalidInput, "InvalidParameter"),
    (400, body("DataInspectionFailed"), ContentRejected, "DataInspectionFailed"),
]  # fmt: skip


async def test_each_documented_code_is_classified_by_its_code(tmp_path: Path) -> None:
    fake = FakeWan()
    env = {"DASHSCOPE_API_KEY": fake.api_key, "VIDROUTER_WAN_BASE_URL": "{url}"}
    async with adapter_before(fake, "wan", tmp_path, env) as (adapter, _):
        errors = await check_cases(adapter, fake.plan, request("wan2.5-t2v-preview"), CASES)
    assert [e.request_id for e in errors] == [f"req-{c[3]}" for c in CASES]
