"""Replicate, a host: many makers' video models behind one prediction API.

Wire format (replicate SDK 1.0.7: client.py, prediction.py, model.py; replicate.com/docs):

    create  POST /v1/models/{owner}/{name}/predictions  {"input": {...}, "webhook"?,
            "webhook_events_filter"?: ["completed"]}  -> 201, a Prediction in `starting`
            ("owner/name:<version>", a community model, goes to POST /v1/predictions)
    poll    GET  /v1/predictions/{id} -> status starting | processing | succeeded | failed |
            canceled | aborted; output (a URL, or a list of URLs); error (text); logs
    cancel  POST /v1/predictions/{id}/cancel
    errors  RFC 7807 bodies {"title", "detail", "status"}: 401, 402 (credit), 404, 422 (input,
            with `invalid_fields`), 429 ("Your rate limit resets in ~30s"), 5xx

No `Prefer: wait` header is sent, so a create answers at once. Replicate has no idempotency
key (a create whose answer is lost and is retried can start a second, billed prediction) and
no metadata field. The outputs of API predictions are deleted an hour after they finish: the
engine downloads a result in the same step that sees it succeed.

Only the input differs between models, so each route names its model's input fields in its
catalog options (adding a model Replicate serves is a catalog edit, see
docs/providers/replicate.md): `prompt_field`, `duration_field`, `aspect_ratio_field` and
`image_field` (an empty string: the model has no such input), `duration_format` ("int",
"string" or "seconds" for "5s"), `aspect_ratio_map` ("16:9=1280*720,9:16=720*1280" for models
that take a size), `i2v_model` (the model used when an image is given), fixed inputs
`input.<name>` (`t2v_input.<name>` / `i2v_input.<name>` for one mode only), any option
prefixed `i2v_` overrides its plain form when an image is given, and the model's field for
each of our controls, `field.<control>` (`"field.end_image_url" = "last_frame"`, with
`values.<control>` where the model spells a value differently: providers/controls_fields.py).
An edit goes to the route's `v2v_model` with options of its own (`inputs.py`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar
from urllib.parse import urlsplit

from vidrouter.domain.generation import JsonScalar
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.controls_fields import control_inputs, field_name, pairs
from vidrouter.providers.images import decode_data_uri
from vidrouter.providers.replicate import errors
from vidrouter.providers.replicate import inputs as inputs_module

log = logging.getLogger(__name__)

NAME = "replicate"
TOKEN_ENV = "REPLICATE_API_TOKEN"
DEFAULT_BASE_URL = "https://api.replicate.com"
OFFICIAL_CREATE = "/v1/models/{model}/predictions"
VERSION_CREATE = "/v1/predictions"
PREDICTION_PATH = "/v1/predictions/{id}"
CANCEL_PATH = "/v1/predictions/{id}/cancel"
MODEL_PATH = "/v1/models/{model}"
FILES_PATH = "/v1/files"
SECRET_PATH = "/v1/webhooks/default/secret"
# Replicate recommends data URIs only for files under 1 MB; larger images are uploaded first.
DATA_URI_LIMIT = 1024 * 1024
# The aspect ratios our catalog uses, in the order they are listed.
OUR_RATIOS = ("16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3", "21:9", "9:21")

Options = Mapping[str, JsonScalar]

_STATES: Mapping[str, base.JobState] = {
    "starting": base.JobState.QUEUED,
    "processing": base.JobState.RUNNING,
    "succeeded": base.JobState.SUCCEEDED,
    "failed": base.JobState.FAILED,
    "canceled": base.JobState.CANCELED,
    "aborted": base.JobState.FAILED,  # its deadline passed before it started; not billed
}
# tqdm progress lines in `logs`, as the SDK's Prediction.Progress reads them.
_PROGRESS = re.compile(r"^\s*(\d+)%\s*\|.+?\|\s*\d+/\d+", re.MULTILINE)


class ReplicateProvider:
    name: ClassVar[str] = NAME
    # Video models take about 1-6 minutes; Replicate stops a prediction after 30 minutes of
    # running (replicate.com/docs/topics/predictions/lifecycle), plus time queued.
    poll_policy = base.PollPolicy.seconds(10, 5, 20, give_up=40 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        self._base_url = config.base_url
        self._auth = {"Authorization": f"Bearer {config.key(TOKEN_ENV)}"}
        self._client = http.client_for(config, {**self._auth, "Accept": "application/json"})

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        typed = request.type in inputs_module.TYPED
        if typed:
            request = inputs_module.typed_request(request)
        model, inputs = route_input(request)
        if typed:
            source_field, url = inputs_module.source_input(request)
            inputs[source_field] = url
        if request.image_url is not None:
            field = route_field(request.options, "image_field", True, "image")
            if field is None:
                raise base.InvalidInput(f"Replicate model {model} takes no image on this route")
            inputs[field] = await self._image_value(request.image_url)
        end_field = field_name(request.options, "end_image_url")
        if end_field is not None and end_field in inputs:
            inputs[end_field] = await self._image_value(str(inputs[end_field]), "end_image_url")
        path, body = _create_target(model)
        body["input"] = inputs
        if request.callback_url is not None:
            body["webhook"] = request.callback_url
            body["webhook_events_filter"] = ["completed"]
        response = await http.send(
            self._client, "POST", path, json=body, refine=errors.refine_for_model(model)
        )
        prediction = http.json_object(response)
        prediction_id = prediction.get("id")
        if not isinstance(prediction_id, str) or not prediction_id:
            raise base.MalformedResponse("Replicate answered the create without a prediction id")
        return base.ProviderJob(
            prediction_id, {"model": model, "duration": round(request.duration)}
        )

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        return _status(await self._get(job.id), job)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        url = http.stored_url(job)
        if url is None:
            url = http.stored_url(
                base.ProviderJob(job.id, _status(await self._get(job.id), job).data or {})
            )
        # Outputs live on replicate.delivery, public; the token goes only to the API's host.
        same_host = urlsplit(url or "").netloc == urlsplit(self._base_url).netloc
        return http.result_at(
            url, f"Replicate prediction {job.id}", self._auth if same_host else {}
        )

    async def cancel(self, job: base.ProviderJob) -> None:
        await http.delete_tolerating(
            self._client,
            "POST",
            CANCEL_PATH.format(id=job.id),
            gone=(404, 409, 422),  # gone, or already finished
            refine=errors.refine,
        )

    async def webhook_secret(self) -> str:
        """The account's webhook signing secret (`whsec_...`), for `verify_webhook`."""
        response = await http.send(self._client, "GET", SECRET_PATH, refine=errors.refine)
        key = http.json_object(response).get("key")
        if not isinstance(key, str) or not key:
            raise base.MalformedResponse("Replicate answered the webhook secret without a key")
        return key

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _get(self, prediction_id: str) -> dict[str, Any]:
        try:
            response = await http.send(
                self._client, "GET", PREDICTION_PATH.format(id=prediction_id), refine=errors.refine
            )
        except base.ProviderError as exc:
            if exc.status_code != 404:
                raise
            text = f"Replicate no longer has prediction {prediction_id}"
            raise http.reclassify(
                exc, base.JobFailed, text, retryable=True, provider_code="not_found"
            ) from exc
        return http.json_object(response)

    async def _image_value(self, url: str, param: str = "image_url") -> str:
        """What Replicate takes as a file input: a URL it fetches, a data URI, or the URL of
        a file uploaded to its files API (as the SDK does with local files)."""
        if url.startswith(("https://", "http://")):
            return url
        if not url.startswith("data:"):
            raise base.InvalidInput(f"{param} must be an http(s) URL or a data: URI")
        data, mime = decode_data_uri(url)
        if len(data) <= DATA_URI_LIMIT:
            return url
        stem = "last-frame" if param == "end_image_url" else "first-frame"
        name = f"{stem}.png" if mime == "image/png" else f"{stem}.jpg"
        response = await http.send(
            self._client,
            "POST",
            FILES_PATH,
            files={"content": (name, data, mime)},
            refine=errors.refine,
        )
        urls = http.json_object(response).get("urls")
        get = urls.get("get") if isinstance(urls, dict) else None
        if not isinstance(get, str) or not get:
            raise base.MalformedResponse("Replicate answered the file upload without urls.get")
        return get


