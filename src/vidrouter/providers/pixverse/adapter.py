"""PixVerse on its Platform API (`app-api.pixverse.ai/openapi/v2`).

    text     POST /video/text/generate        {model, prompt, duration, quality, aspect_ratio,
                                               seed, generate_audio_switch, ...}
    image    POST /image/upload (multipart `image`) -> Resp.img_id, then
             POST /video/img/generate         {..., img_id}            (no aspect_ratio)
    frames   POST /video/transition/generate  {..., first_frame_img, last_frame_img}
    poll     GET  /video/result/{video_id}    Resp.status 5 generating, 1 done (`url`),
                                              7 moderated, 8 failed (6 deleted)
    answers  HTTP 200 `{"ErrCode", "ErrMsg", "Resp"}`: a non-zero ErrCode is an error

Every call carries `API-KEY` and a fresh `Ai-trace-id` (a UUID: PixVerse wants one per
request). Video ids are 64-bit integers, kept as their decimal string. There is no cancel,
no idempotency key we can rely on, and no callback field: webhooks are registered in
PixVerse's console and signed (`callbacks`). Controls: resolution -> `quality`; seed ->
`seed` (0..2^31-1); generate_audio and negative_prompt -> the field the route names
(`"field.generate_audio" = "generate_audio_switch"` on V5.5 and later, `"field.negative_prompt"`
on V5: PixVerse's models differ); the end frame -> the transition endpoint.

Types (docs/providers/pixverse.md, "Types"):
    reference  POST /video/fusion/generate  {..., aspect_ratio, image_references: [{"type":
               "subject", "img_id", "ref_name": "ref1"}, ...]}: each reference uploaded first
    extend     POST /video/extend/generate  {..., source_video_id}: a video this route made
               (PixVerse's own id); the answer is the new part, which the engine joins
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar

from vidrouter.domain.inputs import REFERENCE_TO_VIDEO, VIDEO_EXTEND
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.controls_fields import control_inputs
from vidrouter.providers.images import MAX_IMAGE_BYTES, load_image, sniff
from vidrouter.providers.inline import media_bytes
from vidrouter.providers.pixverse import callbacks, errors

log = logging.getLogger(__name__)

CREDENTIAL = "PIXVERSE_API_KEY"
DEFAULT_BASE_URL = "https://app-api.pixverse.ai"
API = "/openapi/v2"
TEXT_PATH = f"{API}/video/text/generate"
IMAGE_PATH = f"{API}/video/img/generate"
TRANSITION_PATH = f"{API}/video/transition/generate"
FUSION_PATH = f"{API}/video/fusion/generate"
EXTEND_PATH = f"{API}/video/extend/generate"
MAX_REFERENCES = 3  # image_references: 1-3 (the fusion guide)
FUSION_DURATIONS = (5, 8)  # the fusion and extend guides: "supported 5, 8" (V6 extends 1-15)
UPLOAD_PATH = f"{API}/image/upload"
RESULT_PATH = f"{API}/video/result/{{id}}"
TRACE_HEADER = "Ai-trace-id"
DEFAULT_QUALITY = "720p"
QUALITIES = {"540p": "540p", "720p": "720p", "1080p": "1080p"}  # ours -> PixVerse's
MAX_SEED = 2_147_483_647

_RUNNING = {5, 2, 3}  # 5 documented; 2 and 3 seen in PixVerse's MCP client's mapping
_ENDED = {6, 7, 8}


class PixverseProvider:
    name: ClassVar[str] = "pixverse"
    # Typical runs take 30 s to 3 minutes; PixVerse advises a poll every 3-5 s and documents
    # no maximum: 20 minutes is our bound (unconfirmed).
    poll_policy = base.PollPolicy.seconds(10, 5, 20, give_up=20 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        headers = {"API-KEY": config.key(CREDENTIAL), "Accept": "application/json"}
        self._client = http.client_for(config, headers)
        self._allow_private = config.allow_private_images
        self._webhook_secret = config.key(callbacks.SECRET_ENV)  # "": no webhook verifies

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        body = _create_body(request)
        if request.type == REFERENCE_TO_VIDEO:
            path = FUSION_PATH
            body["aspect_ratio"] = request.aspect_ratio
            body["image_references"] = await self._references(request, body["duration"])
        elif request.type == VIDEO_EXTEND:
            path = EXTEND_PATH
            body["source_video_id"] = _own_video(request)
            if request.model != "v6" and body["duration"] not in FUSION_DURATIONS:
                raise base.InvalidInput("PixVerse extends by 5 or 8 s before V6")
        else:
            path = await self._framed(request, body)
        trace, answer = await self._call("POST", path, json=body)
        video_id = _resp(answer).get("video_id")
        if not isinstance(video_id, int) or isinstance(video_id, bool):
            raise base.MalformedResponse(f"POST {path}: no integer Resp.video_id in the answer")
        return base.ProviderJob(
            id=str(video_id), data={"duration": body["duration"]}, request_id=trace
        )

    async def _references(self, request: base.ProviderRequest, duration: int) -> list[Any]:
        """Each reference uploaded (PixVerse takes image ids), named `ref1`, `ref2`... for
        the prompt's `@ref1`; all subjects (ours are not split into subject and background)."""
        images = [m for m in request.references if m.kind == "image"]
        if not 1 <= len(images) <= MAX_REFERENCES or len(images) != len(request.references):
            raise base.InvalidInput(f"PixVerse takes 1 to {MAX_REFERENCES} reference images")
        if duration not in FUSION_DURATIONS:
            raise base.InvalidInput("PixVerse makes 5 or 8 s from reference images")
        uploaded = []
        for number, media in enumerate(images, start=1):
            data = await media_bytes(media, max_bytes=MAX_IMAGE_BYTES, allow=self._allow_private)
            img_id = await self._upload_bytes(data, sniff(data))
            uploaded.append({"type": "subject", "img_id": img_id, "ref_name": f"ref{number}"})
        return uploaded

    async def _framed(self, request: base.ProviderRequest, body: dict[str, Any]) -> str:
        """Text, a first frame or first and end frames: the path, the body completed."""
        path = TEXT_PATH
        if request.image_url is None:
            body["aspect_ratio"] = request.aspect_ratio  # image modes follow the image
        else:
            first = await self._upload(request.image_url)
            end = request.controls.end_image_url
            if end is None:
                path, body["img_id"] = IMAGE_PATH, first
            else:
                path = TRANSITION_PATH
                body["first_frame_img"], body["last_frame_img"] = first, await self._upload(end)
        return path

    @http.lost_is_failed
    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        video = await self._result(job)
        status = video.get("status")
        if status == 1:
            url = video.get("url")
            if not isinstance(url, str) or not url:
                raise base.MalformedResponse(f"PixVerse video {job.id} succeeded without a url")
            return http.succeeded(job, url)
        if isinstance(status, int) and status in _ENDED:
            return base.ProviderStatus(
                base.JobState.FAILED, error=errors.job_failure(status, job.id)
            )
        if status not in _RUNNING:  # undocumented: keep polling (bounded) and say so
            log.warning("pixverse_unknown_status", extra={"job_id": job.id, "status": str(status)})
        return base.ProviderStatus(base.JobState.RUNNING)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        url = http.stored_url(job) or (await self._result(job)).get("url")
        # media.pixverse.ai serves the file without the key; its lifetime is undocumented.
        return http.result_at(url, f"PixVerse video {job.id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        """PixVerse documents no cancel: the video runs to its end."""

    async def aclose(self) -> None:
        await self._client.aclose()

    def webhook_job(self, delivery: base.CallbackDelivery, *, now: float) -> str | None:
        """The video id a webhook names, when it is signed with the console's secret and
        fresh (`callbacks.verify_webhook`); None for any other delivery."""
        return callbacks.job_of(self._webhook_secret, delivery.headers, delivery.body, now=now)

    async def _result(self, job: base.ProviderJob) -> dict[str, Any]:
        try:
            _, answer = await self._call("GET", RESULT_PATH.format(id=job.id))
        except base.ProviderError as exc:
            if exc.provider_code != str(errors.NOT_FOUND) and exc.status_code != 404:
                raise
            raise http.reclassify(
                exc, base.JobFailed, f"PixVerse no longer knows video {job.id}", retryable=True
            ) from exc
        return _resp(answer)

    async def _upload(self, url: str) -> int:
        """Upload a frame (PixVerse takes image ids, not URLs): its `img_id`."""
        data, mime = await load_image(url, allow_private=self._allow_private)
        return await self._upload_bytes(data, mime)

    async def _upload_bytes(self, data: bytes, mime: str) -> int:
        name = "frame.png" if mime == "image/png" else "frame.jpg"
        _, answer = await self._call("POST", UPLOAD_PATH, files={"image": (name, data, mime)})
        found = _resp(answer)
        img_id = found.get("img_id", found.get("ImgID"))  # the MCP client accepts both names
        if not isinstance(img_id, int) or isinstance(img_id, bool):
            raise base.MalformedResponse(f"POST {UPLOAD_PATH}: no integer Resp.img_id")
        return img_id

    async def _call(self, method: str, path: str, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        """One request with a fresh trace id: (the trace id, the answer), or the error its
        status or ErrCode stands for."""
        trace = str(uuid.uuid4())
        response = await http.send(
            self._client,
            method,
            path,
            headers={TRACE_HEADER: trace},
            refine=errors.refine,
            **kwargs,
        )
        answer = http.json_object(response)
        code, message = errors.envelope(answer)
        if code != 0:
            raise _with_trace(errors.for_code(code, message, response), trace)
        return trace, answer


def _own_video(request: base.ProviderRequest) -> int:
    """The PixVerse video id of the source: PixVerse extends videos by its own id, and the
    route is only given extensions of what it made (`extends_own_output`)."""
    job = request.source.job if request.source is not None else None
    if job is None or not job.id.isdigit():
        raise base.InvalidInput("PixVerse extends only videos it made")
    return int(job.id)


def _with_trace(error: base.ProviderError, trace: str) -> base.ProviderError:
    error.request_id = error.request_id or trace  # what PixVerse's support asks for
    return error


def _resp(answer: Mapping[str, Any]) -> dict[str, Any]:
    found = answer.get("Resp")
    if not isinstance(found, dict):
        raise base.MalformedResponse("PixVerse answered without a Resp object")
    return found


def _create_body(request: base.ProviderRequest) -> dict[str, Any]:
    controls = request.controls
    quality = QUALITIES.get(controls.resolution or DEFAULT_QUALITY)
    if quality is None:
        raise base.InvalidInput(f"PixVerse makes no {controls.resolution} video")
    body: dict[str, Any] = {
        "model": request.model,
        "prompt": request.prompt,
        "duration": max(1, round(request.duration)),
        "quality": quality,
    }
    if controls.seed is not None and controls.seed > MAX_SEED:
        raise base.InvalidInput(f"PixVerse takes a seed from 0 to {MAX_SEED}")
    # seed on every model; the sound switch and the negative prompt only where the route
    # names their field (models differ: V6 dropped negative_prompt, V5 has no sound switch).
    body.update(control_inputs(request.options, controls, defaults={"seed": "seed"}))
    return body


FACTORY = ProviderFactory("pixverse", (CREDENTIAL,), PixverseProvider, DEFAULT_BASE_URL)

__all__ = ["FACTORY", "PixverseProvider"]
