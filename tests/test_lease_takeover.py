"""A step that stalled past its lease while another process completed the generation: its
late result cannot be saved, and the video the row serves (under the same key) stays."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from tests.support.harness import Harness
from vidrouter.domain.generation import Status, Step


async def test_a_late_step_keeps_the_video_another_process_completed(
    app: Harness, tmp_path: Path
) -> None:
    key = await app.new_key()
    gen_id = await app.create_preview(key)
    done = await app.wait_for(key, gen_id)
    assert done["status"] == "completed"
    completed = await app.service.generation_store.get(gen_id)
    assert completed is not None and completed.video_key is not None

    # The stalled process's copy: it still polls the local render of the same job.
    stale = replace(
        completed,
        status=Status.IN_PROGRESS,
        step=Step.POLL,
        video_key=None,
        lease_owner=app.service.owner,
    )
    stored = tmp_path / "data" / "blobs" / completed.video_key
    first_stored = stored.stat().st_mtime_ns
    worker = app.service.generation_worker
    await worker.handle(stale)  # its render went with the fetch: it renders again
    out = tmp_path / "data" / "work" / "local" / f"{completed.provider_job_id}.mp4"
    for _ in range(300):
        if out.exists():
            break
        await asyncio.sleep(0.1)
    assert out.exists()
    # Its next step stores the video again, then cannot save: the row is terminal.
    await worker.handle(stale)
    # It did store the video over again (the local store's file is new)...
    assert stored.stat().st_mtime_ns > first_stored

    # ... and left it there: the row serves it.
    video = await app.client.get(done["video_url"])
    assert video.status_code == 200, video.text
    assert video.content[4:8] == b"ftyp"
    again = await app.get(key, gen_id)
    assert again.json()["status"] == "completed"
