"""Inbound provider callbacks: a genuine one makes us poll at once; a forged, replayed or
mistargeted one changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.fakes.openai_videos import FakeOpenAIVideos
from tests.support.harness import running, test_settings
from tests.support.openai_videos import KEY, KEY_ENV, operator_catalog
from tests.support.servers import serve_app
from vidrouter.engine.callbacks import CallbackTokens, callbacks_enabled


def _settings(tmp_path: Path, url: str, **overrides: Any) -> Any:
    values: dict[str, Any] = {
        # The gateway's first poll is 15 s away: only a callback makes it sooner.
        "provider_delay_scale": 1.0,
        "provider_callbacks": "on",
        "public_url": "https://vidrouter.example.com",
        **overrides,
    }
    return test_settings(
        tmp_path / "data",
        environ={KEY_ENV: KEY},
        catalog=operator_catalog(tmp_path / "operator.toml", url, 5.0),
        **values,
    )


def test_callbacks_are_off_for_loopback_public_urls_by_default() -> None:
    assert not callbacks_enabled("auto", "http://127.0.0.1:8000")
    assert not callbacks_enabled("auto", "http://localhost:8000")
    assert callbacks_enabled("auto", "https://api.example.com")
    assert callbacks_enabled("on", "http://127.0.0.1:8000")
    assert not callbacks_enabled("off", "https://api.example.com")
    tokens = CallbackTokens("secret", "https://api.example.com", enabled=True)
    url = tokens.url_for("gen_abc")
    assert url is not None and url.startswith("https://api.example.com/v1/provider-callbacks/")
    assert tokens.verify("gen_abc", url.rsplit("/", 1)[1])
    assert not tokens.verify("gen_abd", url.rsplit("/", 1)[1])


async def test_genuine_callback_polls_now_and_forged_ones_change_nothing(tmp_path: Path) -> None:
    fake = FakeOpenAIVideos(api_key=KEY, models=frozenset({"upstream-clip-1"}), polls_to_finish=1)
    async with serve_app(fake.app()) as url, running(_settings(tmp_path, url)) as app:
        key = await app.new_key()
        created = await app.create(key, model="gateway-clip", prompt="call me back")
        gid = created.json()["id"]
        await app.wait_for(key, gid, statuses=("in_progress",), timeout=10)
        g = await app.service.generation_store.get(gid)
        assert g is not None and g.provider_job_id is not None
        callback = app.service.callback_tokens.url_for(gid)
        assert callback is not None
        path = callback.removeprefix("https://vidrouter.example.com")
        assert sum(fake.polls.values()) == 0  # nothing polled yet: the first poll is 15 s off

        # Forged: a wrong token, another generation's token, a claim of success in the body.
        other = app.service.callback_tokens.token("gen_" + "x" * 24)
        wrong_token = path[:-1] + ("0" if path[-1] != "0" else "1")
        for forged in [wrong_token, path.rsplit("/", 1)[0] + "/" + other]:
            r = await app.client.post(forged, json={"status": "completed", "id": g.provider_job_id})
            assert r.status_code == 404
            assert r.json()["error"]["type"] == "not_found_error"
        unchanged = await app.service.generation_store.get(gid)
        assert unchanged is not None
        assert unchanged.status.value == "in_progress"
        assert unchanged.next_attempt_at == g.next_attempt_at

        # Genuine, with a lying body: it only makes us poll, and the poll decides.
        r = await app.client.post(path, json={"status": "failed", "error": "lies"})
        assert r.status_code == 204
        done = await app.wait_for(key, gid, timeout=10)
        assert done["status"] == "completed"

        # Replayed after the end: accepted quietly, changes nothing.
        r = await app.client.post(path, json={"status": "failed"})
        assert r.status_code == 204
        await asyncio.sleep(0.3)
        assert (await app.get(key, gid)).json()["status"] == "completed"
