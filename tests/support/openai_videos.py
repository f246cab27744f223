"""What the OpenAI-style gateway tests share: the gateway's key and an operator's catalog
routing to it."""

from __future__ import annotations

from pathlib import Path

from tests.support.catalogs import gateway_model

KEY_ENV = "GATEWAY_VIDEO_KEY"
KEY = "sk-gateway-test"


def operator_catalog(path: Path, base_url: str, timeout: float) -> Path:
    """Three models an operator serves through one OpenAI-style gateway (the fake)."""
    text = (
        gateway_model("gateway-clip", "upstream-clip-1", base_url, KEY_ENV, timeout)
        + gateway_model(
            "gateway-hd",
            "upstream-clip-hd",
            base_url,
            KEY_ENV,
            timeout,
            sizes='"16:9=1792x1024,9:16=1024x1792"',
            request_format='"json"',
        )
        + gateway_model(
            "gateway-strict", "upstream-clip-1", base_url, KEY_ENV, timeout, fit_image="false"
        )
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
