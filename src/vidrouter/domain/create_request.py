"""The rules of `POST /v1/generations`: a JSON body in, a checked `CreateRequest` out.

Every violation raises `InvalidRequest` naming the offending `param` and a stable `code`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace

from vidrouter.domain.addresses import forbidden_host_reason
from vidrouter.domain.catalog import ListedModel, ModelSpec
from vidrouter.domain.controls import Controls
from vidrouter.domain.create_controls import parse_controls
from vidrouter.domain.create_fields import FIELD_NAMES
from vidrouter.domain.create_inputs import parse_inputs
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.inputs import (
    TEXT_TO_VIDEO,
    VIDEO_EXTEND,
    Reference,
    SourceVideo,
    fetchable,
)
from vidrouter.domain.request_fields import (
    MAX_URL_CHARS,
    URL_PATTERN,
    check_names,
    http_url,
    json_type,
    prose,
    string,
)
from vidrouter.domain.request_fields import (
    image_url as checked_image_url,
)
from vidrouter.domain.routing import (
    ANY_ROUTE,
    DEFAULT_POLICY,
    RouteAsk,
    RoutingPolicy,
    ask_for,
    parse_routing,
    route_candidates,
)

__all__ = [
    "FIELDS",
    "MAX_URL_CHARS",
    "URL_PATTERN",
    "CreateRequest",
    "RequestLimits",
    "parse_create",
    "shortest_duration",
]

FIELDS = FIELD_NAMES  # declared in domain/create_fields.py
MAX_METADATA_PAIRS = 16
MAX_METADATA_KEY = 40
MAX_METADATA_VALUE = 500
# The shortest video a model without a list of durations is asked for: a provider bills
# at least this, so a request for 0.001 s must not pass as a nearly free one.
MIN_DURATION = 1.0


@dataclass(frozen=True)
class CreateRequest:
    model: ListedModel
    prompt: str
    duration: float
    aspect_ratio: str
    image_url: str | None = None
    webhook_url: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    routing: RoutingPolicy | None = None  # None: the default policy
    # The model's defaults filled in (domain/create_controls.py).
    controls: Controls = field(default_factory=Controls)
    # Its type (domain/inputs.py): as named (`asked_type`) or inferred; its other inputs.
    type: str = TEXT_TO_VIDEO
    asked_type: str | None = None
    references: tuple[Reference, ...] = ()
    video: SourceVideo | None = None
    local_media: bool = False  # set at accept (`with_media_reach`)
    # `"cache"`: True / False as asked, None when not given (the key's setting decides).
    cache: bool | None = None

    @property
    def route_ask(self) -> RouteAsk:
        """What it asks of its model's routes (`domain.routing.route_candidates`)."""
        return ask_for(self.routing or DEFAULT_POLICY, self)

    def accepted(self, public: bool) -> CreateRequest:
        """The request once its inputs are kept (its source's route known), knowing whether
        providers can fetch its media from outside (`public`: our content host is reachable
        from the internet). A 400 when no route takes it: naming `video` when its source
        was made where no route of this model can extend it, or the input no route can
        receive from this server."""
        hosted = any(not fetchable(r.url) for r in self.references) or (
            self.video is not None and not fetchable(self.video.url)
        )
        request = replace(self, local_media=hosted and not public)
        _check_served(request, param="video")
        return request


@dataclass(frozen=True)
class RequestLimits:
    max_prompt_chars: int = 4000
    allow_private_webhook_urls: bool = False


ModelLookup = Callable[[str], "ListedModel | ModelSpec | None"]


