"""PixVerse's account-wide webhooks through our API: a delivery signed with the console's
secret makes the generation waiting on that video be polled now and is answered `ok`; a
forged, stale or unknown-provider one is a 404 and changes nothing."""

from __future__ import annotations

import time
from pathlib import Path

from tests.fakes.pixverse import PixverseFake, signed_webhook
from tests.support.contract.cases import BY_NAME
from tests.support.providers import running_against

SECRET = "pixverse-console-secret"
PATH = "/v1/provider-callbacks/pixverse"


async def test_a_signed_webhook_polls_the_video_now(tmp_path: Path) -> None:
    fake = PixverseFake(polls_to_finish=0)

    def environ(url: str) -> dict[str, str]:
        return {**BY_NAME["pixverse"].environ(url, fake.api_key), "PIXVERSE_WEBHOOK_SECRET": SECRET}

    # PixVerse's first poll is 10 s away: only the webhook makes it sooner.
    async with running_against(tmp_path, fake.app(), environ, provider_delay_scale=1.0) as app:
        key = await app.new_key()
        created = await app.create(key, model="pixverse-v6", prompt="a fox", duration=1)
        gid = created.json()["id"]
        await app.wait_for(key, gid, statuses=("in_progress",), timeout=10)
        g = await app.service.generation_store.get(gid)
        assert g is not None and g.provider_job_id is not None
        payload = {"id": g.provider_job_id, "status": 1, "url": "https://m.example/v.mp4"}

        forged = signed_webhook("not-the-secret", payload)
        stale = signed_webhook(SECRET, payload, timestamp=int(time.time()) - 600)
        for headers, body in (forged, stale):
            answer = await app.client.post(PATH, content=body, headers=headers)
            assert answer.status_code == 404, answer.text
        elsewhere = await app.client.post(
            "/v1/provider-callbacks/nobody", content=b"{}", headers={}
        )
        assert elsewhere.status_code == 404
        unchanged = await app.service.generation_store.get(gid)
        assert unchanged is not None and unchanged.next_attempt_at == g.next_attempt_at
        assert fake.plan.count("GET", "/video/result/") == 0

        headers, body = signed_webhook(SECRET, payload)
        answer = await app.client.post(PATH, content=body, headers=headers)
        assert (answer.status_code, answer.text) == (200, "ok")
        done = await app.wait_for(key, gid, timeout=8)  # well before the 10 s poll
        assert done["status"] == "completed", done

        # A lying body only makes us poll: a replay after the end changes nothing.
        lie = {**payload, "status": 8}
        headers, body = signed_webhook(SECRET, lie)
        answer = await app.client.post(PATH, content=body, headers=headers)
        assert (answer.status_code, answer.text) == (200, "ok")
        assert (await app.get(key, gid)).json()["status"] == "completed"
