"""Kling (Kuaishou's own API): text-to-video and image-to-video tasks.

Every request carries `Authorization: Bearer <JWT>`, an HS256 token signed with the secret key
whose payload names the access key (`iss`) and a 30-minute validity window. Answers are an
envelope `{code, message, request_id, data}` where `code` 0 is success and other codes say
what went wrong more precisely than the HTTP status (a 429 may mean "out of credits").

    POST /v1/videos/text2video | /v1/videos/image2video  -> data.task_id, data.task_status
    GET  /v1/videos/<kind>/<task_id or external_task_id> -> task_status, task_result.videos[]

The other types go to `omni-video`, `multi-image2video` and `video-extend` (`inputs.py`).

Our generation id is sent as `external_task_id`, which Kling keeps unique per account: a
submit repeated after a lost answer is refused as a duplicate, and the adapter then finds
the task it already created by that id. A submit after that task failed uses the id with a
suffix ("-2", "-3", ...) so that Kling starts a new task.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any, ClassVar

import httpx

from vidrouter.domain.generation import JobData
from vidrouter.domain.inputs import IMAGE_TO_VIDEO, VIDEO_TO_VIDEO
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.controls_fields import control_inputs, field_name
from vidrouter.providers.images import decode_data_uri
from vidrouter.providers.kling import errors, inputs

DEFAULT_BASE_URL = "https://api-singapore.klingai.com"
TOKEN_LIFETIME = 1800  # seconds, as in Kling's own example
TOKEN_NOT_BEFORE_SKEW = 5
TOKEN_REFRESH_MARGIN = 300  # sign a new token this long before the old one expires
MAX_IMAGE_BYTES = 10 * 1024 * 1024  # Kling: "File size: <=10MB"
MAX_SUBMITS = 8  # tasks per generation: external_task_id, then "-2", "-3"... after failures

# Route options passed through to Kling when the catalog sets them (`mode` is a route's
# default tier; the request's controls win over `mode`, `sound` and `negative_prompt`).
_PASSTHROUGH_OPTIONS = ("mode", "sound", "cfg_scale", "negative_prompt")
# Kling's names and spellings for our controls. Whether a route takes one at all (a `mode`
# per resolution, `sound`, an end frame) is its declaration in catalog/kling.toml, read
# through the route's options ("field.resolution" = "mode", "values.resolution" =
# "720p=std,1080p=pro", "field.generate_audio" = "sound"; providers/controls_fields.py).
_FIELDS = {"negative_prompt": "negative_prompt", "end_image_url": "image_tail"}
_VALUES = {"generate_audio": "true=on,false=off"}

_STATES = {
    "submitted": base.JobState.QUEUED,
    "processing": base.JobState.RUNNING,
    "succeed": base.JobState.SUCCEEDED,
    "failed": base.JobState.FAILED,
}


def encode_jwt(access_key: str, secret_key: str, now: float) -> tuple[str, int]:
    """Kling's API token (RFC 7519, HS256) and its expiry time in Unix seconds."""
    issued = int(now)
    expires = issued + TOKEN_LIFETIME
    header = {"alg": "HS256", "typ": "JWT"}
    payload = {"iss": access_key, "exp": expires, "nbf": issued - TOKEN_NOT_BEFORE_SKEW}
    signing_input = _b64url(_compact(header)) + "." + _b64url(_compact(payload))
    digest = hmac.new(secret_key.encode(), signing_input.encode("ascii"), hashlib.sha256)
    return signing_input + "." + _b64url(digest.digest()), expires


