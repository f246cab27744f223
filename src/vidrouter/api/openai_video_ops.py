"""OpenAI's video operations, translated into the body of our create rules (pure functions;
the routes live in `routes/video_ops.py`, the create's own mapping in `openai_videos_map`):

| OpenAI                                         | ours (the rules of POST /v1/generations)     |
|------------------------------------------------|----------------------------------------------|
| `POST /v1/videos/{id}/remix` `{prompt}`        | `type` video-to-video of generation `id`, on its model, at its length, aspect ratio and resolution; shown with `remixed_from_video_id` |
| `POST /v1/videos/edits` `{prompt, video: {id}}` | `type` video-to-video of that generation (its model unless `model` is given) |
| the same, multipart with a `video` file        | `type` video-to-video of the uploaded MP4 (`model`, else the first listed model that makes video-to-video) |
| `POST /v1/videos/extensions` `{prompt, seconds, video}` | `type` video-extend; `duration` = `seconds`, the seconds added |
| `characters: [{"id"}]` on `POST /v1/videos`    | `references: [{"type": "character", "id"}]`  |

`seconds` and `size` are taken as on a create (`openai_videos_map.parse_seconds`,
`parse_size`); without them a remix or an edit of a generation on its own model keeps the
source's. Errors of our rules are renamed to OpenAI's parameters (`rename_op_error`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vidrouter.api.openai_videos_map import parse_seconds, parse_size
from vidrouter.domain import json_text
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.create_inputs import MAX_REFERENCES
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound, RequestError
from vidrouter.domain.generation import Generation
from vidrouter.domain.inputs import CHARACTER, VIDEO_EXTEND
from vidrouter.domain.request_fields import check_names

__all__ = [
    "OP_FIELDS",
    "REMIX_FIELDS",
    "VideoOp",
    "character_param",
    "character_references",
    "op_body",
    "op_from_form",
    "op_from_json",
    "rename_op_error",
    "renamed",
    "with_characters",
]

REMIX_FIELDS = ("prompt", "seconds", "size")
OP_FIELDS = ("prompt", "seconds", "size", "model", "video")
_FORM_FIELDS = ("prompt", "seconds", "size", "model", "video[id]")
# What our rules check a request for an uploaded source with; the upload replaces it once
# it is kept (usecases.generations.create_from_upload).
UPLOADED = {"url": "data:video/mp4;base64,"}


@dataclass(frozen=True)
class VideoOp:
    """A remix, edit or extension in OpenAI's terms: its type, its fields as given, and its
    source (a video id, or None for a file uploaded with it)."""

    kind: str  # video-to-video or video-extend
    values: Mapping[str, object]
    video_id: str | None
    remix: bool = False


def op_from_json(body: object, kind: str, *, remix_of: str | None = None) -> VideoOp:
    if not isinstance(body, Mapping):
        raise InvalidRequest("the request body must be a JSON object", code="invalid_body")
    check_names(body, REMIX_FIELDS if remix_of is not None else OP_FIELDS)
    if remix_of is not None:
        return VideoOp(kind, body, remix_of, remix=True)
    video = body.get("video")
    if video is None:
        raise _video_missing()
    if not isinstance(video, Mapping) or set(video) != {"id"} or not isinstance(video["id"], str):
        raise InvalidRequest(
            'video must be {"id": "<video id>"} in a JSON body; upload a file with '
            "multipart/form-data",
            code="parameter_invalid_type",
            param="video",
        )
    return VideoOp(kind, body, video["id"])


def op_from_form(fields: Mapping[str, str], kind: str, *, uploaded: bool) -> VideoOp:
    """A multipart body: text fields, the source as the `video` file part or `video[id]`."""
    check_names(fields, _FORM_FIELDS)
    video_id = fields.get("video[id]")
    if uploaded and video_id is not None:
        raise InvalidRequest(
            "give video once: a file or video[id], not both",
            code="parameter_duplicated",
            param="video",
        )
    if not uploaded and video_id is None:
        raise _video_missing()
    return VideoOp(kind, fields, video_id)


def _video_missing() -> InvalidRequest:
    return InvalidRequest(
        'video is required: {"id": "<video id>"}, or an MP4 file part in multipart/form-data',
        code="parameter_missing",
        param="video",
    )


def op_body(
    op: VideoOp, source: Generation | None, models: Sequence[ListedModel]
) -> dict[str, object]:
    """The body for our create rules. `source`: the generation named (None: an upload);
    `models`: those listed, for the default model of an upload."""
    model = op.values.get("model")
    if model is None and source is not None:
        model = source.model
    if model is None:
        model = next((m.id for m in models if op.kind in m.capabilities), None)
        if model is None:
            raise InvalidRequest(
                f"model is required: no {op.kind} model is available to default to",
                code="parameter_missing",
                param="model",
            )
    body: dict[str, Any] = {"model": model, "prompt": op.values.get("prompt"), "type": op.kind}
    body["video"] = {"generation_id": op.video_id} if op.video_id is not None else UPLOADED
    same = source is not None and source.model == model
    seconds, size = op.values.get("seconds"), op.values.get("size")
    if op.kind == VIDEO_EXTEND and seconds is None:
        raise InvalidRequest(
            "seconds is required: the length of the extension, in seconds",
            code="parameter_missing",
            param="seconds",
        )
    if seconds is not None:
        body["duration"] = parse_seconds(seconds)
    elif same and source is not None:
        body["duration"] = source.duration
    if size is not None:
        body["aspect_ratio"], resolution = parse_size(size)
        target = next((m for m in models if m.id == model), None)
        if resolution is not None and (target is None or target.resolutions):
            body["resolution"] = resolution
    elif same and source is not None:
        body["aspect_ratio"] = source.aspect_ratio
        if source.controls.resolution is not None:
            body["resolution"] = source.controls.resolution
    return body


_OP_PARAMS = {
    "duration": "seconds",
    "aspect_ratio": "size",
    "resolution": "size",
    "video.url": "video",
    "video.generation_id": "video.id",
}


def rename_op_error(exc: RequestError, op: VideoOp) -> RequestError:
    """An error of our create rules, naming OpenAI's parameter instead of ours."""
    param = _OP_PARAMS.get(exc.param or "", exc.param)
    if op.remix and param in ("video", "video.id"):
        param = "video_id"
    return renamed(exc, param)


