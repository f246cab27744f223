"""Cancel: the generation is canceled at once, and its job is canceled at the provider."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.fakes.openai_videos import FakeOpenAIVideos
from tests.support.harness import running, test_settings
from tests.support.openai_videos import KEY, KEY_ENV, operator_catalog
from tests.support.servers import serve_app


async def test_cancel_reaches_the_provider(tmp_path: Path) -> None:
    fake = FakeOpenAIVideos(api_key=KEY, models=frozenset({"upstream-clip-1"}), never_finish=True)
    async with serve_app(fake.app()) as url:
        settings = test_settings(
            tmp_path / "data",
            environ={KEY_ENV: KEY},
            catalog=operator_catalog(tmp_path / "operator.toml", url, 5.0),
            provider_delay_scale=0.01,
        )
        async with running(settings) as app:
            key = await app.new_key()
            created = await app.create(key, model="gateway-clip", prompt="stop me")
            gid = created.json()["id"]
            await app.wait_for(key, gid, statuses=("in_progress",), timeout=10)
            canceled = await app.client.post(f"/v1/generations/{gid}/cancel", headers=app.auth(key))
            assert canceled.status_code == 200 and canceled.json()["status"] == "canceled"
            g = await app.service.generation_store.get(gid)
            assert g is not None and g.provider_job_id is not None
            for _ in range(100):
                if g.provider_job_id in fake.deleted:
                    break
                await asyncio.sleep(0.05)
            assert fake.deleted == [g.provider_job_id]
            # Nothing is left to do for it, and it stays canceled.
            for _ in range(100):
                row = await app.service.generation_store.get(gid)
                assert row is not None
                fresh = await app.service.generation_store.page(key.key.account_id, limit=1)
                if fresh.data and fresh.data[0].next_attempt_at is None:
                    break
                await asyncio.sleep(0.05)
            assert fresh.data[0].status.value == "canceled"
            assert fresh.data[0].next_attempt_at is None
            polls_after = sum(fake.polls.values())
            await asyncio.sleep(0.5)
            assert sum(fake.polls.values()) == polls_after  # no more polling
