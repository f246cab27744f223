"""One case per provider: its fake, the settings it needs, a model it serves, where its calls
go and the answers it really gives for each shared fault.

The answers are the providers' own (status and body, from /work/shared/providers/*.md and
docs/providers/*.md): a contract test injects them through the fake's FaultPlan, so every
adapter meets the same situation in its own wire format. Adding a provider is adding a case.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from starlette.types import ASGIApp

from tests.fakes.fal import LOCKED, FalFake
from tests.fakes.kling import KlingFake, error_body
from tests.fakes.ltx import LtxFake
from tests.fakes.ltx import error_body as ltx_error
from tests.fakes.luma import LumaFake
from tests.fakes.minimax import MinimaxFake
from tests.fakes.openai_videos import FakeOpenAIVideos
from tests.fakes.openrouter import OpenRouterFake
from tests.fakes.pixverse import PixverseFake
from tests.fakes.pixverse import envelope as pixverse_envelope
from tests.fakes.replicate import ReplicateFake
from tests.fakes.runway import RunwayFake
from tests.fakes.seedance import TASKS, FakeArk, ark_error
from tests.fakes.veo import VeoFake
from tests.fakes.vidu import ViduFake
from tests.fakes.wan import CREATE_PATH, FakeWan
from tests.fakes.xai import NO_CREDITS, NO_PERMISSION, XaiFake
from tests.support.catalogs import gateway_model

Answer = tuple[int, object]  # an HTTP status and the JSON body the provider sends with it

KEY = "test-key"
GATEWAY_KEY_ENV = "GATEWAY_VIDEO_KEY"


class Calls(NamedTuple):
    submit: str  # path part of the paid create call (always a POST)
    poll: str  # path part of the status call (always a GET)
    cancel: tuple[str, str] | None = None  # (method, path part); None where the API cannot cancel


@dataclass(frozen=True)
class ProviderCase:
    name: str  # the adapter, as the generation's `route` names it
    model: str  # a public model this provider serves
    calls: Calls  # where its calls go
    listed: frozenset[str]  # models offered with its credentials (and only with them)
    make: Callable[[], Any]  # a fresh fake
    environ: Callable[[str, str], dict[str, str]]  # (fake URL, credential) -> environment
    server_error: Answer
    throttled: Answer  # answered with a Retry-After header
    rate_limits: Mapping[str, Answer]  # real rate limits: retried on the same route
    refusals: Mapping[str, Answer]  # account-level refusals: never retried on the same route
    # How many jobs the fake accepted.
    jobs: Callable[[Any], int] = lambda fake: len(fake.tasks)
    serve: Callable[[Any], ASGIApp] = lambda fake: _asgi(fake)  # the fake's ASGI app
    key_attr: str = "api_key"  # the fake's attribute holding the credential it accepts
    # An operator catalog (fake URL, HTTP timeout) -> TOML, where the route needs one.
    catalog: Callable[[str, float], str] = lambda url, timeout: ""
    settings: Mapping[str, Any] = field(default_factory=dict)
    # Shorten the adapter's HTTP timeout where it keeps its own client (after start-up).
    shorten_timeout: Callable[[Any, float], None] | None = None
    # Each way the provider refuses the prompt "something forbidden": set up on the fake.
    moderations: Mapping[str, Callable[[Any], None]] = field(
        default_factory=lambda: {"prompt": _flag_prompts}
    )
    # Cancel every job on the provider's side (someone did, in its dashboard), if it can.
    cancel_remotely: Callable[[Any], None] | None = None

    @property
    def submit(self) -> str:
        return self.calls.submit

    @property
    def poll(self) -> str:
        return self.calls.poll

    @property
    def cancel(self) -> tuple[str, str] | None:
        return self.calls.cancel

    def __str__(self) -> str:
        return self.name


def _asgi(fake: Any) -> ASGIApp:
    """The fake's ASGI app: its `app`, or what its `app()` builds."""
    app = fake.app
    return app() if inspect.ismethod(app) else app  # type: ignore[no-any-return]


def _env(key_env: str, *url_envs: str, **fixed: str) -> Callable[[str, str], dict[str, str]]:
    """(fake URL, credential) -> the credential in `key_env`, the URL in each of `url_envs`,
    and the `fixed` values."""
    return lambda url, key: {**dict.fromkeys(url_envs, url), key_env: key, **fixed}


