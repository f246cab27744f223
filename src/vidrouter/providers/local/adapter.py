"""The built-in local provider: renders a title-card MP4 on this machine.

It goes through the same submit / poll / fetch interface as every remote provider. The
render runs in a process pool; its progress file (rewritten while it renders) tells any
process how far it is and that it is alive, so a render lost with a killed process is
started again by whichever worker polls next.
"""

from __future__ import annotations

import asyncio
import logging
import time
import zlib
from pathlib import Path
from typing import ClassVar

from vidrouter.domain.errors import StorageUnavailable, is_storage_error
from vidrouter.domain.generation import JsonScalar
from vidrouter.domain.inputs import VIDEO_EXTEND, VIDEO_TO_VIDEO
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.local.layers import EDIT, EXTEND, UnreadableImage
from vidrouter.providers.local.render import FRAME_SIZES, RenderResult, RenderSpec, render_video

log = logging.getLogger(__name__)

# A render whose progress file has not been touched for this long is presumed dead.
_STALE_SECONDS = 6.0
DEFAULT_RESOLUTION = "720p"


class LocalProvider:
    name: ClassVar[str] = "local"
    poll_policy = base.PollPolicy.seconds(0.5, 0.25, 1, give_up=10 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        self._dir = config.work_dir / "local"
        self._pool = config.render_pool
        self._running: dict[str, asyncio.Future[RenderResult]] = {}
        self._failures: dict[str, str] = {}

    def _paths(self, job_id: str) -> tuple[Path, Path]:
        return self._dir / f"{job_id}.mp4", self._dir / f"{job_id}.progress"

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        resolution = request.controls.resolution or DEFAULT_RESOLUTION
        if request.aspect_ratio not in FRAME_SIZES.get(resolution, {}):
            raise base.InvalidInput(
                f"aspect ratio {request.aspect_ratio} at {resolution} is not supported"
            )
        job = base.ProviderJob(
            id=f"local_{request.generation_id}",
            data={
                "prompt": request.prompt,
                "duration": request.duration,
                "aspect_ratio": request.aspect_ratio,
                "resolution": resolution,
                "seed": request.controls.seed,  # None: the look follows the job id
                **_inputs(request),
            },
        )
        self._start(job)
        return job

    def _start(self, job: base.ProviderJob) -> None:
        # Jobs submitted before resolutions and seeds were asked for have neither.
        sizes = FRAME_SIZES[str(job.data.get("resolution") or DEFAULT_RESOLUTION)]
        width, height = sizes[str(job.data["aspect_ratio"])]
        seed = job.data.get("seed")
        spec = RenderSpec(
            prompt=str(job.data["prompt"]),
            duration=float(job.data["duration"] or 0),
            width=width,
            height=height,
            seed=seed if isinstance(seed, int) else zlib.crc32(job.id.encode()),
            references=tuple(p for p in str(job.data.get("references") or "").split("\n") if p),
            source=str(job.data["source"]) if job.data.get("source") else None,
            mode=str(job.data.get("mode") or ""),
            image=str(job.data["image"]) if job.data.get("image") else None,
            end_image=str(job.data["end_image"]) if job.data.get("end_image") else None,
        )
        out, progress = self._paths(job.id)
        self._dir.mkdir(parents=True, exist_ok=True)
        progress.write_text("0")  # marks the render alive before the pool picks it up
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool(), render_video, spec, out, progress)
        self._running[job.id] = future
        future.add_done_callback(lambda f: self._finished(job.id, f))

    def _finished(self, job_id: str, future: asyncio.Future[RenderResult]) -> None:
        self._running.pop(job_id, None)
        if future.cancelled():
            return
        error = future.exception()
        if error is not None and is_storage_error(error):
            # Our disk, not the render, failed: the generation waits and renders again.
            self._failures[job_id] = f"storage:{error}"
        elif isinstance(error, UnreadableImage):
            self._failures[job_id] = f"input:{error}"
        elif error is not None:
            log.error("local_render_failed", extra={"job_id": job_id}, exc_info=error)
            self._failures[job_id] = f"{type(error).__name__}: {error}"

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        out, progress = self._paths(job.id)
        if out.exists():
            return base.ProviderStatus(base.JobState.SUCCEEDED, progress=100)
        failure = self._failures.pop(job.id, None)
        if failure is not None and failure.startswith("storage:"):
            progress.unlink(missing_ok=True)  # so that the next poll renders it again
            raise StorageUnavailable(f"local render could not write: {failure[8:]}")
        if failure is not None and failure.startswith("input:"):
            # The user's image, not the renderer: no circuit counts it (engine/transitions).
            error: base.ProviderError = base.InvalidInput(failure[6:])
            return base.ProviderStatus(base.JobState.FAILED, error=error)
        if failure is not None:
            return base.ProviderStatus(
                base.JobState.FAILED, error=base.JobFailed(f"render failed: {failure}")
            )
        percent = _read_progress(progress)
        if job.id in self._running:
            return base.ProviderStatus(base.JobState.RUNNING, progress=percent)
        if percent is not None and time.time() - progress.stat().st_mtime < _STALE_SECONDS:
            return base.ProviderStatus(
                base.JobState.RUNNING, progress=percent
            )  # another process has it
        log.info("local_render_restarted", extra={"job_id": job.id})
        self._start(job)
        return base.ProviderStatus(base.JobState.RUNNING, progress=0)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        out, progress = self._paths(job.id)
        progress.unlink(missing_ok=True)
        return base.ResultRef(path=out, delete_after=True)

    async def cancel(self, job: base.ProviderJob) -> None:
        future = self._running.pop(job.id, None)
        if future is not None:
            future.cancel()  # a render already running finishes; its file is removed below
        for path in self._paths(job.id):
            path.unlink(missing_ok=True)

    async def aclose(self) -> None:
        self._running.clear()


def _inputs(request: base.ProviderRequest) -> dict[str, JsonScalar]:
    """The job's inputs as files on this machine (the renderer reads our stored copies):
    the first and last frames, reference images, and the source with what to do with it."""
    for media in (*request.references, *([request.source.video] if request.source else [])):
        if media.path is None:
            raise base.InvalidInput("the local renderer reads its inputs from local storage")
    frames = (
        (request.image_url, request.image_path),
        (request.controls.end_image_url, request.end_image_path),
    )
    if any(url is not None and path is None for url, path in frames):
        raise base.InvalidInput("the local renderer reads its inputs from local storage")
    images = [str(m.path) for m in request.references if m.kind == "image"]
    out: dict[str, JsonScalar] = {"references": "\n".join(images)}
    for name, (_, path) in zip(("image", "end_image"), frames, strict=True):
        if path is not None:
            out[name] = str(path)
    source = request.source
    if source is not None and request.type in (VIDEO_TO_VIDEO, VIDEO_EXTEND):
        out["source"] = str(source.video.path)
        out["mode"] = EDIT if request.type == VIDEO_TO_VIDEO else EXTEND
        if request.type == VIDEO_TO_VIDEO and source.seconds > 0:
            # A re-render is as long as its source, at most the duration asked.
            out["duration"] = min(request.duration, source.seconds)
    return out


def _read_progress(path: Path) -> int | None:
    try:
        return max(0, min(100, int(path.read_text().strip() or 0)))
    except (OSError, ValueError):
        return None


FACTORY = ProviderFactory("local", (), LocalProvider)
