"""A chaos provider: an OpenAI-style `/v1/videos` upstream whose faults are set per test.

It speaks the same wire format as `openai_videos.py` (create as multipart or JSON, retrieve,
`/content`, delete; OpenAI's error body), so a catalog route of the generic `openai_videos`
adapter points at it. Every request may instead meet, in this order:

- an outage: inside a window of `outages` (seconds since the fake started, `(start, end)`,
  or a callable of that time) every request answers 503;
- latency: `latency` seconds, or a random time in `(low, high)`, before any answer;
- a random fault, drawn from one seeded RNG: 5xx (`error_rate`, a status of
  `error_statuses`), 429 with Retry-After (`rate_limit_rate`, `retry_after`), a timeout
  (`timeout_rate`: hang `hang_seconds`, then 504) or a dropped connection (`drop_rate`: half
  an answer, then the connection is cut). None of these does the work asked for: a create
  that meets one creates nothing;
- on create only, a lost answer (`lost_answer_rate`): the job IS accepted, then the
  connection is cut before the answer, as when a network or our own process dies mid-call.

`max_faults_per_request` bounds the random faults one generation meets here (counted by the
client request id of a create, the job's for its other calls), so that a test at a high
fault rate is not at the mercy of a rare long run of them; None leaves them unbounded. An accepted job runs until it has
been polled `polls_to_finish` times and `job_seconds` have passed; `job_failure_rate` of
jobs then end `failed` with a retryable code (at most `max_job_failures_per_request` times
per client request id, when set).

For checks: `accepted` (every job accepted: id, X-Client-Request-Id, when), `failed_jobs`,
`peak_running` (the most jobs queued or in progress at once), `faults` (a count per kind).

    python -m tests.fakes.chaos --port 9100 --error-rate 0.1 --rate-limit-rate 0.05 ...
serves it for a benchmark (`--help` lists the knobs) and prints its records on exit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import re
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from tests.fakes.base import has_credential, sample_mp4
from tests.fakes.openai_videos import (
    error_answer,
    json_answer,
    queued_video,
    request_id_header,
)

Window = tuple[float, float]
_VIDEO_PATH = re.compile(r"^/v1/videos/([^/]+)(/content)?$")
_RUNNING = ("queued", "in_progress")


@dataclass(frozen=True)
class Accepted:
    """One job the fake accepted (whether or not its answer reached the client)."""

    job_id: str
    client_request_id: str | None  # our generation id, from X-Client-Request-Id
    at: float  # time.monotonic()
    answer_lost: bool = False


@dataclass
class _Job:
    video: dict[str, Any]
    client_request_id: str | None
    accepted_at: float
    will_fail: bool
    polls: int = 0


@dataclass
class ChaosProvider:
    # --- knobs (change them at any time, also mid-test) -----------------------------------
    error_rate: float = 0.0
    error_statuses: tuple[int, ...] = (500, 502, 503)
    rate_limit_rate: float = 0.0
    retry_after: float = 1.0
    timeout_rate: float = 0.0
    hang_seconds: float = 2.0
    drop_rate: float = 0.0
    lost_answer_rate: float = 0.0
    latency: float | tuple[float, float] = 0.0
    outages: list[Window] | Callable[[float], bool] = field(default_factory=list)
    max_faults_per_request: int | None = None
    job_failure_rate: float = 0.0
    max_job_failures_per_request: int | None = None
    polls_to_finish: int = 1
    job_seconds: float = 0.0
    api_key: str | None = None  # None: any Bearer key (or none) is accepted
    seed: int = 0
    # --- records ----------------------------------------------------------------------------
    accepted: list[Accepted] = field(default_factory=list)
    failed_jobs: set[str] = field(default_factory=set)
    deleted: list[str] = field(default_factory=list)
    faults: Counter[str] = field(default_factory=Counter)
    requests: int = 0
    peak_running: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._started = time.monotonic()
        self._jobs: dict[str, _Job] = {}
        self._fault_counts: Counter[str] = Counter()
        self._job_failures: Counter[str] = Counter()

    def app(self) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        async def asgi(scope: Scope, receive: Receive, send: Send) -> None:
            await self._asgi(scope, receive, send)

        return asgi  # a plain function, which servers recognise as ASGI 3

    # --- outages ------------------------------------------------------------------------------

    def now(self) -> float:
        """Seconds since the fake started: the clock of `outages`."""
        return time.monotonic() - self._started

    def start_outage(self) -> None:
        """From now on every request answers 503, until `end_outage()`."""
        self._windows().append((self.now(), math.inf))

    def end_outage(self) -> None:
        now = self.now()
        windows = self._windows()
        windows[:] = [(start, min(end, now)) for start, end in windows]

    def in_outage(self) -> bool:
        now = self.now()
        if callable(self.outages):
            return bool(self.outages(now))
        return any(start <= now < end for start, end in self.outages)

    def _windows(self) -> list[Window]:
        if callable(self.outages):
            raise TypeError("outages is a callable here: change it instead")
        return self.outages

    # --- records ------------------------------------------------------------------------------

    def running(self) -> int:
        return sum(1 for job in self._jobs.values() if job.video["status"] in _RUNNING)

    def accepted_for(self, client_request_id: str) -> list[Accepted]:
        return [a for a in self.accepted if a.client_request_id == client_request_id]

    def report(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "faults": dict(self.faults),
            "accepted": [asdict(a) for a in self.accepted],
            "failed_jobs": sorted(self.failed_jobs),
            "peak_running": self.peak_running,
        }

    # --- HTTP ---------------------------------------------------------------------------------

    async def _asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        self.requests += 1
        request = Request(scope, receive)
        delay = self._latency()
        if delay > 0:
            await asyncio.sleep(delay)
        if self.in_outage():
            self.faults["outage"] += 1
            await error_answer(503, "The server is temporarily unavailable.", "server_error")(
                scope, receive, send
            )
            return
        response = await self._answer(request, send)
        if response is not None:
            await response(scope, receive, send)

    async def _answer(self, request: Request, send: Send) -> Response | None:
        """The response, or None when the connection was cut (the answer already sent)."""
        if (denied := self._check_auth(request)) is not None:
            return denied
        method, path = request.method, request.url.path
        match = _VIDEO_PATH.match(path)
        kinds = ["5xx", "429", "timeout", "drop"]
        # An extension (OpenAI's `POST /v1/videos/extensions`) is a job like any other here:
        # its content is the sample clip, the segment added.
        creates = path in ("/v1/videos", "/v1/videos/extensions") and method == "POST"
        if creates:
            subject = request.headers.get("x-client-request-id") or "-"
            kinds.append("lost_answer")
        elif match is not None and (method == "GET" or (method, match[2]) == ("DELETE", None)):
            job = self._jobs.get(match[1])
            subject = (job.client_request_id if job else None) or match[1]
        else:
            return error_answer(404, f"Invalid URL ({method} {path})")
        fault = self._draw(subject, kinds)
        if fault is not None and fault != "lost_answer":
            return await self._fault(fault, send)
        if creates or match is None:
            return await self._create(request, send, lose_answer=fault is not None)
        if method == "DELETE":
            return self._delete(match[1])
        if match[2]:
            return self._content(match[1])
        return self._retrieve(match[1])

    def _draw(self, subject: str, kinds: Sequence[str]) -> str | None:
        rates = {
            "5xx": self.error_rate,
            "429": self.rate_limit_rate,
            "timeout": self.timeout_rate,
            "drop": self.drop_rate,
            "lost_answer": self.lost_answer_rate,
        }
        draw, edge, chosen = self._rng.random(), 0.0, None
        for kind in kinds:
            edge += rates[kind]
            if draw < edge:
                chosen = kind
                break
        cap = self.max_faults_per_request
        if chosen is not None and cap is not None and self._fault_counts[subject] >= cap:
            chosen = None
        if chosen is not None:
            self._fault_counts[subject] += 1
            self.faults[chosen] += 1
        return chosen

    async def _fault(self, kind: str, send: Send) -> Response | None:
        if kind == "5xx":
            status = self._rng.choice(self.error_statuses)
            return error_answer(status, "The server had an error while processing your request.")
        if kind == "429":
            response = error_answer(429, "Rate limit reached for requests.", "requests")
            response.headers["retry-after"] = f"{self.retry_after:g}"
            return response
        if kind == "timeout":
            await asyncio.sleep(self.hang_seconds)  # the client has given up by now
            return error_answer(504, "Gateway timeout.", "server_error")
        await _cut(send)
        return None

    def _latency(self) -> float:
        if isinstance(self.latency, tuple):
            return self._rng.uniform(*self.latency)
        return self.latency

    def _check_auth(self, request: Request) -> Response | None:
        if self.api_key is None:
            return None
        if not has_credential(request, self.api_key):
            return error_answer(401, "Incorrect API key provided.", code="invalid_api_key")
        return None

    # --- endpoints ----------------------------------------------------------------------------

    async def _create(self, request: Request, send: Send, *, lose_answer: bool) -> Response | None:
        fields = await _create_fields(request)
        if fields is None:
            return error_answer(400, "We could not parse the body of your request.")
        if not fields.get("prompt"):
            return error_answer(400, "Missing required parameter: 'prompt'.", param="prompt")
        client_id = request.headers.get("x-client-request-id")
        subject = client_id or "-"
        video_id = "video_" + secrets.token_hex(12)
        video = queued_video(video_id, fields)
        will_fail = self._rng.random() < self.job_failure_rate
        cap = self.max_job_failures_per_request
        if will_fail and cap is not None and self._job_failures[subject] >= cap:
            will_fail = False
        if will_fail:
            self._job_failures[subject] += 1
        self._jobs[video_id] = _Job(video, client_id, time.monotonic(), will_fail)
        self.peak_running = max(self.peak_running, self.running())
        self.accepted.append(Accepted(video_id, client_id, time.monotonic(), lose_answer))
        if lose_answer:
            await _cut(send)
            return None
        return json_answer(video)

    def _retrieve(self, video_id: str) -> Response:
        job = self._jobs.get(video_id)
        if job is None:
            return _not_found(video_id)
        video = job.video
        if video["status"] in _RUNNING:
            job.polls += 1
            done = (
                job.polls >= self.polls_to_finish
                and time.monotonic() - job.accepted_at >= self.job_seconds
            )
            now = int(time.time())
            if done and job.will_fail:
                self.failed_jobs.add(video_id)
                error = {"code": "server_error", "message": "Video generation failed."}
                video.update(status="failed", error=error, completed_at=now)
            elif done:
                video.update(status="completed", progress=100, completed_at=now)
                video.update(expires_at=now + 3600)
            else:
                video.update(status="in_progress", progress=min(99, 10 * job.polls))
        return json_answer(video)

    def _content(self, video_id: str) -> Response:
        job = self._jobs.get(video_id)
        if job is None:
            return _not_found(video_id)
        if job.video["status"] != "completed":
            return error_answer(400, f"Video {video_id} is not ready yet.")
        return Response(sample_mp4(), media_type="video/mp4", headers=request_id_header())

    def _delete(self, video_id: str) -> Response:
        job = self._jobs.pop(video_id, None)
        if job is None:
            return _not_found(video_id)
        self.deleted.append(video_id)
        return json_answer({"id": video_id, "object": "video.deleted", "deleted": True})


# --- the wire -----------------------------------------------------------------------------------


async def _create_fields(request: Request) -> dict[str, str] | None:
    content_type = request.headers.get("content-type", "")
    try:
        if content_type.startswith("application/json"):
            body = await request.json()
            if not isinstance(body, dict):
                return None
            return {k: str(v) for k, v in body.items() if k != "input_reference"}
        if content_type.startswith("multipart/form-data"):
            async with request.form() as form:
                return {k: v for k, v in form.items() if isinstance(v, str)}
    except ValueError:
        return None
    return None


async def _cut(send: Send) -> None:
    """Start a 200, send half of it, and return: the server then closes the connection."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"400")],
        }
    )
    await send({"type": "http.response.body", "body": b'{"id": "video_', "more_body": True})