def _count(table: str) -> Callable[[Any], int]:
    """How many jobs the fake holds in its `table`."""
    return lambda fake: len(getattr(fake, table))


def _detail(status: int, detail: str) -> Answer:
    return status, {"detail": detail}


def _error(status: int, message: str) -> Answer:
    return status, {"error": message}


def _flag_prompts(fake: Any) -> None:
    fake.moderate_prompts_containing = "forbidden"


def _set(**values: object) -> Callable[[Any], None]:
    """Sets these attributes on the fake."""

    def setup(fake: Any) -> None:
        for name, value in values.items():
            setattr(fake, name, value)

    return setup


def _set_status(table: str, status: str) -> Callable[[Any], None]:
    """Sets the status of every job in the fake's `table`."""

    def setup(fake: Any) -> None:
        for job in getattr(fake, table).values():
            job.status = status

    return setup


# Moderation of the prompt at submit, and of the made video in the finished job.
_INPUT_AND_OUTPUT = {
    "input": _flag_prompts,
    "output": _set(moderate_outputs_containing="forbidden"),
}


def _google(status: int, state: str, message: str) -> Answer:
    return status, {"error": {"code": status, "message": message, "status": state}}


def _openai(status: int, kind: str, code: str | None, message: str) -> Answer:
    return status, {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _kling(status: int, code: int, message: str) -> Answer:
    return status, error_body(code, message)


def _minimax(code: int, message: str, status: int = 200) -> Answer:
    return status, {"task_id": "", "base_resp": {"status_code": code, "status_msg": message}}


def _ark(status: int, code: str, message: str) -> Answer:
    return status, ark_error(status, code, message)


def _dashscope(status: int, code: str, message: str) -> Answer:
    return status, {"request_id": "7f1c2d3e-req", "code": code, "message": message}


def _problem(status: int, title: str, detail: str) -> Answer:
    return status, {"title": title, "detail": detail, "status": status}


def _openrouter(status: int, message: str) -> Answer:
    return status, {"error": {"code": status, "message": message}}


def _xai(status: int, code: str, message: str) -> Answer:
    return status, {"code": code, "error": message}


def _vidu(status: int, reason: str, message: str) -> Answer:
    body = {"code": status, "reason": reason, "message": message}
    return status, {**body, "metadata": {"trace_id": "04e5c2fe9b1d4c5e"}}


def _vidu_cancelled(fake: Any) -> None:
    """Every task cancelled by its owner (Vidu's `failed` with `UserCancelled`)."""
    for task in fake.tasks.values():
        task.state, task.err_code = "failed", "UserCancelled"


# The gateway's extensions (POST /videos/extensions) take its own videos by id and answer
# the whole video (docs/providers/openai_videos.md).
GATEWAY_EXTENDS = """  capabilities = ["text-to-video", "image-to-video", "video-extend"]
  extends_own_output = true
"""


def _gateway_catalog(url: str, timeout: float) -> str:
    """An operator's model behind an OpenAI-style /v1/videos gateway (the fake)."""
    return gateway_model(
        "gateway-clip",
        "upstream-clip-1",
        url,
        GATEWAY_KEY_ENV,
        timeout,
        route=GATEWAY_EXTENDS,
        extension_returns='"whole"',
    )


def _set_client_timeout(attribute: str, provider: str) -> Callable[[Any, float], None]:
    import httpx

    def shorten(app: Any, seconds: float) -> None:
        client = getattr(app.service.providers.get(provider), attribute)
        client.timeout = httpx.Timeout(seconds)

    return shorten


CASES: tuple[ProviderCase, ...] = (
    ProviderCase(
        name="veo",
        model="veo-3.1",
        # The Gemini API has no cancel for video operations.
        calls=Calls(":predictLongRunning", "/operations/"),
        listed=frozenset({"veo-3.1", "veo-3.1-fast"}),
        make=VeoFake,
        environ=_env("GEMINI_API_KEY", "VIDROUTER_GEMINI_BASE_URL"),
        jobs=_count("operations"),
        server_error=_google(503, "UNAVAILABLE", "The model is overloaded."),
        throttled=_google(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted."),
        rate_limits={
            "RESOURCE_EXHAUSTED": _google(
                429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
            )
        },
        refusals={
            "PERMISSION_DENIED billing": _google(
                403,
                "PERMISSION_DENIED",
                "This API method requires billing to be enabled. Please enable billing on "
                "project #123 and retry.",
            )
        },
    ),
    ProviderCase(
        name="runway",
        model="gen4.5",
        calls=Calls("/v1/text_to_video", "/v1/tasks/", ("DELETE", "/v1/tasks/")),
        listed=frozenset({"gen4.5", "gen4-turbo", "aleph-2"}),
        make=RunwayFake,
        environ=_env("RUNWAYML_API_SECRET", "VIDROUTER_RUNWAY_BASE_URL"),
        server_error=_error(502, "Bad gateway"),
        throttled=_error(429, "Too many requests"),
        rate_limits={"429": _error(429, "You have exceeded the rate limit for this model.")},
        refusals={
            "400 not enough credits": _error(
                400, "You do not have enough credits to run this task."
            )
        },
        cancel_remotely=_set_status("tasks", "CANCELLED"),
    ),
    ProviderCase(
        name="luma",
        model="ray-2",
        calls=Calls(
            "/dream-machine/v1/generations",
            "/dream-machine/v1/generations",
            ("DELETE", "/dream-machine/v1/generations/"),
        ),
        listed=frozenset({"ray-2", "ray-flash-2"}),
        make=lambda: LumaFake(moderate_prompts_containing=None),
        environ=_env("LUMAAI_API_KEY", "VIDROUTER_LUMA_BASE_URL"),
        jobs=_count("created"),
        server_error=_detail(500, "Internal Server Error"),
        throttled=_detail(429, "Too Many Requests"),
        rate_limits={"429": _detail(429, "Too many concurrent generations")},
        refusals={
            "400 insufficient credits": _detail(
                400, "Insufficient credits: please top up your API balance"
            )
        },
        moderations={
            "generation failed": _flag_prompts,
            "400 at create": _set(moderate_prompts_containing="forbidden", moderate_at_create=True),
        },
    ),
    ProviderCase(
        name="openai_videos",
        model="gateway-clip",
        calls=Calls("/v1/videos", "/v1/videos/", ("DELETE", "/v1/videos/")),
        listed=frozenset({"gateway-clip"}),
        make=lambda: FakeOpenAIVideos(models=frozenset({"upstream-clip-1"})),
        environ=_env(GATEWAY_KEY_ENV),
        jobs=_count("created"),
        server_error=_openai(500, "server_error", None, "The server had an error."),
        throttled=_openai(429, "requests", "rate_limit_exceeded", "Rate limit reached"),
        rate_limits={
            "rate_limit_exceeded": _openai(
                429, "requests", "rate_limit_exceeded", "Rate limit reached for requests"
            )
        },
        refusals={
            "429 insufficient_quota": _openai(
                429,
                "insufficient_quota",
                "insufficient_quota",
                "You exceeded your current quota, please check your plan and billing details.",
            )
        },
        catalog=_gateway_catalog,
        moderations={
            "at create": _flag_prompts,
            "in the job": _set(
                fail_jobs_with=("moderation_blocked", "The video was blocked by moderation.")
            ),
        },
    ),
    ProviderCase(
        name="kling",
        model="kling-v2.5-turbo",
        # Kling documents no cancel for video tasks.
        calls=Calls("/v1/videos/", "/v1/videos/"),
        listed=frozenset(
            {"kling-v3", "kling-v2.6", "kling-v2.5-turbo", "kling-v2.1-master"}
            | {"kling-v3-omni", "kling-o1", "kling-v1.6"}
        ),
        make=lambda: KlingFake(secret_key=KEY),
        environ=_env(
            "KLING_SECRET_KEY", "VIDROUTER_KLING_BASE_URL", KLING_ACCESS_KEY="test-access-key"
        ),
        key_attr="secret_key",
        server_error=_kling(500, 5000, "Server internal error"),
        throttled=_kling(429, 1303, "parallel task over resource pack limit"),
        rate_limits={
            "1302": _kling(429, 1302, "The API request is too fast, please slow down"),
            "1303": _kling(429, 1303, "parallel task over resource pack limit"),
        },
        refusals={
            "1102": _kling(429, 1102, "Account balance not enough: resource pack exhausted"),
            "1101": _kling(429, 1101, "Account in arrears (postpaid)"),
        },
        shorten_timeout=_set_client_timeout("client", "kling"),
    ),
    ProviderCase(
        name="minimax",
        model="hailuo-2.3",
        # MiniMax has no cancel endpoint.
        calls=Calls("/v1/video_generation", "/v1/query/video_generation"),
        listed=frozenset({"hailuo-2.3", "hailuo-2.3-fast", "hailuo-02", "s2v-01"}),
        make=lambda: MinimaxFake(polls_before_done=1),
        environ=_env("MINIMAX_API_KEY", "VIDROUTER_MINIMAX_BASE_URL"),
        server_error=_error(502, "bad gateway"),
        # MiniMax documents no HTTP status for its errors (its 1002 comes in a 200: see
        # rate_limits); a proxy's plain 429 with Retry-After must still be honoured.
        throttled=(429, {}),
        rate_limits={  # MiniMax answers every error with HTTP 200 and base_resp
            "1002": _minimax(1002, "rate limit exceeded(RPM)"),
            "1039": _minimax(1039, "rate limit exceeded(TPM)"),
        },
        refusals={"1008": _minimax(1008, "insufficient balance")},
    ),
    ProviderCase(
        name="seedance",
        model="seedance-1-pro",
        calls=Calls(TASKS, TASKS + "/", ("DELETE", TASKS + "/")),
        listed=frozenset({"seedance-1-pro", "seedance-1-pro-fast"}),
        make=FakeArk,
        environ=_env("ARK_API_KEY", "VIDROUTER_SEEDANCE_BASE_URL"),
        server_error=_ark(500, "InternalServiceError", "The service encountered an error."),
        throttled=_ark(429, "ServerOverloaded", "The service is overloaded."),
        rate_limits={
            "RateLimitExceeded.EndpointRPMExceeded": _ark(
                429,
                "RateLimitExceeded.EndpointRPMExceeded",
                "The Requests Per Minute (RPM) limit of the associated endpoint has been exceeded.",
            ),
            "ServerOverloaded": _ark(429, "ServerOverloaded", "The service is overloaded."),
        },
        refusals={
            # issue 17: ModelArk's answer in Free Tokens Only mode, verbatim in shape
            "ModelQuotaExhausted": (
                429,
                {
                    "error": {
                        "code": "ModelQuotaExhausted",
                        "type": "TooManyRequests",
                        "message": "Your account 2100000000 has exhausted its free trial quota "
                        "for the model seedance-1-0-pro. (Free Tokens Only Mode) Request id: "
                        "021700000000000abcdef",
                        "param": "",
                    }
                },
            ),
            "SetLimitExceeded": _ark(
                429, "SetLimitExceeded", "Your account has reached its set inference limit."
            ),
            "AccountOverdueError": _ark(
                403, "AccountOverdueError", "The request failed because your account is overdue."
            ),
        },
        shorten_timeout=_set_client_timeout("_client", "seedance"),
        moderations=_INPUT_AND_OUTPUT,
    ),
    ProviderCase(
        name="wan",
        model="wan-2.5",
        calls=Calls(CREATE_PATH, "/api/v1/tasks/", ("POST", "/cancel")),
        listed=frozenset({"wan-2.5", "wan-2.6", "wan-2.7"}),
        make=FakeWan,
        environ=_env("DASHSCOPE_API_KEY", "VIDROUTER_WAN_BASE_URL"),
        server_error=_dashscope(500, "InternalError", "Internal server error!"),
        throttled=_dashscope(429, "Throttling", "Requests throttling triggered."),
        rate_limits={
            "Throttling": _dashscope(429, "Throttling", "Requests throttling triggered."),
            "Throttling.RateQuota": _dashscope(
                429, "Throttling.RateQuota", "Requests rate limit exceeded, please try again later."
            ),
        },
        refusals={
            "Arrearage": _dashscope(
                400,
                "Arrearage",
                "Access denied, please make sure your account is in good standing.",
            ),
            "PrepaidBillOverdue": _dashscope(
                429, "PrepaidBillOverdue", "The prepaid bill is overdue."
            ),
        },
        moderations=_INPUT_AND_OUTPUT,
    ),
    ProviderCase(
        name="fal",
        model="kling-v2.5-turbo",
        calls=Calls("/fal-ai/", "/status", ("PUT", "/cancel")),
        listed=frozenset({"kling-v2.5-turbo", "ray-2", "hailuo-02", "veo-3.1"}),
        make=FalFake,
        environ=_env("FAL_KEY", "VIDROUTER_FAL_BASE_URL", "VIDROUTER_FAL_API_BASE_URL"),
        jobs=_count("jobs"),
        server_error=_detail(500, "Internal Server Error"),
        throttled=_detail(429, "Too many concurrent requests"),
        rate_limits={"429": _detail(429, "Too many concurrent requests")},
        refusals={
            "402": _detail(402, "Exhausted balance. Top up your balance at fal.ai."),
            "403 locked": (403, LOCKED),
        },
        moderations={  # fal reports moderation with the result, some apps at submit
            "with the result": _flag_prompts,
            "422 at submit": _set(moderate_prompts_containing="forbidden", moderate_at_submit=True),
        },
    ),
    ProviderCase(
        name="replicate",
        model="kling-v2.1-master",
        calls=Calls(
            "/v1/models/kwaivgi/kling-v2.1-master/predictions",
            "/v1/predictions/",
            ("POST", "/cancel"),
        ),
        listed=frozenset({"kling-v2.1-master", "wan-2.5", "hailuo-02", "veo-3.1"}),
        make=ReplicateFake,
        environ=_env("REPLICATE_API_TOKEN", "VIDROUTER_REPLICATE_BASE_URL"),
        key_attr="api_token",
        jobs=_count("created"),
        server_error=_problem(500, "Internal Server Error", "Something went wrong."),
        throttled=_problem(429, "Request was throttled.", "Request was throttled."),
        rate_limits={
            "429": _problem(
                429,
                "Request was throttled.",
                "Request was throttled. Expected available in 2 seconds.",
            )
        },
        refusals={
            "402": _problem(
                402,
                "Insufficient credit",
                "You have insufficient credit to run this model. Go to "
                "https://replicate.com/account/billing#billing to purchase credit.",
            )
        },
    ),
    ProviderCase(
        name="openrouter",
        model="veo-3.1",
        # OpenRouter has no cancel endpoint.
        calls=Calls("/api/v1/videos", "/api/v1/videos/gen-vid-"),
        listed=frozenset({"veo-3.1", "kling-v3", "hailuo-2.3", "seedance-2", "gen4.5"}),
        make=OpenRouterFake,
        environ=lambda url, key: {
            "VIDROUTER_OPENROUTER_BASE_URL": url + "/api",
            "OPENROUTER_API_KEY": key,
        },
        jobs=_count("created"),
        server_error=_openrouter(500, "Internal Server Error"),
        throttled=_openrouter(429, "Rate limit exceeded"),
        rate_limits={"429": _openrouter(429, "Rate limit exceeded: limit_rpm/google/veo-3.1")},
        refusals={
            "402": _openrouter(
                402, "Insufficient credits. Add more using https://openrouter.ai/credits"
            )
        },
        settings={"public_url": "https://videos.example.com"},
        moderations={
            "job failed": _flag_prompts,
            "403 guardrail at create": _set(flag_prompts_containing="forbidden"),
        },
        cancel_remotely=_set_status("jobs", "cancelled"),
    ),
    ProviderCase(
        name="xai",
        model="grok-imagine-video",
        # xAI documents no cancel for video requests.
        calls=Calls("/v1/videos/generations", "/v1/videos/"),
        listed=frozenset({"grok-imagine-video", "grok-imagine-video-1.5"}),
        make=lambda: XaiFake(polls_to_finish=1),
        environ=_env("XAI_API_KEY", "VIDROUTER_XAI_BASE_URL"),
        server_error=_xai(500, "Internal error", "The service encountered an internal error"),
        throttled=_xai(429, "Some resource has been exhausted", "Too many requests"),
        rate_limits={
            "429": _xai(
                429,
                "Some resource has been exhausted",
                "Rate limit exceeded: 1 request per second for grok-imagine-video",
            )
        },
        refusals={  # the same words arrive with a 429 or a 403 (docs.x.ai; 2026 reports)
            "429 credits": _xai(429, NO_PERMISSION, NO_CREDITS),
            "403 credits": _xai(403, NO_PERMISSION, NO_CREDITS),
        },
        moderations={
            "400 at create": _flag_prompts,
            "done without a video": _set(moderate_outputs_containing="forbidden"),
        },
    ),
    ProviderCase(
        name="vidu",
        model="viduq3-turbo",
        calls=Calls("/ent/v2/text2video", "/ent/v2/tasks/", ("POST", "/cancel")),
        listed=frozenset({"viduq3-pro", "viduq3-turbo", "viduq2"}),
        make=lambda: ViduFake(polls_to_finish=1),
        environ=_env("VIDU_API_KEY", "VIDROUTER_VIDU_BASE_URL"),
        server_error=_vidu(500, "InternalServiceFailure", "internal service failure"),
        throttled=_vidu(429, "TooManyRequests", "too many requests"),
        rate_limits={
            "QuotaExceeded": _vidu(429, "QuotaExceeded", "exceeded concurrency limit"),
            "TooManyRequests": _vidu(429, "TooManyRequests", "too many requests"),
            "SystemThrottling": _vidu(429, "SystemThrottling", "system throttling"),
        },
        refusals={  # no credits is a 400 at Vidu
            "CreditInsufficient": _vidu(400, "CreditInsufficient", "credit insufficient"),
            "Forbidden": _vidu(403, "Forbidden", "no permission"),
        },
        moderations={
            "400 at create": _flag_prompts,
            "task failed": _set(moderate_outputs_containing="forbidden"),
        },
        cancel_remotely=_vidu_cancelled,
    ),
)

# --- LTX and PixVerse -------------------------------------------------------------------------


def _ltx(status: int, kind: str, message: str) -> Answer:
    return status, ltx_error(kind, message)


def _pixverse(code: int, message: str, status: int = 200) -> Answer:
    return status, pixverse_envelope(code, message)  # PixVerse answers errors with HTTP 200


_FLAG_AT_CREATE = _set(moderate_prompts_containing="forbidden", moderate_at_create=True)

CASES += (
    ProviderCase(
        name="ltx",
        model="ltx-2.5-fast",
        # LTX has no cancel; a job is polled on the endpoint segment that created it.
        calls=Calls("/v2/text-to-video", "/v2/text-to-video/"),
        listed=frozenset({"ltx-2.5-fast", "ltx-2.5-pro", "ltx-2.3-fast", "ltx-2.3-pro"}),
        make=LtxFake,
        environ=_env("LTX_API_KEY", "VIDROUTER_LTX_BASE_URL"),
        jobs=_count("jobs"),
        server_error=_ltx(500, "api_error", "An unexpected error occurred"),
        throttled=_ltx(429, "rate_limit_error", "Too many requests"),
        rate_limits={
            "rate_limit_error": _ltx(429, "rate_limit_error", "Too many requests"),
            "concurrency_limit_error": _ltx(
                429,
                "concurrency_limit_error",
                "Too many concurrent requests. Please try again later.",
            ),
        },
        refusals={
            "402 insufficient_funds_error": _ltx(
                402, "insufficient_funds_error", "Insufficient credits"
            )
        },
        moderations={
            "422 at create": _FLAG_AT_CREATE,
            "job failed": _set(moderate_prompts_containing="forbidden", moderate_at_create=False),
        },
    ),
    ProviderCase(
        name="pixverse",
        model="pixverse-v6",
        # PixVerse documents no cancel.
        calls=Calls("/openapi/v2/video/text/generate", "/openapi/v2/video/result/"),
        listed=frozenset({"pixverse-v6", "pixverse-v5.6", "pixverse-v5.5", "pixverse-v5"}),
        make=PixverseFake,
        environ=_env("PIXVERSE_API_KEY", "VIDROUTER_PIXVERSE_BASE_URL"),
        server_error=_error(502, "Bad Gateway"),
        # PixVerse's own limits come in a 200 (see rate_limits); a proxy's plain 429 with
        # Retry-After must still be honoured.
        throttled=(429, {}),
        rate_limits={
            "500044": _pixverse(500044, "Reached the limit for concurrent generations"),
        },
        refusals={
            "500090": _pixverse(500090, "Insufficient balance"),
            "500043": _pixverse(500043, "All credits have been used up"),
        },
        moderations={"status 7": _flag_prompts, "500063 at create": _FLAG_AT_CREATE},
    ),
)

BY_NAME = {case.name: case for case in CASES}
