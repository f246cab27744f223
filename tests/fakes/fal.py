"""A fake of fal.ai's queue API and platform API (what fal-client 1.0.3 speaks).

Queue (`queue.fal.run`), key in `Authorization: Key <key>`:
- `POST /{app_id}[?fal_webhook=]`: the model's input JSON -> `{status: IN_QUEUE, request_id,
  response_url, status_url, cancel_url, queue_position}`; the request URLs name only the
  app's owner and alias (`/fal-ai/kling-video/requests/{id}`), as fal's do. Unknown apps
  answer 404. fal checks inputs when the app runs: a bad input, a moderated prompt or an
  image the app cannot read ends the run COMPLETED with an `error`, and the result answers
  422 with `{"detail": [{loc, msg, type, url, input}]}`.
- `GET .../requests/{id}/status[?logs=1]`: IN_QUEUE on the first poll, IN_PROGRESS for
  `polls_to_finish` polls, then COMPLETED (`logs`, `metrics`, and `error`/`error_type`).
- `GET .../requests/{id}`: the output `{"video": {url, content_type, file_name, file_size}}`
  or the run's error; 400 while the run is not finished.
- `PUT .../requests/{id}/cancel`: 202 CANCELLATION_REQUESTED, 400 ALREADY_COMPLETED or 404.
- `GET /cdn/{id}.mp4`: the video, without the key (fal's CDN).
Platform (`api.fal.ai`): `GET /v1/models/pricing?endpoint_id=...` and
`GET /v1/models?endpoint_id=...&expand=openapi-3.0` for the apps in `APPS`.
Scenario knobs: `polls_to_finish`, `never_finish`, `moderate_prompts_containing`,
`moderate_at_submit`, `reject_images`, `fail_jobs_with` ((status, body) every run ends with), `out_of_balance` (403 to everything),
`result_errors` (the next result fetches answer a gateway's 5xx page).
Every answer about a request carries `x-fal-request-id`.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import (
    FaultInjector,
    FaultPlan,
    has_credential,
    is_png_or_jpeg,
    sample_mp4,
    serves_an_image,
)
from tests.fakes.fal_inputs import TYPED_APPS, Urls

BAD_KEY = {"detail": "Authentication is required to access this application."}  # unconfirmed
LOCKED = {"detail": "User is locked. Reason: Exhausted balance. Top up your balance at fal.ai."}
FLAGGED = (
    "The content could not be processed because it contained material flagged by a content checker."
)
STR = "string"
INT = "integer"
SEC = "seconds"
RATIOS3 = ("16:9", "9:16", "1:1")
SEEDANCE_RATIOS = ("21:9", "16:9", "4:3", "1:1", "3:4", "9:16")
LUMA_RATIOS = ("16:9", "9:16", "4:3", "3:4", "21:9", "9:21")


URL = "url"  # an input spec: a URL (http(s) or data:) the runner fetches
InputSpec = type | str | tuple[Any, ...] | Urls  # a JSON type, URL, allowed values, URL list


@dataclass(frozen=True)
class App:
    """One fal endpoint as its llms.txt page describes its input (the fields we use)."""

    durations: tuple[int, ...]
    duration_kind: str = STR  # "5" / 5 / "5s"
    ratios: tuple[str, ...] | None = RATIOS3  # None: no aspect_ratio input
    image_field: str | None = None  # required on image-to-video endpoints
    price: tuple[float, str] = (0.1, "second")  # what the pricing API answers
    inputs: dict[str, InputSpec] = field(default_factory=dict)  # its other optional inputs
    required: tuple[str, ...] = ()  # inputs it cannot run without (typed apps: fal_inputs.py)
    output_seconds: float = 1.0  # its video's length (an extension answered whole: longer)
    takes_duration: bool = True  # False: an edit as long as its source (no duration input)


def _pair(
    t2v: str, i2v: str, app: App, image_field: str = "image_url", **i2v_changes: Any
) -> dict[str, App]:
    i2v_app = App(**{**app.__dict__, "image_field": image_field, **i2v_changes})
    return {t2v: app, i2v: i2v_app}


# The optional inputs of each family (fal.ai/models/<app>/llms.txt, read 2026-11-23; the
# tables are in docs/providers/fal.md).
KLING: dict[str, InputSpec] = {"negative_prompt": str, "cfg_scale": float}
KLING_AUDIO: dict[str, InputSpec] = {**KLING, "generate_audio": bool}
HAILUO: dict[str, InputSpec] = {"prompt_optimizer": bool}
SEEDANCE: dict[str, InputSpec] = {
    "resolution": ("480p", "720p", "1080p"),
    "seed": int,
    "camera_fixed": bool,
}
WAN: dict[str, InputSpec] = {
    "resolution": ("480p", "720p", "1080p"),
    "negative_prompt": str,
    "seed": int,
}
LUMA: dict[str, InputSpec] = {"resolution": ("540p", "720p", "1080p"), "loop": bool}
VEO: dict[str, InputSpec] = {
    "resolution": ("720p", "1080p", "4k"),
    "generate_audio": bool,
    "negative_prompt": str,
    "seed": int,
    "auto_fix": bool,
}
_K3 = App(tuple(range(3, 16)), price=(0.224, "second"), inputs=KLING_AUDIO)
APPS: dict[str, App] = {
    **_pair(
        "fal-ai/kling-video/v2.1/master/text-to-video",
        "fal-ai/kling-video/v2.1/master/image-to-video",
        App((5, 10), price=(0.28, "second"), inputs=KLING),
        ratios=None,
    ),
    **_pair(
        "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
        "fal-ai/kling-video/v2.5-turbo/pro/image-to-video",
        App((5, 10), price=(0.07, "second"), inputs=KLING),
        ratios=None,
    ),
    **_pair(
        "fal-ai/kling-video/v2.6/pro/text-to-video",
        "fal-ai/kling-video/v2.6/pro/image-to-video",
        App((5, 10), price=(0.07, "second"), inputs=KLING_AUDIO),
        "start_image_url",
        ratios=None,
    ),
    **_pair(
        "fal-ai/kling-video/v3/pro/text-to-video",
        "fal-ai/kling-video/v3/pro/image-to-video",
        _K3,
        "start_image_url",
        ratios=None,
        inputs={**KLING_AUDIO, "end_image_url": URL},
    ),
    **_pair(
        "fal-ai/minimax/hailuo-02/standard/text-to-video",
        "fal-ai/minimax/hailuo-02/standard/image-to-video",
        App((6, 10), ratios=None, price=(0.045, "second"), inputs=HAILUO),
    ),
    **_pair(
        "fal-ai/minimax/hailuo-2.3/standard/text-to-video",
        "fal-ai/minimax/hailuo-2.3/standard/image-to-video",
        App((6, 10), ratios=None, price=(0.28, "video"), inputs=HAILUO),
    ),
    "fal-ai/minimax/hailuo-2.3-fast/standard/image-to-video": App(
        (6, 10), ratios=None, image_field="image_url", price=(0.19, "video"), inputs=HAILUO
    ),
    **_pair(
        "fal-ai/bytedance/seedance/v1/pro/text-to-video",
        "fal-ai/bytedance/seedance/v1/pro/image-to-video",
        App(tuple(range(3, 13)), ratios=SEEDANCE_RATIOS, inputs=SEEDANCE),
    ),
    **_pair(
        "fal-ai/bytedance/seedance/v1/pro/fast/text-to-video",
        "fal-ai/bytedance/seedance/v1/pro/fast/image-to-video",
        App(tuple(range(2, 13)), ratios=SEEDANCE_RATIOS, inputs=SEEDANCE),
    ),
    **_pair(
        "fal-ai/bytedance/seedance/v1.5/pro/text-to-video",
        "fal-ai/bytedance/seedance/v1.5/pro/image-to-video",
        App(
            tuple(range(4, 13)),
            ratios=SEEDANCE_RATIOS,
            inputs={**SEEDANCE, "resolution": ("480p", "720p"), "generate_audio": bool},
        ),
    ),
    **_pair(
        "bytedance/seedance-2.0/text-to-video",
        "bytedance/seedance-2.0/image-to-video",
        App(
            tuple(range(4, 16)),
            ratios=SEEDANCE_RATIOS,
            price=(0.3034, "second"),
            inputs={"resolution": ("480p", "720p")},
        ),
    ),
    **_pair(
        "bytedance/seedance-2.0/fast/text-to-video",
        "bytedance/seedance-2.0/fast/image-to-video",
        App(tuple(range(4, 16)), ratios=SEEDANCE_RATIOS, inputs={"resolution": ("480p", "720p")}),
    ),
    **_pair(
        "fal-ai/wan-25-preview/text-to-video",
        "fal-ai/wan-25-preview/image-to-video",
        App((5, 10), inputs={**WAN, "enable_prompt_expansion": bool}),
        ratios=None,
    ),
    **_pair(
        "fal-ai/wan/v2.7/text-to-video",
        "fal-ai/wan/v2.7/image-to-video",
        App(
            tuple(range(2, 16)),
            INT,
            ("16:9", "9:16", "1:1", "4:3", "3:4"),
            inputs={**WAN, "resolution": ("720p", "1080p")},
        ),
        ratios=None,
    ),
    **_pair(
        "fal-ai/luma-dream-machine/ray-2",
        "fal-ai/luma-dream-machine/ray-2/image-to-video",
        App((5, 9), SEC, LUMA_RATIOS, inputs=LUMA),
        inputs={**LUMA, "end_image_url": URL},
    ),
    **_pair(
        "fal-ai/luma-dream-machine/ray-2-flash",
        "fal-ai/luma-dream-machine/ray-2-flash/image-to-video",
        App((5, 9), SEC, LUMA_RATIOS, inputs=LUMA),
        inputs={**LUMA, "end_image_url": URL},
    ),
    **_pair(
        "fal-ai/veo3.1",
        "fal-ai/veo3.1/image-to-video",
        App((4, 6, 8), SEC, ("16:9", "9:16"), price=(0.4, "second"), inputs=VEO),
        ratios=("auto", "16:9", "9:16"),
    ),
    **_pair(
        "fal-ai/veo3.1/fast",
        "fal-ai/veo3.1/fast/image-to-video",
        App((4, 6, 8), SEC, ("16:9", "9:16"), inputs=VEO),
        ratios=("auto", "16:9", "9:16"),
    ),
}

# Lightricks LTX-2.3 and PixVerse (fal.ai/models/<app>/llms.txt, read 2026-11-27; the V6
# apps' pages could not be read: their inputs are V5.6's with V6's durations and ratios).
LTX23: dict[str, InputSpec] = {
    "resolution": ("1080p", "1440p", "2160p"),
    "fps": (24, 25, 48, 50),
    "generate_audio": bool,
}
PIXVERSE: dict[str, InputSpec] = {
    "resolution": ("360p", "540p", "720p", "1080p"),
    "negative_prompt": str,
    "seed": int,
    "style": ("anime", "3d_animation", "clay", "comic", "cyberpunk"),
    "generate_audio_switch": bool,
}
PIXVERSE_RATIOS = ("16:9", "4:3", "1:1", "3:4", "9:16")
APPS.update(
    {
        **_pair(
            "fal-ai/ltx-2.3/text-to-video/fast",
            "fal-ai/ltx-2.3/image-to-video/fast",
            App(
                tuple(range(6, 21, 2)), INT, ("16:9", "9:16"), price=(0.04, "second"), inputs=LTX23
            ),
            durations=(6, 8, 10),
            ratios=None,
            inputs={**LTX23, "end_image_url": URL},
        ),
        **_pair(
            "fal-ai/ltx-2.3/text-to-video",
            "fal-ai/ltx-2.3/image-to-video",
            App((6, 8, 10), INT, ("16:9", "9:16"), price=(0.08, "second"), inputs=LTX23),
            ratios=None,
            price=(0.06, "second"),
            inputs={**LTX23, "end_image_url": URL},
        ),
        **_pair(
            "fal-ai/pixverse/v6/text-to-video",
            "fal-ai/pixverse/v6/image-to-video",
            App(
                tuple(range(1, 16)),
                INT,
                (*PIXVERSE_RATIOS, "2:3", "3:2", "21:9"),
                price=(0.045, "second"),
                inputs=PIXVERSE,
            ),
            ratios=None,
        ),
        **_pair(
            "fal-ai/pixverse/v5.6/text-to-video",
            "fal-ai/pixverse/v5.6/image-to-video",
            App((5, 8, 10), STR, PIXVERSE_RATIOS, price=(0.09, "second"), inputs=PIXVERSE),
            ratios=None,
        ),
    }
)


@dataclass
class Job:
    id: str
    app: str
    body: dict[str, Any]
    webhook: str | None
    polls: int = 0
    state: str = "IN_QUEUE"
    failure: tuple[int, dict[str, Any]] | None = None  # (result status, result body)


@dataclass
class FalFake:
    api_key: str = "test-key"
    polls_to_finish: int = 2  # IN_PROGRESS polls before COMPLETED
    never_finish: bool = False
    moderate_prompts_containing: str | None = "forbidden"
    moderate_at_submit: bool = False  # refuse a flagged prompt with the submit's 422
    fail_jobs_with: tuple[int, dict[str, Any]] | None = None  # every run ends with this
    out_of_balance: bool = False
    reject_images: bool = False  # the app cannot read any image (image_load_error)
    result_errors: list[int] = field(default_factory=list)  # next result fetches: a proxy's 5xx
    plan: FaultPlan = field(default_factory=FaultPlan)
    jobs: dict[str, Job] = field(default_factory=dict)
    cancelled: list[str] = field(default_factory=list)

    def app(self) -> FaultInjector:
        base = "/{owner}/{alias}/requests/{request_id}"
        routes = [
            Route("/v1/models/pricing", self._pricing, methods=["GET"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/cdn/{request_id}.mp4", self._video, methods=["GET"]),
            Route(f"{base}/status", self._status, methods=["GET"]),
            Route(f"{base}/cancel", self._cancel, methods=["PUT"]),
            Route(base, self._result, methods=["GET"]),
            Route("/{app:path}", self._submit, methods=["POST"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    @property
    def submissions(self) -> list[tuple[str, dict[str, Any]]]:
        """(app, input) of every accepted submit, in order."""
        return [(job.app, job.body) for job in self.jobs.values()]

    @property
    def submitted(self) -> list[dict[str, Any]]:
        """The input of every accepted submit, in order (what the controls harness reads)."""
        return [job.body for job in self.jobs.values()]

    # --- queue ----------------------------------------------------------------------------

    async def _submit(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        app = request.path_params["app"].strip("/")
        if app not in APPS:
            return JSONResponse({"detail": f"Application '{app}' not found"}, status_code=404)
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"detail": "Invalid JSON body"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"detail": "The input must be a JSON object"}, status_code=422)
        job = Job(uuid.uuid4().hex, app, body, request.query_params.get("fal_webhook"))
        job.failure = self.fail_jobs_with or await self._check(APPS[app], body)
        if self.moderate_at_submit and job.failure and "content_policy" in str(job.failure[1]):
            return _json(job.failure[1], None, job.failure[0])
        self.jobs[job.id] = job
        urls = self._urls(request, job)
        answer = {"status": "IN_QUEUE", "request_id": job.id, **urls, "queue_position": 0}
        return _json(answer, job.id)

    async def _status(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        job = self._job(request)
        if job is None:
            return _json({"detail": "Request not found"}, None, 404)
        self._advance(job)
        answer: dict[str, Any] = {"status": job.state, **self._urls(request, job)}
        logs: list[Any] | None = [] if request.query_params.get("logs") in ("1", "true") else None
        if job.state == "IN_QUEUE":
            answer["queue_position"] = 0
        else:
            answer["logs"] = logs
        if job.state == "COMPLETED":
            answer["metrics"] = {"inference_time": 1.5}
            if job.failure is not None:
                answer["error"] = _message(job.failure[1])
                answer["error_type"] = job.failure[1].get("error_type")
        return _json(answer, job.id)

    async def _result(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        job = self._job(request)
        if job is None:
            return _json({"detail": "Request not found"}, None, 404)
        if job.state != "COMPLETED":
            return _json({"detail": "Request is still in progress"}, job.id, 400)
        if self.result_errors:  # a gateway's answer: no request id, no fal error body
            page = b"<html><body>502 Bad Gateway</body></html>"
            return Response(page, status_code=self.result_errors.pop(0), media_type="text/html")
        if job.failure is not None:
            status, body = job.failure
            return _json(body, job.id, status)
        base = str(request.base_url).rstrip("/")
        video = sample_mp4(APPS[job.app].output_seconds)
        output = {
            "url": f"{base}/cdn/{job.id}.mp4",
            "content_type": "video/mp4",
            "file_name": "output.mp4",
            "file_size": len(video),
        }
        return _json({"video": output, "seed": 42}, job.id)

    async def _cancel(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        job = self._job(request)
        if job is None:
            return _json({"status": "NOT_FOUND"}, None, 404)
        if job.state == "COMPLETED":
            return _json({"status": "ALREADY_COMPLETED"}, job.id, 400)
        self.cancelled.append(job.id)
        job.state = "COMPLETED"
        detail = {"detail": "Request was cancelled", "error_type": "client_cancelled"}
        job.failure = (499, detail)
        return _json({"status": "CANCELLATION_REQUESTED"}, job.id, 202)

    async def _video(self, request: Request) -> Response:
        job = self.jobs.get(request.path_params["request_id"])
        seconds = APPS[job.app].output_seconds if job is not None else 1.0
        return Response(sample_mp4(seconds), media_type="video/mp4")

    # --- platform API ---------------------------------------------------------------------

    async def _pricing(self, request: Request) -> Response:
        if (denied := self._platform_auth(request)) is not None:
            return denied
        prices = [
            {
                "endpoint_id": e,
                "unit_price": APPS[e].price[0],
                "unit": APPS[e].price[1],
                "currency": "USD",
            }
            for e in _endpoint_ids(request)
            if e in APPS
        ]
        return JSONResponse({"prices": prices, "next_cursor": None, "has_more": False})

    async def _models(self, request: Request) -> Response:
        if (denied := self._platform_auth(request)) is not None:
            return denied
        expand = "openapi-3.0" in request.query_params.getlist("expand")
        models = []
        for endpoint in _endpoint_ids(request):
            if endpoint in APPS:
                item: dict[str, Any] = {
                    "endpoint_id": endpoint,
                    "metadata": {
                        "display_name": endpoint,
                        "category": "text-to-video",
                        "status": "active",
                    },
                }
                if expand:
                    item["openapi"] = _openapi(endpoint, APPS[endpoint])
                models.append(item)
        return JSONResponse({"models": models, "next_cursor": None, "has_more": False})

    # --- behaviour ------------------------------------------------------------------------

    def _auth(self, request: Request) -> Response | None:
        if not has_credential(request, self.api_key, "Key"):
            return JSONResponse(BAD_KEY, status_code=401)
        if self.out_of_balance:
            return JSONResponse(LOCKED, status_code=403)
        return None

    def _platform_auth(self, request: Request) -> Response | None:
        if not has_credential(request, self.api_key, "Key"):
            error = {"type": "authorization_error", "message": "Authentication required"}
            return JSONResponse({"error": error}, status_code=401)
        return None

    def _job(self, request: Request) -> Job | None:
        job = self.jobs.get(request.path_params["request_id"])
        owner_alias = f"{request.path_params['owner']}/{request.path_params['alias']}"
        if job is None or (not job.app.startswith(f"{owner_alias}/") and job.app != owner_alias):
            return None
        return job

    def _urls(self, request: Request, job: Job) -> dict[str, str]:
        owner_alias = "/".join(job.app.split("/")[:2])
        base = f"{str(request.base_url).rstrip('/')}/{owner_alias}/requests/{job.id}"
        return {
            "response_url": base,
            "status_url": f"{base}/status",
            "cancel_url": f"{base}/cancel",
        }

    def _advance(self, job: Job) -> None:
        if job.state == "COMPLETED":
            return
        job.polls += 1
        if job.polls == 1:
            return  # still in the queue on the first look
        if self.never_finish or job.polls <= self.polls_to_finish + 1:
            job.state = "IN_PROGRESS"
            return
        job.state = "COMPLETED"

    async def _check(self, app: App, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """What the app would answer to this input: a validation, moderation or image error."""
        problems: list[dict[str, Any]] = []
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            problems.append(_problem("prompt", "Field required", "missing", prompt))
        allowed = [_duration(d, app.duration_kind) for d in app.durations]
        if app.durations and "duration" in body and body["duration"] not in allowed:
            msg = "Input should be " + " or ".join(repr(a) for a in allowed)
            problems.append(_problem("duration", msg, "literal_error", body["duration"]))
        if "aspect_ratio" in body and (
            app.ratios is None or body["aspect_ratio"] not in app.ratios
        ):
            problems.append(
                _problem(
                    "aspect_ratio", "Unexpected aspect ratio", "literal_error", body["aspect_ratio"]
                )
            )
        known = {"prompt", "aspect_ratio", app.image_field, *app.inputs}
        if app.takes_duration:
            known.add("duration")
        for name in body:
            if name not in known:
                problems.append(
                    _problem(name, "Extra inputs are not permitted", "extra_forbidden", body[name])
                )
        for name, spec in app.inputs.items():
            if name in body and (problem := _bad_value(name, spec, body[name])) is not None:
                problems.append(problem)
        for name in app.required:
            if name not in body:
                problems.append(_problem(name, "Field required", "missing", None))
        if app.image_field is not None:
            image = body.get(app.image_field)
            if not isinstance(image, str):
                problems.append(_problem(app.image_field, "Field required", "missing", image))
            elif self.reject_images or not await _image_readable(image):
                problems.append(
                    _problem(app.image_field, "Image load error", "image_load_error", image)
                )
        if problems:
            return 422, {"detail": problems}
        words = self.moderate_prompts_containing
        if words and isinstance(prompt, str) and words.lower() in prompt.lower():
            return 422, {
                "detail": [_problem("prompt", FLAGGED, "content_policy_violation", prompt)]
            }
        return None


def _bad_value(name: str, spec: InputSpec, value: object) -> dict[str, Any] | None:
    """Pydantic's complaint about one optional input, as fal's apps answer it."""
    if isinstance(spec, Urls):
        msg = spec.problem(value)
        return None if msg is None else _problem(name, msg, "list_type", value)
    if isinstance(spec, tuple):
        if value in spec and not isinstance(value, bool):
            return None
        msg = "Input should be " + " or ".join(repr(v) for v in spec)
        return _problem(name, msg, "literal_error", value)
    if spec == URL:
        ok = isinstance(value, str) and value.startswith(("https://", "http://", "data:"))
        return None if ok else _problem(name, "Input should be a valid URL", "url_parsing", value)
    assert isinstance(spec, type), spec  # URL is the one string spec
    kinds = {bool: "bool", str: "string", int: "int", float: "float"}
    if spec is float and isinstance(value, int | float) and not isinstance(value, bool):
        return None
    if isinstance(value, spec) and (spec is bool or not isinstance(value, bool)):
        return None
    kind = kinds.get(spec, "value")
    return _problem(name, f"Input should be a valid {kind}", f"{kind}_type", value)


def _duration(seconds: int, kind: str) -> object:
    return {STR: str(seconds), INT: seconds, SEC: f"{seconds}s"}[kind]


def _problem(name: str, msg: str, kind: str, value: object) -> dict[str, Any]:
    return {
        "loc": ["body", name],
        "msg": msg,
        "type": kind,
        "url": f"https://docs.fal.ai/errors/#{kind}",
        "input": value,
    }


def _message(body: dict[str, Any]) -> str:
    detail = body.get("detail")
    if isinstance(detail, list) and detail and isinstance(detail[0], dict):
        return str(detail[0].get("msg"))
    return str(detail)


def _json(body: object, request_id: str | None, status: int = 200) -> JSONResponse:
    headers = {"x-fal-request-id": request_id} if request_id else None
    return JSONResponse(body, status_code=status, headers=headers)


def _endpoint_ids(request: Request) -> list[str]:
    ids: list[str] = []
    for value in request.query_params.getlist("endpoint_id"):
        ids += [v for v in value.split(",") if v]
    return ids


def _openapi(endpoint: str, app: App) -> dict[str, Any]:
    """An endpoint's OpenAPI 3.0 document, reduced to its input schema's shape."""
    values = [_duration(d, app.duration_kind) for d in app.durations]
    schemas: dict[str, Any] = {
        "DurationEnum": {
            "type": "string" if app.duration_kind != INT else "integer",
            "enum": values,
        },
        "Input": {
            "type": "object",
            "properties": {
                "prompt": {"type": "string"},
                "duration": {"allOf": [{"$ref": "#/components/schemas/DurationEnum"}]},
            },
            "required": ["prompt"],
        },
    }
    if app.ratios is not None:
        schemas["AspectRatioEnum"] = {"type": "string", "enum": list(app.ratios)}
        schemas["Input"]["properties"]["aspect_ratio"] = {
            "$ref": "#/components/schemas/AspectRatioEnum"
        }
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Input"}}}}
    return {
        "openapi": "3.0.4",
        "paths": {f"/{endpoint}": {"post": {"requestBody": body}}},
        "components": {"schemas": schemas},
    }


async def _image_readable(url: str) -> bool:
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            return False
        return header.endswith(";base64") and is_png_or_jpeg(data)
    return await serves_an_image(url)


# --- xAI Grok Imagine and Vidu Q3 apps (fal.ai/models/<app>/llms.txt; vidu.md, xai.md) -------
XAI_RATIOS = ("16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3")
VIDU_RATIOS = ("16:9", "9:16", "1:1", "4:3", "3:4")
_GROK = App(tuple(range(1, 16)), INT, XAI_RATIOS, inputs={"resolution": ("480p", "720p")})
_GROK_15 = App(
    tuple(range(1, 16)), INT, XAI_RATIOS, inputs={"resolution": ("480p", "720p", "1080p")}
)
_VIDU_Q3 = App(
    tuple(range(1, 17)),
    INT,
    VIDU_RATIOS,
    inputs={"resolution": ("540p", "720p", "1080p"), "audio": bool, "seed": int},
)
APPS.update(
    {
        **_pair(
            "xai/grok-imagine-video/text-to-video",
            "xai/grok-imagine-video/image-to-video",
            _GROK,
            ratios=("auto", *XAI_RATIOS),
        ),
        **_pair(
            "xai/grok-imagine-video/v1.5/text-to-video",
            "xai/grok-imagine-video/v1.5/image-to-video",
            _GROK_15,
            ratios=("auto", *XAI_RATIOS),
        ),
        **_pair(
            "fal-ai/vidu/q3/text-to-video/turbo",
            "fal-ai/vidu/q3/image-to-video/turbo",
            _VIDU_Q3,
            ratios=None,
        ),
        **_pair(
            "fal-ai/vidu/q3/text-to-video",
            "fal-ai/vidu/q3/image-to-video",
            _VIDU_Q3,
            ratios=None,
        ),
    }
)

# References, edits and extensions (tests/fakes/fal_inputs.py).
APPS.update({app_id: App(**spec) for app_id, spec in TYPED_APPS.items()})