def _not_found(video_id: str) -> Response:
    return error_answer(404, f"Video with id '{video_id}' not found.", param="video_id")


# --- a server for benchmarks ----------------------------------------------------------------


def _window(text: str) -> Window:
    start, _, end = text.partition(":")
    return float(start), float(end) if end else math.inf


_NUMBERS = (  # knobs taken from the command line as they are
    ("error_rate", float),
    ("rate_limit_rate", float),
    ("retry_after", float),
    ("timeout_rate", float),
    ("hang_seconds", float),
    ("drop_rate", float),
    ("lost_answer_rate", float),
    ("job_failure_rate", float),
    ("max_faults_per_request", int),
    ("max_job_failures_per_request", int),
    ("polls_to_finish", int),
    ("job_seconds", float),
    ("seed", int),
)


def main(argv: Sequence[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100)
    defaults = ChaosProvider()
    for name, kind in _NUMBERS:
        parser.add_argument(
            "--" + name.replace("_", "-"), type=kind, default=getattr(defaults, name)
        )
    parser.add_argument("--latency", type=float, nargs="+", default=[0.0], help="s or LOW HIGH")
    parser.add_argument("--outage", action="append", default=[], metavar="START:END")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--report", default=None, help="write the records here as JSON on exit")
    args = parser.parse_args(argv)
    fake = ChaosProvider(
        **{name: getattr(args, name) for name, _ in _NUMBERS},
        latency=(args.latency[0], args.latency[1]) if len(args.latency) > 1 else args.latency[0],
        outages=[_window(w) for w in args.outage],
        api_key=args.api_key,
    )
    sample_mp4()  # render it before the first request is timed
    uvicorn.run(fake.app(), host=args.host, port=args.port, log_level="warning", lifespan="off")
    summary = fake.report()
    if args.report:
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=1)
    print(json.dumps({k: v for k, v in summary.items() if k != "accepted"}))
    print(f"accepted {len(fake.accepted)} jobs")


if __name__ == "__main__":
    main()
