"""A fake of Luma AI's Dream Machine API (what the lumaai SDK 1.21.0 speaks).

- `POST /dream-machine/v1/generations/video` (and the older `/generations`): 201 with a
  Generation in state `queued`; `{"detail": ...}` bodies for 400 / 401. The body is checked
  against the SDK's VideoCreateParams (fields, values, keyframes); `submitted` keeps each
  accepted body.
- `GET /dream-machine/v1/generations/{id}`: `queued` on the first poll, then `dreaming` for
  `polls_to_finish` polls, then `completed` with `assets.video`, or `failed` with a
  `failure_reason`. Luma fetches keyframe images itself: so does the fake, at create time.
- `DELETE /dream-machine/v1/generations/{id}`: 204, then the generation is gone (404).
- `GET /cdn/{id}.mp4`: the video (public, like Luma's CDN), a real small MP4.
- `POST /dream-machine/v1/generations/video/modify`: a modify (`luma_inputs.py`), polled like
  any generation; a `generation` keyframe must name a completed generation of the fake (an
  extension answers the new clip only).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes import luma_inputs
from tests.fakes.base import (
    FaultInjector,
    FaultPlan,
    has_credential,
    sample_mp4,
    serves_an_image,
)

API = "/dream-machine/v1"
MODELS = ("ray-2", "ray-flash-2")
ASPECT_RATIOS = ("1:1", "16:9", "9:16", "4:3", "3:4", "21:9", "9:21")
DURATIONS = ("5s", "9s")
RESOLUTIONS = ("540p", "720p", "1080p", "4k")
# lumaai 1.21.0 VideoCreateParams: a field outside it (a seed, a negative prompt) is refused
# here (Luma's own answer to an unknown field is unpublished).
FIELDS = {
    "model",
    "prompt",
    "generation_type",
    "aspect_ratio",
    "duration",
    "resolution",
    "loop",
    "keyframes",
    "callback_url",
    "concepts",
}
BAD_KEY = {"detail": "Invalid API key is provided"}
MODERATION_FAILED = "Advanced moderation failed"
IMAGE_FAILED = "400: failed to moderate image"


@dataclass
class LumaFake:
    api_key: str = "test-key"
    polls_to_finish: int = 2  # polls in `dreaming` before `completed`
    moderate_prompts_containing: str | None = "forbidden"
    moderate_at_create: bool = False  # refuse with a 400 instead of failing the generation
    never_finish: bool = False
    fail_jobs_with: str | None = None  # a failure_reason for every new generation
    out_of_credits: bool = False
    plan: FaultPlan = field(default_factory=FaultPlan)
    submitted: list[dict[str, Any]] = field(default_factory=list)  # accepted request bodies
    deleted: list[str] = field(default_factory=list)
    generations: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def created(self) -> list[dict[str, Any]]:
        return self.submitted

    def app(self) -> FaultInjector:
        routes = [
            Route(f"{API}/generations/video/modify", self._modify, methods=["POST"]),
            Route(f"{API}/generations/video", self._create, methods=["POST"]),
            Route(f"{API}/generations", self._create, methods=["POST"]),
            Route(f"{API}/generations/{{id}}", self._get, methods=["GET"]),
            Route(f"{API}/generations/{{id}}", self._delete, methods=["DELETE"]),
            Route("/cdn/{id}.mp4", self._video, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints ------------------------------------------------------------------------

    async def _read(self, request: Request) -> tuple[Any, Response | None]:
        """The request's JSON body, or the answer Luma gives a bad key or a body not JSON."""
        if not self._authorised(request):
            return None, JSONResponse(BAD_KEY, status_code=401)
        try:
            return await request.json(), None
        except ValueError:
            return None, _detail(400, "Invalid JSON body")

    async def _create(self, request: Request) -> Response:
        body, refused = await self._read(request)
        if refused is not None:
            return refused
        problem = _validate(body)
        if problem is None:
            problem = luma_inputs.check_generation_frames(body, self.generations)
        if problem is not None:
            return _detail(400, problem)
        if self.out_of_credits:
            return _detail(400, "Insufficient credits: please top up your API balance")
        prompt = str(body.get("prompt", ""))
        flagged = bool(self.moderate_prompts_containing) and (
            str(self.moderate_prompts_containing).lower() in prompt.lower()
        )
        if flagged and self.moderate_at_create:
            return _detail(400, "Prompt not allowed because advanced moderation failed")
        failure = self.fail_jobs_with or (MODERATION_FAILED if flagged else None)
        frames = body.get("keyframes") or {}
        for frame in frames.values():
            if frame.get("type") == "image" and not await serves_an_image(frame["url"]):
                failure = failure or IMAGE_FAILED
        return self._accept(body, failure)

    async def _modify(self, request: Request) -> Response:
        body, refused = await self._read(request)
        if refused is not None:
            return refused
        if (problem := await luma_inputs.check_modify(body)) is not None:
            return _detail(400, problem)
        return self._accept(body, self.fail_jobs_with)

    def _accept(self, body: dict[str, Any], failure: str | None) -> Response:
        generation_id = str(uuid.uuid4())
        kind = body.get("generation_type", "video")
        request_echo = {"generation_type": kind, **body}
        self.submitted.append(body)
        self.generations[generation_id] = {
            "id": generation_id,
            "generation_type": kind,
            "state": "queued",
            "failure_reason": None,
            "created_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "assets": None,
            "model": body["model"],
            "request": request_echo,
            "_polls": 0,
            "_failure": failure,
        }
        return JSONResponse(_public(self.generations[generation_id]), status_code=201)

    async def _get(self, request: Request) -> Response:
        if not self._authorised(request):
            return JSONResponse(BAD_KEY, status_code=401)
        generation = self.generations.get(request.path_params["id"])
        if generation is None:
            return _detail(404, "Generation not found")
        self._advance(generation, str(request.base_url).rstrip("/"))
        return JSONResponse(_public(generation))

    async def _delete(self, request: Request) -> Response:
        if not self._authorised(request):
            return JSONResponse(BAD_KEY, status_code=401)
        generation_id = request.path_params["id"]
        if self.generations.pop(generation_id, None) is None:
            return _detail(404, "Generation not found")
        self.deleted.append(generation_id)
        return Response(status_code=204)

    async def _video(self, request: Request) -> Response:
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour -------------------------------------------------------------------------

    def _authorised(self, request: Request) -> bool:
        return has_credential(request, self.api_key)

    def _advance(self, generation: dict[str, Any], base: str) -> None:
        if generation["state"] in ("completed", "failed"):
            return
        polls = generation["_polls"]
        generation["_polls"] = polls + 1
        if polls == 0:
            return  # still queued on the first look
        if generation["_failure"] is not None:
            generation["state"] = "failed"
            generation["failure_reason"] = generation["_failure"]
            return
        if self.never_finish or polls <= self.polls_to_finish:
            generation["state"] = "dreaming"
            return
        generation["state"] = "completed"
        generation["assets"] = {
            "video": f"{base}/cdn/{generation['id']}.mp4",
            "image": None,
            "progress_video": None,
        }


