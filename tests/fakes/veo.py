"""A fake of the Gemini API's Veo surface, in its real wire format.

- `POST /v1beta/models/{model}:predictLongRunning` validates the body the way the API does
  (unknown fields, fields the Gemini API does not take, aspect ratio, duration, resolution and
  the durations it allows, negative prompt, the inline first and last frames) and answers a
  google.longrunning.Operation `{"name": "models/{model}/operations/{id}"}`; `submitted` keeps
  each accepted body;
- `GET /v1beta/models/{model}/operations/{id}` answers `{"name"}` while it runs (proto3 JSON
  leaves `done: false` out), then `done: true` with `response.generateVideoResponse` or `error`;
- `GET /v1beta/files/{id}:download?alt=media` serves the MP4 to holders of the key.

Typed instances (`fakes/veo_inputs.py`): `referenceImages` (1-3 ASSET images, 8 s, no frames,
no negative prompt) and `video.uri` of a video this fake generated (an extension: 720p, the
whole video answered, 7 s longer than its source).

The key is taken from `x-goog-api-key` or `?key=`: none is a 403 PERMISSION_DENIED, a wrong one
the API's 400 INVALID_ARGUMENT with reason API_KEY_INVALID. Scenario knobs are attributes.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, UnidentifiedImageError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, sample_mp4
from tests.fakes.veo_inputs import EXTENSION_SECONDS, validate_typed

MODELS = ("veo-3.1-generate-preview", "veo-3.1-fast-generate-preview")
SHUT_DOWN = ("veo-3.0-generate-001", "veo-3.0-fast-generate-001", "veo-2.0-generate-001")
RESPONSE_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse"
_INSTANCE_FIELDS = {"prompt", "image", "lastFrame", "referenceImages", "video"}
# What google-genai's Gemini Developer API converter can put in `parameters`.
_PARAMETER_FIELDS = {
    "sampleCount",
    "durationSeconds",
    "aspectRatio",
    "resolution",
    "personGeneration",
    "negativePrompt",
    "enhancePrompt",
}
# Vertex AI's fields, which the Gemini API answers with "`<field>` isn't supported by this
# model." (a 400 INVALID_ARGUMENT, as reported from production in 2026; google-genai refuses
# them before sending: "seed parameter is not supported in Gemini API").
_VERTEX_ONLY = {
    "seed",
    "generateAudio",
    "fps",
    "storageUri",
    "pubsubTopic",
    "compressionQuality",
    "resizeMode",
    "mask",
}
RESOLUTIONS = ("720p", "1080p", "4k")
EIGHT_SECONDS_ONLY = ("1080p", "4k")  # Google's video guide: 1080p and 4k make 8 s clips
# A reason Google gave (googleapis/js-genai issue 1272, 2026-01).
RAI_REASON = (
    "We encountered an issue with the audio for your prompt, which means we could not create "
    "your video. This can sometimes happen due to our safety filters or other processing "
    "issues. Please modify your request and try again. You have not been charged for this "
    "attempt."
)


def google_error(status_code: int, status: str, message: str, **extra: Any) -> JSONResponse:
    error: dict[str, Any] = {"code": status_code, "message": message, "status": status}
    error.update(extra)
    return JSONResponse({"error": error}, status_code=status_code)


def invalid(message: str) -> JSONResponse:
    return google_error(400, "INVALID_ARGUMENT", message)


@dataclass
class Operation:
    name: str
    model: str
    body: dict[str, Any]
    polls: int = 0
    done: dict[str, Any] | None = None  # the finished operation, once it finished


@dataclass
class VeoFake:
    api_key: str = "test-key"
    plan: FaultPlan = field(default_factory=FaultPlan)
    polls_before_done: int = 2  # operation GETs that still answer "running"
    never_finish: bool = False
    moderate_prompts_containing: str | None = None  # finishes with raiMediaFilteredCount
    fail_jobs_with: dict[str, Any] | None = None  # a google.rpc.Status for `error`
    redirect_downloads: bool = False  # answer the download with a 302 to a storage URL
    video: bytes = field(default_factory=sample_mp4)
    submitted: list[dict[str, Any]] = field(default_factory=list)  # bodies that made operations
    operations: dict[str, Operation] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # each file's length
    downloads: int = 0

    @property
    def accepted(self) -> list[dict[str, Any]]:
        return self.submitted

    def __post_init__(self) -> None:
        routes = [
            Route("/v1beta/models/{model}:predictLongRunning", self._create, methods=["POST"]),
            Route("/v1beta/models/{model}/operations/{op_id}", self._get, methods=["GET"]),
            Route("/v1beta/files/{file_id}:download", self._download, methods=["GET"]),
            Route("/storage/{file_id}", self._storage, methods=["GET"]),
        ]
        self.app = FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints ---------------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        if (denied := self._check_key(request)) is not None:
            return denied
        model = request.path_params["model"]
        if model in SHUT_DOWN:
            return google_error(404, "NOT_FOUND", f"models/{model} is no longer available.")
        if model not in MODELS:
            return google_error(
                404,
                "NOT_FOUND",
                f"models/{model} is not found for API version v1beta, or is not supported for "
                "predictLongRunning. Call ListModels to see the list of available models and "
                "their supported methods.",
            )
        try:
            body = json.loads(await request.body())
        except ValueError:
            return invalid("Invalid JSON payload received.")
        if (problem := _validate(body) or validate_typed(body, self.seconds)) is not None:
            return invalid(problem)
        name = f"models/{model}/operations/{secrets.token_hex(6)}"
        self.operations[name] = Operation(name, model, body)
        self.submitted.append(body)
        return JSONResponse({"name": name})

    async def _get(self, request: Request) -> Response:
        if (denied := self._check_key(request)) is not None:
            return denied
        name = f"models/{request.path_params['model']}/operations/{request.path_params['op_id']}"
        operation = self.operations.get(name)
        if operation is None:
            return google_error(404, "NOT_FOUND", f"Operation {name} not found.")
        if operation.done is not None:
            return JSONResponse(operation.done)
        operation.polls += 1
        if self.never_finish or operation.polls <= self.polls_before_done:
            return JSONResponse({"name": name})
        operation.done = self._finish(operation, str(request.base_url).rstrip("/"))
        return JSONResponse(operation.done)

    async def _download(self, request: Request) -> Response:
        if (denied := self._check_key(request)) is not None:
            return denied
        file_id = request.path_params["file_id"]
        if request.query_params.get("alt") != "media":
            return invalid("Files can only be downloaded with alt=media.")
        if file_id not in self.files:
            return google_error(404, "NOT_FOUND", f"File files/{file_id} not found.")
        if self.redirect_downloads:
            return RedirectResponse(f"/storage/{file_id}?sig={secrets.token_hex(8)}", 302)
        self.downloads += 1
        return Response(self.files[file_id], media_type="video/mp4")

    async def _storage(self, request: Request) -> Response:
        data = self.files.get(request.path_params["file_id"])
        if data is None or "sig" not in request.query_params:
            return Response(status_code=403)
        self.downloads += 1
        return Response(data, media_type="video/mp4")

    # --- behaviour ---------------------------------------------------------------------------

    def _check_key(self, request: Request) -> Response | None:
        key = request.headers.get("x-goog-api-key") or request.query_params.get("key")
        if not key:
            return google_error(
                403,
                "PERMISSION_DENIED",
                "Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to call "
                "this API.",
            )
        if key != self.api_key:
            return google_error(
                400,
                "INVALID_ARGUMENT",
                "API key not valid. Please pass a valid API key.",
                details=[
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                        "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"},
                    }
                ],
            )
        return None

    def _finish(self, operation: Operation, base_url: str) -> dict[str, Any]:
        done: dict[str, Any] = {"name": operation.name, "done": True}
        prompt = str(operation.body["instances"][0].get("prompt", ""))
        if self.fail_jobs_with is not None:
            done["error"] = dict(self.fail_jobs_with)
            return done
        result: dict[str, Any]
        marker = self.moderate_prompts_containing
        if marker and marker in prompt:
            result = {"raiMediaFilteredCount": 1, "raiMediaFilteredReasons": [RAI_REASON]}
        else:
            file_id = secrets.token_hex(6)
            source = operation.body["instances"][0].get("video")
            if source is None:
                self.files[file_id], self.seconds[file_id] = self.video, 1.0
            else:  # the whole video: the source and the seconds added
                seconds = self.seconds[_file_id(source["uri"])] + EXTENSION_SECONDS
                self.files[file_id], self.seconds[file_id] = sample_mp4(seconds), seconds
            uri = f"{base_url}/v1beta/files/{file_id}:download?alt=media"
            result = {"generatedSamples": [{"video": {"uri": uri}}]}
        done["response"] = {"@type": RESPONSE_TYPE, "generateVideoResponse": result}
        return done


def _file_id(uri: str) -> str:
    return uri.rsplit("/files/", 1)[-1].split(":", 1)[0]


def _validate(body: Any) -> str | None:
    """What the API refuses with 400 INVALID_ARGUMENT, or None."""
    if not isinstance(body, dict):
        return "Invalid JSON payload received. Expected an object."
    for name in body:
        if name not in ("instances", "parameters"):
            return f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.'
    instances = body.get("instances")
    if not isinstance(instances, list) or len(instances) != 1 or not isinstance(instances[0], dict):
        return "instances must hold exactly one instance."
    instance = instances[0]
    parameters = body.get("parameters") or {}
    if not isinstance(parameters, dict):
        return "parameters must be an object."
    for name in list(instance) + list(parameters):
        if name in _VERTEX_ONLY:
            return f"`{name}` isn't supported by this model."
        if name not in _INSTANCE_FIELDS | _PARAMETER_FIELDS:
            return f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.'
    if not isinstance(instance.get("prompt", ""), str):
        return "prompt must be a string."
    if not isinstance(parameters.get("negativePrompt", ""), str):
        return "Invalid value at 'parameters.negativePrompt' (TYPE_STRING)."
    if not {"prompt", "image", "video"} & set(instance):
        return "A prompt, an image or a video is required."
    if parameters.get("enhancePrompt", True) is not True:
        # Veo 3.x rewrites every prompt: hosts passing its limits through say "only true".
        return "enhancePrompt can't be disabled for this model."  # wording unconfirmed
    ratio = parameters.get("aspectRatio", "16:9")
    if ratio not in ("16:9", "9:16"):
        return f"Aspect ratio {ratio} is not supported. Supported: 16:9, 9:16."
    if "video" in instance or "referenceImages" in instance:
        return None  # typed: `veo_inputs.validate_typed`
    duration = parameters.get("durationSeconds", 8)
    try:
        seconds = int(duration)  # proto3 JSON takes int32 as a number or a numeric string
    except (TypeError, ValueError):
        return f"Invalid value for durationSeconds: {duration!r}."
    if seconds not in (4, 6, 8):
        return f"The duration {seconds}s is not supported. Supported durations: 4, 6, 8."
    resolution = parameters.get("resolution", "720p")
    if resolution not in RESOLUTIONS:
        return f"Resolution {resolution} is not supported. Supported: 720p, 1080p, 4k."
    if resolution in EIGHT_SECONDS_ONLY and seconds != 8:
        return f"Resolution {resolution} is only supported with a duration of 8 seconds."
    if "lastFrame" in instance and "image" not in instance:
        return "lastFrame requires image (the first frame)."  # wording unconfirmed
    for name in ("image", "lastFrame"):
        if name in instance and (problem := _validate_image(instance[name])) is not None:
            return problem
    return None


def _validate_image(image: Any) -> str | None:
    if not isinstance(image, dict) or "bytesBase64Encoded" not in image:
        return "image must carry bytesBase64Encoded and mimeType."
    if image.get("mimeType") not in ("image/png", "image/jpeg", "image/webp"):
        return f"Unsupported MIME type: {image.get('mimeType')}."
    try:
        data = base64.b64decode(str(image["bytesBase64Encoded"]), validate=True)
        with Image.open(io.BytesIO(data)) as picture:
            picture.load()
    except (binascii.Error, ValueError, OSError, UnidentifiedImageError):
        return "Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
    return None
