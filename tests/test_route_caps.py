"""A route's `max_concurrent` cap holds across processes: two services (two engines, two
routers, as two processes would have) on one database share one capped route."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from pathlib import Path

from tests.fakes.chaos import ChaosProvider
from tests.support.chaos import KEY, KEY_ENV, MODEL, chaos_catalog
from tests.support.harness import running, test_settings
from tests.support.servers import serve_app


async def test_a_cap_is_exact_across_two_services_on_one_database(
    tmp_path: Path, database_url: str
) -> None:
    fake = ChaosProvider(api_key=KEY, job_seconds=0.6)
    async with AsyncExitStack() as stack:
        url = await stack.enter_async_context(serve_app(fake.app()))
        path = chaos_catalog(
            tmp_path / "operator.toml", [{"id": "a", "url": url, "max_concurrent": 2}], ordered=True
        )
        apps = []
        for n in (1, 2):
            settings = test_settings(
                tmp_path / f"data{n}",
                database_url,
                environ={KEY_ENV: KEY},
                catalog=path,
                provider_delay_scale=0.02,
                workers=6,
            )
            apps.append(await stack.enter_async_context(running(settings)))
        key = await apps[0].new_key()
        created = await asyncio.gather(
            *(apps[n % 2].create(key, model=MODEL, prompt=f"fox {n}") for n in range(8))
        )
        assert [r.status_code for r in created] == [202] * 8
        for r in created:
            done = await apps[0].wait_for(key, r.json()["id"], timeout=60)
            assert done["status"] == "completed", done
    assert len(fake.accepted) == 8
    # Each service alone would have let 2 through: together they still did not pass 2.
    assert fake.peak_running == 2
