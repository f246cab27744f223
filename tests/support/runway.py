"""What the Runway test files share: settings pointing the adapter at the fake, and the
official SDK driving the fake without waiting."""

from __future__ import annotations

from pathlib import Path

import pytest
import runwayml
import runwayml.lib.polling

from tests.support.providers import keyed_settings
from vidrouter.settings import Settings


def settings_for(
    tmp_path: Path, url: str, *, key: str | None = "test-key", scale: float = 0.01
) -> Settings:
    environ = {"VIDROUTER_RUNWAY_BASE_URL": url}
    return keyed_settings(tmp_path, environ, "RUNWAYML_API_SECRET", key, provider_delay_scale=scale)


def quick_sdk(url: str, monkeypatch: pytest.MonkeyPatch) -> runwayml.AsyncRunwayML:
    """The official async client against the fake at `url`, polling without waits."""
    monkeypatch.setattr(runwayml.lib.polling, "POLL_TIME", 0.01)
    monkeypatch.setattr(runwayml.lib.polling, "POLL_JITTER", 0)
    return runwayml.AsyncRunwayML(api_key="test-key", base_url=url, max_retries=0)
