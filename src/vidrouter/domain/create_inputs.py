"""The create rules of a generation's inputs (`domain/inputs.py`): its `type`, its
`references` and its source `video`, checked against what the model's usable routes make
(`ListedModel.inputs`). Every refusal is an `InvalidRequest` naming its `param`:

| code                   | param        | when                                                    |
|------------------------|--------------|---------------------------------------------------------|
| `type_invalid`         | `type`       | not one of the five types                               |
| `type_required`        | `type`       | a `video` without a type (edit or extension?)           |
| `type_unsupported`     | `type`       | the model (none of its routes) makes that type          |
| `type_mismatch`        | `type`       | the inputs do not fit the type (a video on text-to-video)|
| `references_required`  | `references` | `reference-to-video` without references                 |
| `references_too_many`  | `references` | more of a kind than the model takes (or > 64 in all)    |
| `references_unsupported` | `references` | a kind the model takes none of                        |
| `reference_invalid`    | `references[i]` | not `{"type": image|video|audio, "url": ...}` nor `{"type": "character", "id": "char_..."}` |
| `video_required`       | `video`      | `video-to-video` / `video-extend` without a video       |
| `video_invalid`        | `video`      | not `{"generation_id": "gen_..."}` or `{"url": ...}`    |
| `image_required`       | `image_url`  | image-to-video (or an image-only model) without one     |
| `image_not_supported`  | `image_url`  | an image for a model that takes none                    |

A character reference counts as a video where the model takes video references, else as an
image (a frame of it): `character_kind`. That it exists and is the account's is checked
when it is kept (engine/kept_inputs.py), as is that a source generation exists, is the account's and has finished, and that a source URL
is an MP4 within the model's limits, is checked when it is fetched (the use-case), since
that needs the store and the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vidrouter.domain import ids
from vidrouter.domain import request_fields as fields
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.inputs import (
    CHARACTER,
    IMAGE_TO_VIDEO,
    REFERENCE_KINDS,
    REFERENCE_TO_VIDEO,
    TEXT_TO_VIDEO,
    TYPES,
    VIDEO_TYPES,
    Reference,
    SourceVideo,
    inferred_type,
    reference_counts,
)

__all__ = ["MAX_REFERENCES", "ParsedInputs", "character_kind", "parse_inputs"]

# However many a model takes, a request with more than this is refused before any is read.
MAX_REFERENCES = 64
_DATA_PREFIXES = {
    "image": fields.IMAGE_DATA_PREFIXES,
    "video": ("data:video/mp4;base64,",),
    "audio": ("data:audio/mpeg;base64,", "data:audio/wav;base64,", "data:audio/mp4;base64,"),
}
_SOURCE_KEYS = ("generation_id", "url")


@dataclass(frozen=True)
class ParsedInputs:
    type: str
    asked_type: str | None  # as named; None: inferred
    references: tuple[Reference, ...] = ()
    video: SourceVideo | None = None


def parse_inputs(
    body: Mapping[str, object], model: ListedModel, *, image_url: str | None
) -> ParsedInputs:
    asked = fields.string(body, "type", required=False)
    if asked is not None and asked not in TYPES:
        raise InvalidRequest(
            f"type {asked[:40]!r} is not one of: {', '.join(TYPES)}",
            code="type_invalid",
            param="type",
        )
    references = _references(body.get("references"), model)
    video = _video(body.get("video"))
    if asked is None and video is not None:
        raise InvalidRequest(
            "a video needs its type: video-to-video (an edit of it) or video-extend (more of it)",
            code="type_required",
            param="type",
        )
    kind = asked or inferred_type(image=image_url is not None, references=bool(references))
    _fits(kind, image_url, references, video)
    _offered(kind, asked is not None, image_url, model)
    _counted(references, model)
    return ParsedInputs(kind, asked, references, video)


def _fits(
    kind: str, image_url: str | None, references: tuple[Reference, ...], video: SourceVideo | None
) -> None:
    """The inputs the type needs are there, and none it cannot use."""
    if kind == IMAGE_TO_VIDEO and image_url is None:
        raise InvalidRequest(
            "image-to-video needs image_url", code="image_required", param="image_url"
        )
    if kind == REFERENCE_TO_VIDEO and not references:
        raise InvalidRequest(
            "reference-to-video needs references", code="references_required", param="references"
        )
    if kind in VIDEO_TYPES and video is None:
        raise InvalidRequest(f"{kind} needs a source video", code="video_required", param="video")
    given = [
        name
        for name, used in (("video", video), ("image_url", image_url), ("references", references))
        if used
    ]
    wrong = [n for n in given if n == "video" and kind not in VIDEO_TYPES]
    if kind == TEXT_TO_VIDEO:
        wrong = given
    if wrong:
        raise InvalidRequest(
            f"a {kind} generation takes no {wrong[0]}; name the type it is for",
            code="type_mismatch",
            param="type",
        )


def _offered(kind: str, named: bool, image_url: str | None, model: ListedModel) -> None:
    if kind in model.capabilities:
        return
    if not named and kind == TEXT_TO_VIDEO and IMAGE_TO_VIDEO in model.capabilities:
        raise InvalidRequest(
            f"model {model.id} makes videos from an image only: give image_url",
            code="image_required",
            param="image_url",
        )
    if not named and kind == IMAGE_TO_VIDEO:
        raise InvalidRequest(
            f"model {model.id} does not take an image (capabilities: "
            f"{', '.join(model.capabilities)})",
            code="image_not_supported",
            param="image_url",
        )
    raise InvalidRequest(
        f"model {model.id} does not make {kind} here (its capabilities: "
        f"{', '.join(model.capabilities)}; GET /v1/models lists them)",
        code="type_unsupported",
        param="type",
    )


def _counted(references: tuple[Reference, ...], model: ListedModel) -> None:
    allowed = model.inputs.references or {}
    for kind, count in reference_counts(references).items():
        most = allowed.get(kind, 0)
        if most == 0:
            raise InvalidRequest(
                f"model {model.id} takes no {kind} references (limits.references: {dict(allowed)})",
                code="references_unsupported",
                param="references",
            )
        if count > most:
            raise InvalidRequest(
                f"model {model.id} takes at most {most} {kind} references, not {count}",
                code="references_too_many",
                param="references",
            )


def character_kind(model: ListedModel) -> str | None:
    """What a character is given to `model` as: its video where the model takes video
    references (a character is a clip), else a frame of it as an image; None where it takes
    neither."""
    allowed = model.inputs.references or {}
    return next((kind for kind in ("video", "image") if allowed.get(kind)), None)


def _references(value: object, model: ListedModel) -> tuple[Reference, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise fields.invalid_type("references", "an array of {type, url} objects", value)
    if len(value) > MAX_REFERENCES:
        raise InvalidRequest(
            f"references holds {len(value)} items; no model takes more than {MAX_REFERENCES}",
            code="references_too_many",
            param="references",
        )
    return tuple(_reference(item, f"references[{i}]", model) for i, item in enumerate(value))


def _reference(item: object, param: str, model: ListedModel) -> Reference:
    if isinstance(item, Mapping) and item.get("type") == CHARACTER:
        return _character(item, param, model)
    if not isinstance(item, Mapping) or set(item) != {"type", "url"}:
        raise InvalidRequest(
            f'{param} must be an object {{"type": "image" | "video" | "audio", "url": ...}} '
            'or {"type": "character", "id": "char_..."}',
            code="reference_invalid",
            param=param,
        )
    kind, url = item["type"], item["url"]
    if kind not in REFERENCE_KINDS:
        raise InvalidRequest(
            f"{param}.type must be one of: {', '.join((*REFERENCE_KINDS, CHARACTER))}",
            code="reference_invalid",
            param=f"{param}.type",
        )
    if not isinstance(url, str):
        raise fields.invalid_type(f"{param}.url", "a string", url)
    if url.startswith("data:"):
        if not url.startswith(_DATA_PREFIXES[kind]):
            raise InvalidRequest(
                f"{param}.url: {_an(kind)} data: URI must be one of "
                + ", ".join(p.rstrip(",") for p in _DATA_PREFIXES[kind]),
                code="reference_invalid",
                param=f"{param}.url",
            )
    else:
        fields.http_url(url, f"{param}.url")
    return Reference(str(kind), url)


def _character(item: Mapping[str, object], param: str, model: ListedModel) -> Reference:
    if set(item) != {"type", "id"}:
        raise InvalidRequest(
            f'{param} must be {{"type": "character", "id": "char_..."}}',
            code="reference_invalid",
            param=param,
        )
    given = item["id"]
    if not isinstance(given, str) or not ids.is_character_id(given):
        raise InvalidRequest(
            f"{param}.id must be the id of a character (char_...)",
            code="reference_invalid",
            param=f"{param}.id",
        )
    kind = character_kind(model)
    if kind is None:
        raise InvalidRequest(
            f"model {model.id} takes no image or video references, which a character is "
            f"given as (limits.references: {dict(model.inputs.references or {})})",
            code="references_unsupported",
            param="references",
        )
    return Reference(kind, "", character=given)


def _video(value: object) -> SourceVideo | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or len(value) != 1 or next(iter(value)) not in _SOURCE_KEYS:
        raise InvalidRequest(
            'video must be {"generation_id": "gen_..."} or {"url": "https://..."}',
            code="video_invalid",
            param="video",
        )
    name, given = next(iter(value.items()))
    if not isinstance(given, str):
        raise fields.invalid_type(f"video.{name}", "a string", given)
    if name == "generation_id":
        if not given.startswith("gen_") or len(given) > 64:
            raise InvalidRequest(
                "video.generation_id must be the id of a generation (gen_...)",
                code="video_invalid",
                param="video.generation_id",
            )
        return SourceVideo(generation_id=given)
    if given.startswith("data:") and not given.startswith("data:video/mp4;base64,"):
        raise InvalidRequest(
            "video.url: a data: URI source must be data:video/mp4;base64,",
            code="video_invalid",
            param="video.url",
        )
    if not given.startswith("data:"):
        fields.http_url(given, "video.url")
    return SourceVideo(url=given)


def _an(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"
