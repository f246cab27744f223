"""A fake of Replicate's HTTP API (what the replicate SDK 1.0.7 speaks), for official models.

- `POST /v1/models/{owner}/{name}/predictions` and `POST /v1/predictions` (`version` is
  "owner/name", "owner/name:<version id>" or a bare version id): 201 with a Prediction in
  status `starting`; the input is checked against the model's schema (422 problem+json with
  `invalid_fields` for an unknown field, a wrong type or a value outside an enum or range).
- `GET /v1/predictions/{id}`: `starting` on the first look, `processing` (with tqdm-style
  progress in `logs`) for `polls_to_finish` polls, then `succeeded` with `output` (a URL) and
  `metrics`, or `failed` with `error`. A finished prediction with a `webhook` is POSTed to it,
  signed the Standard Webhooks way with the account's secret.
- `POST /v1/predictions/{id}/cancel`: 200 with the prediction, `canceled` unless finished.
- `GET /v1/models/{owner}/{name}`: the model, with `latest_version.openapi_schema` built the
  way Cog builds it (enums as `allOf` references to named schemas).
- `GET /v1/webhooks/default/secret`: `{"key": "whsec_..."}`.
- `POST /v1/files` (multipart, part `content`) and `GET /v1/files/{id}`: uploaded inputs.
- `GET /delivery/{id}/output.mp4`: the video, public like replicate.delivery.
Errors are RFC 7807 bodies `{"title", "detail", "status"}`.

Knobs: `polls_to_finish`, `never_finish`, `moderate_prompts_containing` (the prediction fails
with E005), `fail_jobs_with` (an `error` for every prediction), `abort_next` (that many
predictions end `aborted`), `out_of_credits` (402 on create).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import secrets
import string
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, sample_mp4

E005 = (
    "The input or output was flagged as sensitive. Please try again with different inputs. (E005)"
)
BAD_IMAGE = "Input validation error: could not load the image given as input.{field}"
UNAUTHENTICATED = {
    "title": "Unauthenticated",
    "detail": "You did not pass a valid authentication token",
    "status": 401,
}
NO_CREDIT = {
    "title": "Insufficient credit",
    "detail": "You have insufficient credit to run this model. Go to "
    "https://replicate.com/account/billing#billing to purchase credit.",
    "status": 402,
}
_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"
_TERMINAL = ("succeeded", "failed", "canceled", "aborted")


def _f(
    kind: str, enum: list[Any] | None = None, default: Any = None, **extra: Any
) -> dict[str, Any]:
    return {"type": kind, "enum": enum, "default": default, **extra}


S, URI, B, N = _f("string"), _f("string", format="uri"), _f("boolean"), _f("number")
PROMPT = _f("string", required=True)
KLING_AR = _f("string", ["16:9", "9:16", "1:1"], "16:9")
LUMA = {
    "prompt": PROMPT,
    "duration": _f("integer", [5, 9], 5),
    "aspect_ratio": _f("string", ["1:1", "3:4", "4:3", "9:16", "16:9", "9:21", "21:9"], "16:9"),
    "loop": B,
    "start_image": URI,
    "end_image": URI,
    "concepts": _f("array"),
}
VEO = {
    "prompt": PROMPT,
    "aspect_ratio": _f("string", ["16:9", "9:16"], "16:9"),
    "duration": _f("integer", [4, 6, 8], 8),
    "image": URI,
    "last_frame": URI,
    "negative_prompt": S,
    "resolution": _f("string", ["720p", "1080p"], "1080p"),
    "generate_audio": _f("boolean", default=True),
    "seed": _f("integer"),
}
HAILUO = {
    "prompt": PROMPT,
    "first_frame_image": URI,
    "duration": _f("integer", [6, 10], 6),
    "resolution": _f("string", ["768p", "1080p"], "768p"),
    "prompt_optimizer": _f("boolean", default=True),
}
# Input schemas of the official models (replicate.com/<model>/api, as of 2026; see
# ../shared/providers/replicate.md for sources).
MODELS: dict[str, dict[str, dict[str, Any]]] = {
    "kwaivgi/kling-v2.1-master": {
        "prompt": PROMPT, "negative_prompt": S, "aspect_ratio": KLING_AR, "start_image": URI,
        "duration": _f("integer", [5, 10], 5),
    },
    "kwaivgi/kling-v2.5-turbo-pro": {
        "prompt": PROMPT, "negative_prompt": S, "start_image": URI, "end_image": URI,
        "aspect_ratio": KLING_AR, "duration": _f("integer", [5, 10], 5), "guidance_scale": N,
    },
    "kwaivgi/kling-v2.6": {
        "prompt": PROMPT, "negative_prompt": S, "start_image": URI, "aspect_ratio": KLING_AR,
        "duration": _f("integer", [5, 10], 5), "generate_audio": _f("boolean", default=True),
    },
    "minimax/hailuo-02": {
        **HAILUO, "last_frame_image": URI,
        "resolution": _f("string", ["512p", "768p", "1080p"], "1080p"),
    },
    "minimax/hailuo-2.3": HAILUO,
    "minimax/hailuo-2.3-fast": {**HAILUO, "first_frame_image": _f("string", format="uri", required=True)},
    "bytedance/seedance-1-pro": {
        "prompt": PROMPT, "image": URI, "last_frame_image": URI,
        "duration": _f("integer", default=5, minimum=2, maximum=12),
        "resolution": _f("string", ["480p", "720p", "1080p"], "1080p"),
        "aspect_ratio": _f("string", ["16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "9:21"], "16:9"),
        "fps": _f("integer", [24], 24), "camera_fixed": B, "seed": _f("integer"),
    },
    "wan-video/wan-2.5-t2v": {
        "prompt": PROMPT, "negative_prompt": S, "audio": URI,
        "size": _f("string", ["832*480", "480*832", "1280*720", "720*1280", "1920*1080", "1080*1920"], "1280*720"),
        "duration": _f("integer", [5, 10], 5), "enable_prompt_expansion": B, "seed": _f("integer"),
    },
    "wan-video/wan-2.5-i2v": {
        "image": _f("string", format="uri", required=True), "prompt": PROMPT,
        "negative_prompt": S, "audio": URI,
        "resolution": _f("string", ["480p", "720p", "1080p"], "720p"),
        "duration": _f("integer", [5, 10], 5), "enable_prompt_expansion": B, "seed": _f("integer"),
    },
    "luma/ray-2-720p": LUMA,
    "luma/ray-flash-2-720p": LUMA,
    "google/veo-3.1": {**VEO, "reference_images": _f("array")},
    "google/veo-3.1-fast": VEO,
    # replicate.com/luma/modify-video/versions/f52f1714.../api (shared/providers/inputs.md)
    "luma/modify-video": {
        "prompt": S, "video": _f("string", format="uri", required=True), "first_frame": URI,
        "mode": _f("string", [f"{m}_{n}" for m in ("adhere", "flex", "reimagine") for n in (1, 2, 3)], "adhere_1"),
    },
}  # fmt: skip
# Vidu Q3 Turbo (replicate.com/vidu/q3-turbo, as ../shared/providers/vidu.md records it).
MODELS["vidu/q3-turbo"] = {
    "prompt": PROMPT,
    "start_image": URI,
    "end_image": URI,
    "duration": _f("integer", default=5, minimum=1, maximum=16),
    "aspect_ratio": _f("string", ["16:9", "9:16", "1:1", "4:3", "3:4"], "16:9"),
    "resolution": _f("string", ["540p", "720p", "1080p"], "720p"),
    "audio": _f("boolean", default=True),
    "seed": _f("integer"),
}

# PixVerse (replicate.com/pixverse/pixverse-v5/.../api; pixverse-v6 as pixverse-v6-max's page).
PIXVERSE_QUALITY = _f("string", ["360p", "540p", "720p", "1080p"], "540p")
PIXVERSE_RATIO = _f("string", ["16:9", "4:3", "1:1", "3:4", "9:16"], "16:9")
MODELS.update(
    {
        "pixverse/pixverse-v5": {
            "prompt": PROMPT,
            "image": URI,
            "last_frame_image": URI,
            "quality": PIXVERSE_QUALITY,
            "aspect_ratio": PIXVERSE_RATIO,
            "duration": _f("integer", [5, 8], 5),
            "negative_prompt": S,
            "seed": _f("integer"),
            "effect": S,
        },
        "pixverse/pixverse-v6": {
            "prompt": PROMPT,
            "image": URI,
            "quality": {**PIXVERSE_QUALITY, "default": "720p"},
            "aspect_ratio": _f(
                "string", ["16:9", "4:3", "1:1", "3:4", "9:16", "2:3", "3:2", "21:9"], "16:9"
            ),
            "duration": _f("integer", default=5, minimum=1, maximum=15),
            "negative_prompt": S,
            "seed": _f("integer"),
            "generate_audio_switch": _f("boolean", default=False),
            "generate_multi_clip_switch": B,
        },
    }
)
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
}


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _problem(status: int, title: str, detail: str, **extra: Any) -> JSONResponse:
    body = {"title": title, "detail": detail, "status": status, **extra}
    return JSONResponse(body, status_code=status, media_type="application/problem+json")


def _version_id(model: str) -> str:
    return hashlib.sha256(model.encode()).hexdigest()


def _validate(model: str, inputs: object) -> list[dict[str, str]]:
    """Replicate's 422 `invalid_fields` for an input the model's schema refuses."""
    if not isinstance(inputs, dict):
        return [{"type": "type", "field": "input", "description": "input must be an object"}]
    schema = MODELS[model]
    problems = []
    for name in inputs:
        if name not in schema:
            problems.append(
                {"type": "additional_property_not_allowed", "field": f"input.{name}",
                 "description": f"Additional property {name} is not allowed"}
            )  # fmt: skip
    for name, spec in schema.items():
        value = inputs.get(name)
        if value is None:
            if spec.get("required"):
                problems.append(
                    {"type": "required", "field": "input", "description": f"{name} is required"}
                )
            continue
        kinds = _TYPES[spec["type"]]
        if not isinstance(value, kinds) or (spec["type"] != "boolean" and isinstance(value, bool)):
            problems.append(
                {"type": "invalid_type", "field": f"input.{name}",
                 "description": f"Invalid type. Expected: {spec['type']}"}
            )  # fmt: skip
        elif spec.get("enum") and value not in spec["enum"]:
            allowed = ", ".join(str(v) for v in spec["enum"])
            problems.append(
                {"type": "enum", "field": f"input.{name}",
                 "description": f"{name} must be one of the following: {allowed}"}
            )  # fmt: skip
        elif ("minimum" in spec and value < spec["minimum"]) or (
            "maximum" in spec and value > spec["maximum"]
        ):
            problems.append(
                {"type": "number_range", "field": f"input.{name}",
                 "description": f"Must be between {spec['minimum']} and {spec['maximum']}"}
            )  # fmt: skip
    return problems


def openapi_schema(model: str) -> dict[str, Any]:
    """The model's schema as Cog writes it: enums are named schemas referenced with allOf."""
    schemas: dict[str, Any] = {"Output": {"type": "string", "title": "Output", "format": "uri"}}
    properties: dict[str, Any] = {}
    required = []
    for order, (name, spec) in enumerate(MODELS[model].items()):
        prop: dict[str, Any] = {"title": name.replace("_", " ").title(), "x-order": order}
        if spec.get("default") is not None:
            prop["default"] = spec["default"]
        if spec.get("enum"):
            schemas[name] = {"title": name, "enum": spec["enum"], "type": spec["type"],
                             "description": "An enumeration."}  # fmt: skip
            prop["allOf"] = [{"$ref": f"#/components/schemas/{name}"}]
        else:
            prop["type"] = spec["type"]
            for key in ("format", "minimum", "maximum"):
                if key in spec:
                    prop[key] = spec[key]
        if spec.get("required"):
            required.append(name)
        properties[name] = prop
    schemas["Input"] = {"type": "object", "title": "Input", "required": required,
                        "properties": properties}  # fmt: skip
    return {"openapi": "3.0.2", "info": {"title": "Cog", "version": "0.1.0"},
            "paths": {}, "components": {"schemas": schemas}}  # fmt: skip