# --- the request ----------------------------------------------------------------------------


def route_input(request: base.ProviderRequest) -> tuple[str, dict[str, Any]]:
    """The Replicate model and its input for a request, from the route's field table (the
    image, which may need an upload, is added by the adapter)."""
    options, image = request.options, request.image_url is not None
    model = request.model
    i2v_model = options.get("i2v_model")
    if image and isinstance(i2v_model, str) and i2v_model:
        model = i2v_model
    inputs: dict[str, Any] = {}
    prompt_field = route_field(options, "prompt_field", image, "prompt")
    if prompt_field:
        inputs[prompt_field] = request.prompt
    duration_field = route_field(options, "duration_field", image, "duration")
    if duration_field:
        inputs[duration_field] = _duration(
            request.duration, _setting(options, "duration_format", image)
        )
    ratio_field = route_field(options, "aspect_ratio_field", image, "aspect_ratio")
    if ratio_field:
        mapping = pairs(_setting(options, "aspect_ratio_map", image))
        if mapping and request.aspect_ratio not in mapping:
            raise base.InvalidInput(
                f"aspect ratio {request.aspect_ratio} is not offered by {model}"
            )
        inputs[ratio_field] = mapping.get(request.aspect_ratio, request.aspect_ratio)
    for prefix in ("input.", "i2v_input." if image else "t2v_input."):
        for key, value in options.items():
            if key.startswith(prefix):
                inputs[key[len(prefix) :]] = value
    # The user's controls win over a route's fixed inputs of the same name.
    inputs.update(control_inputs(options, request.controls))
    return model, inputs


