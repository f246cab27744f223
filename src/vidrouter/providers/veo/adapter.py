"""Google Veo through the Gemini API (generativelanguage.googleapis.com).

    POST /v1beta/models/{model}:predictLongRunning      x-goog-api-key: <GEMINI_API_KEY>
         {"instances": [{"prompt": ..., "image"?: {"bytesBase64Encoded": ..., "mimeType": ...},
                         "lastFrame"?: {...the same...}}],
          "parameters": {"aspectRatio": "16:9", "durationSeconds": 8, "resolution": "720p",
                         "negativePrompt"?: ...}}
      -> google.longrunning.Operation {"name": "models/{model}/operations/{id}"}
    GET  /v1beta/{operation name}
      -> {"name": ..., "done": true?, "error"?: google.rpc.Status,
          "response"?: {"generateVideoResponse": {"generatedSamples": [{"video": {"uri": ...}}],
                                                  "raiMediaFilteredCount"?, "raiMediaFilteredReasons"?}}}
    GET  {video.uri}  (".../v1beta/files/{id}:download?alt=media"), with the key again

The field names are those of google-genai's Gemini Developer API converters (2.25.0:
`_GenerateVideosParameters_to_mldev`, `_GenerateVideosOperation_from_mldev`). Errors come as
`{"error": {"code": <http>, "message": ..., "status": "INVALID_ARGUMENT", "details": [...]}}`;
a wrong key is a 400 whose ErrorInfo reason is API_KEY_INVALID, not a 401. The API has no
idempotency key, no progress figure and no cancel for video operations.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit

import httpx

from vidrouter.domain.generation import JobData
from vidrouter.domain.inputs import VIDEO_EXTEND
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.controls_fields import ASPECT_RATIOS, listed
from vidrouter.providers.veo import errors, inputs

CREDENTIAL = "GEMINI_API_KEY"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
GOOGLE_HOST = "generativelanguage.googleapis.com"


class VeoProvider:
    name: ClassVar[str] = "veo"
    # Google's video guide gave 11 s at least and 6 minutes at peak for one video.
    poll_policy = base.PollPolicy.seconds(10, 10, 30, give_up=12 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        self._key = config.key(CREDENTIAL)
        self._base = config.base_url.rstrip("/")
        self._allow_private = config.allow_private_images
        self._client = http.client_for(config, {"x-goog-api-key": self._key})

    # --- submit ------------------------------------------------------------------------------

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        shapes = listed(request.options, ASPECT_RATIOS)  # the catalog's route options
        if shapes and request.aspect_ratio not in shapes:
            raise base.InvalidInput(f"Veo takes aspect ratios {', '.join(shapes)} only")
        controls = request.controls
        typed = await inputs.typed_instance(request, allow_private=self._allow_private)
        if request.type == VIDEO_EXTEND and typed is not None:
            # An extension keeps the source's shape and adds a fixed 7 s at 720p.
            return await self._create(request, typed, {"resolution": inputs.EXTENSION_RESOLUTION})
        instance: dict[str, Any] = typed or {"prompt": request.prompt}
        frames = {"image": request.image_url, "lastFrame": controls.end_image_url}
        for field, url in frames.items():
            if url is not None:
                instance[field] = await inputs.inline_image(url, allow_private=self._allow_private)
        parameters: dict[str, Any] = {
            "aspectRatio": request.aspect_ratio,
            "durationSeconds": round(request.duration),
        }
        # The Gemini API always makes audio and takes no seed (google-genai refuses `seed` and
        # `generate_audio` for it): the catalog offers neither, so nothing is sent for them.
        wired = {
            "resolution": controls.resolution,
            "negativePrompt": controls.negative_prompt,
            # Google's default differs between text and image input: sent only when a route asks.
            "personGeneration": request.options.get("person_generation"),
        }
        parameters.update({k: v for k, v in wired.items() if v is not None})
        return await self._create(request, instance, parameters)

    async def _create(
        self, request: base.ProviderRequest, instance: dict[str, Any], parameters: dict[str, Any]
    ) -> base.ProviderJob:
        body = {"instances": [instance], "parameters": parameters}
        path = f"/{API_VERSION}/models/{request.model}:predictLongRunning"
        response = await self._send("POST", path, json=body, submitting=True)
        name = http.json_object(response).get("name")
        if not isinstance(name, str) or "/operations/" not in name:
            raise base.MalformedResponse("predictLongRunning answered without an operation name")
        data: JobData = {"model": request.model}
        if request.type == VIDEO_EXTEND:
            data["added_seconds"] = inputs.EXTENSION_SECONDS  # billed: the seconds it made
        return base.ProviderJob(id=name, data=data)

    # --- poll --------------------------------------------------------------------------------

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        response = await self._send("GET", f"/{API_VERSION}/{job.id}", submitting=False)
        operation = http.json_object(response)
        if operation.get("done") is not True:  # proto3 JSON leaves `done: false` out
            return base.ProviderStatus(base.JobState.RUNNING)
        error = operation.get("error")
        if isinstance(error, dict):
            return base.ProviderStatus(base.JobState.FAILED, error=errors.job_failure(error))
        result = _dig(operation, "response", "generateVideoResponse")
        if not isinstance(result, dict):
            raise base.MalformedResponse(f"operation {job.id} is done without a response")
        uri = _first_video_uri(result)
        if uri is not None:
            data: JobData = {**job.data, "video_uri": uri}
            # An extension answers the whole video; Google bills the seconds it generated.
            added = job.data.get("added_seconds")
            billed = float(added) if isinstance(added, int | float) else None
            return base.ProviderStatus(
                base.JobState.SUCCEEDED, progress=100, billed_seconds=billed, data=data
            )
        return base.ProviderStatus(base.JobState.FAILED, error=errors.empty_result_error(result))

    # --- result and cancel -------------------------------------------------------------------

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        uri = job.data.get("video_uri")
        if not isinstance(uri, str) or not uri:
            raise base.MalformedResponse(f"operation {job.id} has no video uri")
        url = urljoin(self._base + "/", uri)
        # The uri is served to holders of the key; it goes only to Google or our configured host.
        host = urlsplit(url).netloc
        trusted = host in (urlsplit(self._base).netloc, GOOGLE_HOST)
        return base.ResultRef(url=url, headers={"x-goog-api-key": self._key} if trusted else {})

    async def cancel(self, job: base.ProviderJob) -> None:
        """The Gemini API offers no cancel for video operations: the job runs to its end."""

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- errors ------------------------------------------------------------------------------

    async def _send(
        self, method: str, path: str, *, submitting: bool, **kwargs: Any
    ) -> httpx.Response:
        refine = functools.partial(errors.refine, submitting=submitting)
        return await http.send(self._client, method, path, refine=refine, **kwargs)


def _first_video_uri(result: Mapping[str, Any]) -> str | None:
    samples = result.get("generatedSamples")
    if not isinstance(samples, list):
        return None
    for sample in samples:
        uri = _dig(sample, "video", "uri")
        if isinstance(uri, str) and uri:
            return uri
    return None


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


FACTORY = ProviderFactory(
    "veo", (CREDENTIAL,), VeoProvider, DEFAULT_BASE_URL, base_url_name="gemini"
)