def renamed(exc: RequestError, param: str | None) -> RequestError:
    if param == exc.param or not isinstance(exc, InvalidRequest | NotFound | Conflict):
        return exc
    return type(exc)(exc.message, code=exc.code, param=param)


# --- characters on POST /v1/videos ----------------------------------------------------------


def with_characters(body: dict[str, object], characters: object) -> int | None:
    """`body` with the create's `characters` appended to its references (when it has none
    or a list of them); how many references it had (None: no characters appended)."""
    given = body.get("references")
    if characters is None or not isinstance(given, list | None):
        return None
    refs = list(given or [])
    body["references"] = [*refs, *character_references(characters)]
    return len(refs)


def character_references(value: object) -> list[dict[str, object]]:
    """`characters` of a create (`[{"id": "char_..."}]`; in a form, that array as JSON
    text) as our references; the create rules check each id."""
    if isinstance(value, str):
        try:
            value = json_text.loads(value)
        except json_text.JsonTextError as exc:
            raise InvalidRequest(
                f"characters must be a JSON array: {exc}",
                code="parameter_invalid_type",
                param="characters",
            ) from None
    if not isinstance(value, list) or len(value) > MAX_REFERENCES:
        raise InvalidRequest(
            f'characters must be an array of at most {MAX_REFERENCES} {{"id": "char_..."}}',
            code="parameter_invalid_type",
            param="characters",
        )
    out: list[dict[str, object]] = []
    for i, item in enumerate(value):
        if not isinstance(item, Mapping) or set(item) != {"id"}:
            raise InvalidRequest(
                f'characters[{i}] must be {{"id": "char_..."}}',
                code="parameter_invalid_type",
                param=f"characters[{i}]",
            )
        out.append({"type": CHARACTER, "id": item["id"]})
    return out


def character_param(param: str | None, given_references: int | None) -> str | None:
    """An error's param in the create's terms for a request with `characters` appended to
    its `given_references` references: `references[5].id` -> `characters[3].id`, and
    `references` -> `characters` when only characters were given."""
    if given_references is None or param is None:
        return param
    if param == "references" and given_references == 0:  # only characters were given
        return "characters"
    if not param.startswith("references["):
        return param
    index, _, rest = param[len("references[") :].partition("]")
    if not index.isdecimal() or int(index) < given_references:
        return param
    return f"characters[{int(index) - given_references}]{rest}"