@dataclass
class ReplicateFake:
    api_token: str = "test-key"
    polls_to_finish: int = 2  # polls in `processing` before `succeeded`
    moderate_prompts_containing: str | None = "forbidden"
    never_finish: bool = False
    fail_jobs_with: str | None = None
    abort_next: int = 0
    out_of_credits: bool = False
    webhook_secret: str = field(
        default_factory=lambda: "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    )
    plan: FaultPlan = field(default_factory=FaultPlan)
    created: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (model, body)
    canceled: list[str] = field(default_factory=list)
    predictions: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, tuple[bytes, dict[str, Any]]] = field(default_factory=dict)
    webhooks_sent: list[str] = field(default_factory=list)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def submitted(self) -> list[dict[str, Any]]:
        """The `input` of every accepted create, in order (what the controls harness reads)."""
        return [body["input"] for _, body in self.created]

    def app(self) -> FaultInjector:
        routes = [
            Route("/v1/models/{owner}/{name}/predictions", self._create_official, methods=["POST"]),
            Route("/v1/models/{owner}/{name}", self._model, methods=["GET"]),
            Route("/v1/predictions", self._create_version, methods=["POST"]),
            Route("/v1/predictions/{id}", self._get, methods=["GET"]),
            Route("/v1/predictions/{id}/cancel", self._cancel, methods=["POST"]),
            Route("/v1/webhooks/default/secret", self._secret, methods=["GET"]),
            Route("/v1/files", self._upload, methods=["POST"]),
            Route("/v1/files/{id}", self._file, methods=["GET"]),
            Route("/delivery/{id}/output.mp4", self._video, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints ------------------------------------------------------------------------

    async def _create_official(self, request: Request) -> Response:
        model = f"{request.path_params['owner']}/{request.path_params['name']}"
        return await self._create(request, model)

    async def _create_version(self, request: Request) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        body = await _json(request)
        version = body.get("version") if isinstance(body, dict) else None
        model = next(
            (m for m in MODELS if version in (m, _version_id(m), f"{m}:{_version_id(m)}")), None
        )
        if model is None:
            return _problem(422, "Invalid version or not permitted",
                            "The specified version does not exist (or perhaps you don't have "
                            "permission to use it?)")  # fmt: skip
        return await self._create(request, model)

    async def _create(self, request: Request, model: str) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        if model not in MODELS:
            return _problem(404, "Not found", "The requested resource could not be found.")
        body = await _json(request)
        if not isinstance(body, dict):
            return _problem(400, "Bad request", "The request body must be a JSON object")
        problems = _validate(model, body.get("input"))
        if problems:
            detail = "\n".join(f"- {p['field']}: {p['description']}" for p in problems)
            return _problem(422, "Input validation failed", detail, invalid_fields=problems)
        if self.out_of_credits:
            return _problem(402, **_fields(NO_CREDIT))
        inputs = body["input"]
        failure = self.fail_jobs_with
        keyword = self.moderate_prompts_containing
        if keyword and keyword.lower() in str(inputs.get("prompt", "")).lower():
            failure = failure or E005
        for name, value in inputs.items():
            is_image = "image" in name or name.endswith("frame")
            if (
                is_image
                and MODELS[model][name].get("format") == "uri"
                and not await self._readable_image(str(value), str(request.base_url))
            ):
                failure = failure or BAD_IMAGE.format(field=name)
        status = "aborted" if self.abort_next > 0 else None
        self.abort_next = max(0, self.abort_next - 1)
        prediction_id = "".join(
            secrets.choice(string.ascii_lowercase + string.digits) for _ in range(26)
        )
        base = str(request.base_url).rstrip("/")
        self.created.append((model, body))
        self.predictions[prediction_id] = {
            "id": prediction_id,
            "model": model,
            "version": "hidden",
            "input": inputs,
            "logs": "",
            "output": None,
            "data_removed": False,
            "error": None,
            "status": "starting",
            "created_at": _now(),
            "started_at": None,
            "completed_at": None,
            "metrics": {},
            "urls": {
                "cancel": f"{base}/v1/predictions/{prediction_id}/cancel",
                "get": f"{base}/v1/predictions/{prediction_id}",
                "web": f"https://replicate.com/p/{prediction_id}",
            },
            "_polls": 0,
            "_failure": failure,
            "_end": status,
            "_webhook": body.get("webhook"),
            "_base": base,
        }
        return JSONResponse(_public(self.predictions[prediction_id]), status_code=201)

    async def _get(self, request: Request) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        prediction = self.predictions.get(request.path_params["id"])
        if prediction is None:
            return _problem(404, "Not found", "The requested resource could not be found.")
        self._advance(prediction)
        return JSONResponse(_public(prediction))

    async def _cancel(self, request: Request) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        prediction = self.predictions.get(request.path_params["id"])
        if prediction is None:
            return _problem(404, "Not found", "The requested resource could not be found.")
        self.canceled.append(prediction["id"])
        if prediction["status"] not in _TERMINAL:
            prediction.update(status="canceled", completed_at=_now())
        return JSONResponse(_public(prediction))

    async def _model(self, request: Request) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        owner, name = request.path_params["owner"], request.path_params["name"]
        model = f"{owner}/{name}"
        if model not in MODELS:
            return _problem(404, "Not found", "The requested resource could not be found.")
        version = {"id": _version_id(model), "created_at": "2026-01-15T10:00:00.000000Z",
                   "cog_version": "0.14.1", "openapi_schema": openapi_schema(model)}  # fmt: skip
        return JSONResponse(
            {"url": f"https://replicate.com/{model}", "owner": owner, "name": name,
             "description": f"{model}, an official model", "visibility": "public",
             "github_url": None, "paper_url": None, "license_url": None, "run_count": 4321,
             "cover_image_url": None, "default_example": None, "is_official": True,
             "latest_version": version}
        )  # fmt: skip

    async def _secret(self, request: Request) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        return JSONResponse({"key": self.webhook_secret})

    async def _upload(self, request: Request) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        form = await request.form()
        content = form.get("content")
        if content is None or isinstance(content, str):
            return _problem(400, "Bad request", "The multipart part `content` is required")
        data = await content.read()
        file_id = secrets.token_hex(8)
        base = str(request.base_url).rstrip("/")
        record = {
            "id": file_id,
            "name": content.filename or "file",
            "content_type": content.content_type or "application/octet-stream",
            "size": len(data),
            "etag": hashlib.md5(data).hexdigest(),
            "checksums": {"sha256": hashlib.sha256(data).hexdigest()},
            "metadata": json.loads(str(form.get("metadata") or "{}")),
            "created_at": _now(),
            "expires_at": None,
            "urls": {"get": f"{base}/v1/files/{file_id}"},
        }
        self.files[file_id] = (data, record)
        return JSONResponse(record, status_code=201)

    async def _file(self, request: Request) -> Response:
        if not self._authorised(request):
            return _problem(401, **_fields(UNAUTHENTICATED))
        found = self.files.get(request.path_params["id"])
        if found is None:
            return _problem(404, "Not found", "The requested resource could not be found.")
        return JSONResponse(found[1])

    async def _video(self, request: Request) -> Response:
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour -------------------------------------------------------------------------

    def _authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") in (
            f"Bearer {self.api_token}",
            f"Token {self.api_token}",
        )

    def _advance(self, prediction: dict[str, Any]) -> None:
        if prediction["status"] in _TERMINAL:
            return
        polls = prediction["_polls"]
        prediction["_polls"] = polls + 1
        if polls == 0:
            return  # still starting on the first look
        if prediction["_end"] == "aborted":
            prediction.update(status="aborted", completed_at=_now())
            return
        prediction["started_at"] = prediction["started_at"] or _now()
        if prediction["_failure"] is not None:
            prediction.update(status="failed", error=prediction["_failure"], completed_at=_now())
            self._notify(prediction)
            return
        total = self.polls_to_finish + 1
        if self.never_finish or polls <= self.polls_to_finish:
            done = min(polls, total - 1)
            bar = "█" * done + " " * (total - done)
            prediction["logs"] += f"{done * 100 // total:3d}%|{bar}| {done}/{total} [00:0{done}]\n"
            prediction["status"] = "processing"
            return
        prediction.update(
            status="succeeded",
            output=f"{prediction['_base']}/delivery/{prediction['id']}/output.mp4",
            metrics={"predict_time": 41.7, "total_time": 43.2},
            completed_at=_now(),
        )
        self._notify(prediction)

    def _notify(self, prediction: dict[str, Any]) -> None:
        url = prediction["_webhook"]
        if not url:
            return
        body = json.dumps(_public(prediction))
        message_id = f"msg_{secrets.token_hex(12)}"
        now = datetime.now(UTC)
        headers = {
            "content-type": "application/json",
            "webhook-id": message_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(self.webhook_secret).sign(message_id, now, body),
        }

        async def deliver() -> None:
            async with httpx.AsyncClient(timeout=5.0, trust_env=False) as client:
                await client.post(url, content=body, headers=headers)
            self.webhooks_sent.append(prediction["id"])

        task = asyncio.get_running_loop().create_task(deliver())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _readable_image(self, value: str, base: str) -> bool:
        data = b""
        if value.startswith("data:"):
            _, _, payload = value.partition(",")
            try:
                data = base64.b64decode(payload, validate=True)
            except ValueError:
                return False
        elif value.startswith(base.rstrip("/") + "/v1/files/"):
            found = self.files.get(value.rsplit("/", 1)[-1])
            data = found[0] if found else b""
        elif value.startswith(("http://", "https://")):
            try:
                async with httpx.AsyncClient(timeout=5.0, trust_env=False) as client:
                    response = await client.get(value)
            except httpx.HTTPError:
                return False
            data = response.content if response.status_code == 200 else b""
        return data.startswith((_PNG, _JPEG))


def _public(prediction: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in prediction.items() if not k.startswith("_")}


def _fields(problem: dict[str, Any]) -> dict[str, Any]:
    return {"title": problem["title"], "detail": problem["detail"]}


async def _json(request: Request) -> Any:
    try:
        return await request.json()
    except ValueError:
        return None