def _public(generation: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in generation.items() if not k.startswith("_")}


def _detail(status: int, message: str) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=status)


def _validate(body: object) -> str | None:
    """The checks Luma makes on a video request (messages are ours: Luma's are unpublished)."""
    if not isinstance(body, dict):
        return "The request body must be a JSON object"
    if body.get("model") not in MODELS:
        return f"model must be one of {', '.join(MODELS)}"
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        return f"Unknown fields: {', '.join(unknown)}"
    if "loop" in body and not isinstance(body["loop"], bool):
        return "loop must be a boolean"
    checks = (
        ("aspect_ratio", ASPECT_RATIOS),
        ("duration", DURATIONS),
        ("resolution", RESOLUTIONS),
        ("generation_type", ("video",)),
    )
    for name, allowed in checks:
        if name in body and body[name] not in allowed:
            return f"{name} must be one of {', '.join(allowed)}"
    if "prompt" in body and not isinstance(body["prompt"], str):
        return "prompt must be a string"
    keyframes = body.get("keyframes")
    if keyframes is None:
        return None
    if not isinstance(keyframes, dict) or not set(keyframes) <= {"frame0", "frame1"}:
        return "keyframes takes frame0 and frame1"
    for frame in keyframes.values():
        if not isinstance(frame, dict):
            return "a keyframe must be an object"
        if frame.get("type") == "image" and isinstance(frame.get("url"), str):
            continue
        if frame.get("type") == "generation" and isinstance(frame.get("id"), str):
            continue
        return "a keyframe is {type: image, url} or {type: generation, id}"
    return None