def _setting(options: Options, key: str, image: bool) -> JsonScalar:
    if image and f"i2v_{key}" in options:
        return options[f"i2v_{key}"]
    return options.get(key)


def route_field(options: Options, key: str, image: bool, default: str) -> str | None:
    value = _setting(options, key, image)
    return default if value is None else (str(value) or None)


def _duration(seconds: float, fmt: JsonScalar) -> int | str:
    whole = round(seconds)
    if fmt == "string":
        return str(whole)
    if fmt == "seconds":
        return f"{whole}s"
    return whole


def _create_target(model: str) -> tuple[str, dict[str, Any]]:
    name, _, version = model.partition(":")
    owner, _, short = name.partition("/")
    if not owner or not short or "/" in short:
        raise base.AccountRefused(
            f"the route's Replicate model {model!r} is not owner/name[:version]"
        )
    if version:
        return VERSION_CREATE, {"version": version}
    return OFFICIAL_CREATE.format(model=name), {}


# --- the answers ----------------------------------------------------------------------------


def _status(prediction: dict[str, Any], job: base.ProviderJob) -> base.ProviderStatus:
    status = prediction.get("status")
    state = _STATES.get(status) if isinstance(status, str) else None
    if state is None:
        log.warning("replicate_unknown_status", extra={"job_id": job.id, "status": str(status)})
        return base.ProviderStatus(base.JobState.RUNNING)
    if status == "aborted":
        error = base.JobFailed(
            f"Replicate aborted prediction {job.id}: it did not start before its deadline",
            retryable=True,
            provider_code="aborted",
        )
        return base.ProviderStatus(base.JobState.FAILED, error=error)
    if state is base.JobState.FAILED:
        return base.ProviderStatus(state, error=errors.job_failure(prediction.get("error"), job.id))
    if state is base.JobState.SUCCEEDED:
        url = _output_url(prediction.get("output"))
        if url is None and prediction.get("data_removed") is True:
            error = base.JobFailed(
                f"Replicate deleted the output of prediction {job.id} (kept one hour)",
                retryable=True,
                provider_code="data_removed",
            )
            return base.ProviderStatus(base.JobState.FAILED, error=error)
        if url is None:
            raise base.MalformedResponse(
                f"Replicate prediction {job.id} succeeded without an output"
            )
        duration = job.data.get("duration")
        billed = float(duration) if isinstance(duration, int | float) else None
        data = {**job.data, "video_url": url}
        return base.ProviderStatus(state, progress=100, billed_seconds=billed, data=data)
    if state is base.JobState.RUNNING:
        return base.ProviderStatus(state, progress=_progress(prediction.get("logs")))
    return base.ProviderStatus(state)


def _output_url(output: object) -> str | None:
    if isinstance(output, list):
        output = next((item for item in output if isinstance(item, str)), None)
    return output if isinstance(output, str) and output else None


def _progress(logs: object) -> int | None:
    if not isinstance(logs, str):
        return None
    found = _PROGRESS.findall(logs)
    return max(0, min(99, int(found[-1]))) if found else None


async def _published(config: AdapterConfig, wanted: Sequence[str]) -> list[base.PublishedModel]:
    # The catalog reader is built on this module's names, so it is imported when asked for.
    from vidrouter.providers.replicate import catalog

    return await catalog.published(config, wanted)


FACTORY = ProviderFactory(
    NAME, (TOKEN_ENV,), ReplicateProvider, DEFAULT_BASE_URL, catalog_reader=_published
)

__all__ = ["FACTORY", "ReplicateProvider", "route_input"]