def _compact(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class TokenSource:
    """Signs a token and reuses it until shortly before it expires."""

    def __init__(self, access_key: str, secret_key: str, clock: Callable[[], float]) -> None:
        self._access_key = access_key
        self._secret_key = secret_key
        self._clock = clock
        self._token: str | None = None
        self._expires = 0

    def token(self) -> str:
        now = self._clock()
        if self._token is None or now >= self._expires - TOKEN_REFRESH_MARGIN:
            self._token, self._expires = encode_jwt(self._access_key, self._secret_key, now)
        return self._token

    def forget(self) -> None:
        self._token = None


class KlingProvider:
    name: ClassVar[str] = "kling"
    # Kling documents no maximum run time; std 5 s clips take about 1-3 min, pro/master and
    # 10 s clips several minutes, longer when its queue is busy.
    poll_policy = base.PollPolicy.seconds(20, 10, 30, give_up=45 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        self._client = http.client_for(config, {"Content-Type": "application/json"})
        self._tokens = TokenSource(
            config.key("KLING_ACCESS_KEY"), config.key("KLING_SECRET_KEY"), config.clock
        )

    @property
    def client(self) -> httpx.AsyncClient:
        return self._client

    # --- the Provider protocol ---------------------------------------------------------------

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        kind = inputs.kind_of(request)
        if kind == inputs.EXTEND:  # no external_task_id on this endpoint
            body = await self._call("POST", f"/v1/videos/{kind}", json=inputs.extend_body(request))
            return self._job(body, {"kind": kind, "duration": inputs.EXTENSION_SECONDS})
        payload = _payload(request, kind)
        for attempt in range(1, MAX_SUBMITS + 1):
            external = request.generation_id + ("" if attempt == 1 else f"-{attempt}")
            payload["external_task_id"] = external
            try:
                body = await self._call("POST", f"/v1/videos/{kind}", json=payload)
            except base.InvalidInput as exc:
                if "external_task_id" not in exc.message.lower():
                    raise
                # A task with this id exists: our earlier submit was accepted but its answer
                # was lost (use that task), or it failed and this submit is a new try.
                body = await self._call("GET", f"/v1/videos/{kind}/{external}")
                if _data(body).get("task_status") == "failed":
                    continue
            billed = inputs.billed_seconds(request)
            return self._job(body, {"kind": kind, "duration": billed, "external_task_id": external})
        raise base.JobFailed(
            f"Kling failed {MAX_SUBMITS} tasks of generation {request.generation_id}"
        )

    @staticmethod
    def _job(body: dict[str, Any], data: JobData) -> base.ProviderJob:
        task_id = _data(body).get("task_id")
        if not isinstance(task_id, str) or not task_id:
            raise base.MalformedResponse("Kling accepted the task but returned no task_id")
        return base.ProviderJob(id=task_id, data=data, request_id=_request_id(body))

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        body = await self._call("GET", f"/v1/videos/{_kind(job)}/{job.id}")
        data = _data(body)
        status = data.get("task_status")
        state = _STATES.get(status) if isinstance(status, str) else None
        if state is None:
            raise base.MalformedResponse(f"Kling task {job.id} has an unknown status {status!r}")
        if state is base.JobState.FAILED:
            message = str(data.get("task_status_msg") or "the task failed")
            return base.ProviderStatus(state, error=errors.job_failure(message, _request_id(body)))
        if state is not base.JobState.SUCCEEDED:
            return base.ProviderStatus(state)
        url, seconds, video_id = _first_video(data, job.id)
        # The video's id is what an extension of it names (`video-extend`).
        result: JobData = {**job.data, "video_url": url, "video_id": video_id}
        if seconds is not None:
            result["video_duration"] = seconds
        # Kling deducts units for the requested duration, not the delivered one (5.04 s).
        billed = job.data.get("duration")
        return base.ProviderStatus(
            state,
            progress=100,
            billed_seconds=float(billed) if isinstance(billed, int | float) else seconds,
            data=result,
        )

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        return http.result_at(job.data.get("video_url"), f"Kling task {job.id}")  # signed CDN URL

    async def cancel(self, job: base.ProviderJob) -> None:
        """Kling has no endpoint to cancel a task: nothing to do."""

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- wire format -----------------------------------------------------------------------

    async def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._tokens.token()}"}
        try:
            response = await http.send(
                self._client, method, path, headers=headers, refine=errors.refine, **kwargs
            )
            body = http.json_object(response)
            code = body.get("code")
            if isinstance(code, int) and code != 0:  # an error envelope behind a 2xx
                raise errors.for_code(code, body, response)
        except base.ProviderError as exc:
            if exc.provider_code in errors.TOKEN_CODES:
                self._tokens.forget()  # sign a new one on the next call
            raise
        return body


def _payload(request: base.ProviderRequest, kind: str) -> dict[str, Any]:
    if request.duration != int(request.duration):
        raise base.InvalidInput(f"Kling takes whole seconds, not {request.duration:g}")
    payload: dict[str, Any] = {
        "model_name": request.model,
        "prompt": request.prompt,
        "duration": str(int(request.duration)),
        "external_task_id": request.generation_id,
    }
    for name in _PASSTHROUGH_OPTIONS:
        value = request.options.get(name)
        if value is not None:
            payload[name] = value
    payload.update(_controls(request))
    if kind == "image2video":
        assert request.image_url is not None
        payload["image"] = _image_field(request.image_url)
    elif kind == inputs.OMNI:
        payload.update(inputs.omni_fields(request, _image_field))
        if request.type == VIDEO_TO_VIDEO:  # as long as the video edited
            del payload["duration"]
        if request.type not in (IMAGE_TO_VIDEO, VIDEO_TO_VIDEO):  # else the input's shape
            payload["aspect_ratio"] = request.aspect_ratio
    else:
        if kind == inputs.MULTI_IMAGE:
            payload.update(inputs.multi_image_fields(request, _image_field))
        payload["aspect_ratio"] = request.aspect_ratio  # image2video follows the image
    if request.callback_url:
        payload["callback_url"] = request.callback_url
    return payload


def _controls(request: base.ProviderRequest) -> dict[str, Any]:
    """The request's controls in the fields its route declares (Kling has no seed and no
    prompt rewriting). The router sends a route only what its catalog entry honours, so
    an end frame Kling takes at one mode or sound setting only never reaches here."""
    options, controls = request.options, request.controls
    plain = dataclasses.replace(controls, end_image_url=None)  # sent as raw base64 below
    fields = control_inputs(options, plain, _FIELDS, _VALUES)
    tail = field_name(options, "end_image_url", _FIELDS)
    if controls.end_image_url is not None and tail is not None:
        fields[tail] = _image_field(controls.end_image_url)
    return fields


def _image_field(image_url: str) -> str:
    """Kling takes a URL, or raw base64 WITHOUT the `data:` prefix."""
    if not image_url.startswith("data:"):
        return image_url
    data, _mime = decode_data_uri(image_url)
    if len(data) > MAX_IMAGE_BYTES:
        raise base.InvalidInput("Kling takes images of at most 10 MB")
    return base64.b64encode(data).decode("ascii")


def _first_video(data: dict[str, Any], task_id: str) -> tuple[str, float | None, str | None]:
    result = data.get("task_result")
    videos = result.get("videos") if isinstance(result, dict) else None
    first = videos[0] if isinstance(videos, list) and videos else None
    if not isinstance(first, dict) or not isinstance(first.get("url"), str) or not first["url"]:
        raise base.MalformedResponse(f"Kling task {task_id} succeeded without a video URL")
    raw: Any = first.get("duration")  # a string of seconds, e.g. "5.042"
    try:
        seconds = float(raw) if isinstance(raw, str | int | float) else None
    except ValueError:
        seconds = None
    video_id = first.get("id")
    return str(first["url"]), seconds, str(video_id) if isinstance(video_id, str | int) else None


def _data(body: dict[str, Any]) -> dict[str, Any]:
    data = body.get("data")
    if not isinstance(data, dict):
        raise base.MalformedResponse("Kling's answer has no data object")
    return data


def _request_id(body: dict[str, Any]) -> str | None:
    return http.text_at(body, "request_id")


def _kind(job: base.ProviderJob) -> str:
    kind = job.data.get("kind")
    return kind if isinstance(kind, str) and kind in inputs.KINDS else "text2video"


FACTORY = ProviderFactory(
    "kling", ("KLING_ACCESS_KEY", "KLING_SECRET_KEY"), KlingProvider, DEFAULT_BASE_URL
)