def parse_create(
    body: object,
    lookup: ModelLookup,
    limits: RequestLimits,
    providers: Collection[str] = (),
) -> CreateRequest:
    """`providers`: every provider name the server knows (for `routing.only`/`ignore`)."""
    if not isinstance(body, Mapping):
        raise InvalidRequest("the request body must be a JSON object", code="invalid_body")
    check_names(body, FIELDS)
    model = _model(body, lookup)
    prompt = _prompt(body, limits)
    duration = _duration(body, model)
    aspect_ratio = _aspect_ratio(body, model)
    image_url = _image_url(body)
    inputs = parse_inputs(body, model, image_url=image_url)
    controls = parse_controls(
        body,
        model,
        duration=duration,
        given={"image_url": image_url},
        max_text_chars=limits.max_prompt_chars,
    )
    webhook_url = _webhook_url(body, limits)
    metadata = _metadata(body)
    routing = parse_routing(body.get("routing"), model, providers, controls)
    request = CreateRequest(
        model,
        prompt,
        duration,
        aspect_ratio,
        image_url,
        webhook_url,
        metadata,
        routing,
        controls,
        inputs.type,
        inputs.asked_type,
        inputs.references,
        inputs.video,
        cache=_cache(body),
    )
    _check_served(request)
    return request


def _check_served(request: CreateRequest, param: str = "type") -> None:
    """Some route the policy allows and that honours the controls makes the type from these
    inputs (the one answer, `route_candidates`), else a 400 naming `param`. A source
    generation not looked up yet (its route unknown) is checked once it is (`accepted`)."""
    ask, routes, model = request.route_ask, request.model.routes, request.model.id
    video = request.video
    if video is not None and video.generation_id is not None and video.key is None:
        return
    if route_candidates(routes, ask, {}) or not route_candidates(
        routes, replace(ask, type=None), {}
    ):
        return
    if route_candidates(routes, replace(ask, local_media=False), {}):
        which = "video" if video is not None else "references"
        raise InvalidRequest(
            f"no route of model {model} can receive this {which}: its providers fetch media "
            "by URL, and this server's public URL (VIDROUTER_PUBLIC_URL) is not reachable from "
            "the internet; give an http(s) URL they can fetch, or set a public URL",
            code="input_unreachable",
            param=which,
        )
    if param == "video" and route_candidates(routes, replace(ask, source_route=ANY_ROUTE), {}):
        raise InvalidRequest(
            f"model {model} extends only videos made by its own route, and generation "
            f"{video.generation_id if video else ''} was made elsewhere",
            code="video_unsupported",
            param="video",
        )
    raise InvalidRequest(
        f"no route of model {model} that takes the rest of this request makes {request.type} "
        "from these inputs",
        code="type_unsupported",
        param="type",
    )


def _cache(body: Mapping[str, object]) -> bool | None:
    value = body.get("cache")
    if value is None or isinstance(value, bool):
        return value
    raise InvalidRequest(
        f"cache must be true or false, got {json_type(value)}",
        code="parameter_invalid_type",
        param="cache",
    )


def _model(body: Mapping[str, object], lookup: ModelLookup) -> ListedModel:
    model_id = string(body, "model", required=True)
    assert model_id is not None
    found = lookup(model_id)
    if isinstance(found, ModelSpec):
        if found.retired_on is not None:
            instead = f"; use {found.replacement!r} instead" if found.replacement else ""
            raise InvalidRequest(
                f"model {model_id!r} was retired on {found.retired_on.isoformat()}{instead}",
                code="model_retired",
                param="model",
            )
        found = None
    if found is None:
        raise InvalidRequest(
            f"model {_clip(model_id)!r} does not exist or is not available; "
            "GET /v1/models lists the available models",
            code="model_not_found",
            param="model",
        )
    return found


def _prompt(body: Mapping[str, object], limits: RequestLimits) -> str:
    prompt = string(body, "prompt", required=True)
    assert prompt is not None
    return prose(prompt, "prompt", limits.max_prompt_chars)


def _duration(body: Mapping[str, object], model: ListedModel) -> float:
    value = body.get("duration")
    fixed = model.inputs.extend_durations if body.get("type") == VIDEO_EXTEND else None
    if fixed and value is None:
        return fixed[0]
    if value is None:
        return model.default_duration
    if fixed and not isinstance(value, bool) and value not in fixed:
        allowed = ", ".join(_num(d) for d in fixed)
        raise InvalidRequest(
            f"an extension of model {model.id} adds only these seconds: {allowed}",
            code="duration_unsupported",
            param="duration",
        )
    if fixed and isinstance(value, int | float):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidRequest(
            f"duration must be a number of seconds, got {json_type(value)}",
            code="parameter_invalid_type",
            param="duration",
        )
    duration = float(value)
    if duration == math.inf:
        raise InvalidRequest(
            "duration is too large to be a number of seconds",
            code="duration_invalid",
            param="duration",
        )
    shortest = shortest_duration(model)
    if duration < shortest:
        raise InvalidRequest(
            f"duration must be at least {_num(shortest)} s for model {model.id}",
            code="duration_invalid",
            param="duration",
        )
    if duration > model.max_duration:
        raise InvalidRequest(
            f"duration {_num(duration)} exceeds max_duration {_num(model.max_duration)} "
            f"of model {model.id}",
            code="duration_too_long",
            param="duration",
        )
    if model.durations is not None and duration not in model.durations:
        allowed = ", ".join(_num(d) for d in model.durations)
        raise InvalidRequest(
            f"model {model.id} takes only these durations: {allowed}",
            code="duration_unsupported",
            param="duration",
        )
    return duration


def shortest_duration(model: ListedModel) -> float:
    """The model's shortest duration: the least of its durations, its `min_duration`, else
    one second (never above its longest)."""
    if model.durations:
        return min(model.durations)
    floor = model.spec.min_duration if model.spec.min_duration is not None else MIN_DURATION
    return min(floor, model.max_duration)


def _aspect_ratio(body: Mapping[str, object], model: ListedModel) -> str:
    ratio = string(body, "aspect_ratio", required=False)
    if ratio is None:
        return model.aspect_ratios[0]
    if ratio not in model.aspect_ratios:
        raise InvalidRequest(
            f"aspect_ratio {_clip(ratio)!r} is not supported by model {model.id}; "
            f"supported: {', '.join(model.aspect_ratios)}",
            code="aspect_ratio_unsupported",
            param="aspect_ratio",
        )
    return ratio


def _image_url(body: Mapping[str, object]) -> str | None:
    """The start image's URL, checked; whether the model takes one is the type's rule
    (`create_inputs.py`)."""
    url = string(body, "image_url", required=False)
    return None if url is None else checked_image_url(url, "image_url")


def _webhook_url(body: Mapping[str, object], limits: RequestLimits) -> str | None:
    url = string(body, "webhook_url", required=False)
    if url is None:
        return None
    host = http_url(url, "webhook_url")
    reason = forbidden_host_reason(host)
    if reason is not None and not limits.allow_private_webhook_urls:
        raise InvalidRequest(
            f"webhook_url points at {reason}; webhooks are delivered only to public addresses",
            code="url_forbidden",
            param="webhook_url",
        )
    return url


def parse_webhook_url(value: object, limits: RequestLimits) -> str | None:
    """A `webhook_url` by the create's rule (a batch's own webhook takes it too)."""
    return _webhook_url({"webhook_url": value}, limits)


def parse_metadata(value: object) -> dict[str, str]:
    """`metadata` by the create's rule (a batch's own metadata takes it too)."""
    return _metadata({"metadata": value})


def _metadata(body: Mapping[str, object]) -> dict[str, str]:
    value = body.get("metadata")
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidRequest(
            "metadata must be an object of string keys and string values",
            code="parameter_invalid_type",
            param="metadata",
        )
    if len(value) > MAX_METADATA_PAIRS:
        raise InvalidRequest(
            f"metadata may hold at most {MAX_METADATA_PAIRS} pairs",
            code="metadata_invalid",
            param="metadata",
        )
    out: dict[str, str] = {}
    for key, item in value.items():
        if (
            not isinstance(item, str)
            or not key
            or len(key) > MAX_METADATA_KEY
            or len(item) > MAX_METADATA_VALUE
        ):
            raise InvalidRequest(
                f"metadata keys must be 1-{MAX_METADATA_KEY} characters and values strings of at "
                f"most {MAX_METADATA_VALUE} characters",
                code="metadata_invalid",
                param=f"metadata.{str(key)[:MAX_METADATA_KEY]}",
            )
        out[str(key)] = item
    return out


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
