"""What the fake DashScope checks of the reference, edit and continuation models' bodies.

Fields per model (shared/providers/inputs.md "Alibaba Wan", the dashscope SDK's `MediaType`
and `_get_input`, Model Studio's VACE guide): wan2.6-r2v `input.reference_urls` (images and
videos, 5 at most) with `parameters.size` and a duration of 5 or 10; wan2.7-r2v `input.media`
of `reference_image` / `reference_video` (5 at most); wan2.7-videoedit `input.media` of one
`video` and up to 3 `reference_image`; wan2.7-i2v's continuation, one `first_clip` and a whole
duration of 2-15 s; wan2.1-vace-plus `function` `image_reference` (`ref_images_url` 1-3 with
as many `obj_or_bg`) or `video_repainting` (`video_url`, `control_condition`). Anything else
is refused in DashScope's error shape (`Rejected`).
"""

from __future__ import annotations

from typing import Any

CONTROL_CONDITIONS = ("posebodyface", "posebody", "depth", "scribble")
R2V_SIZES = {"1280*720", "720*1280", "960*960", "1920*1080", "1080*1920", "1440*1440"}
TYPED_INPUTS = {
    "wan2.6-r2v": {"reference_urls"},
    "wan2.6-r2v-flash": {"reference_urls"},
    "wan2.7-r2v": {"media"},
    "wan2.7-videoedit": {"media"},
    "wan2.1-vace-plus": {
        "function",
        "ref_images_url",
        "obj_or_bg",
        "video_url",
        "control_condition",
    },
}
TYPED_PARAMETERS = {
    "wan2.6-r2v": {"size", "duration", "shot_type", "seed", "prompt_extend", "watermark", "audio"},
    "wan2.7-r2v": {"resolution", "ratio", "duration", "seed", "prompt_extend", "watermark"},
    "wan2.7-videoedit": {"resolution", "duration", "audio_setting", "seed", "prompt_extend", "watermark"},
    "wan2.1-vace-plus": {"size", "seed", "prompt_extend", "watermark"},
}  # fmt: skip
TYPED_PARAMETERS["wan2.6-r2v-flash"] = TYPED_PARAMETERS["wan2.6-r2v"]
BASE_INPUTS = {
    "prompt",
    "negative_prompt",
    "extend_prompt",
    "function",
}  # the SDK adds the last two


class Rejected(Exception):
    def __init__(self, message: str, code: str = "InvalidParameter", status: int = 400) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _urls(values: object, what: str) -> list[str]:
    if not isinstance(values, list) or not all(
        isinstance(v, str) and v.startswith(("http://", "https://", "data:image/", "oss://"))
        for v in values
    ):
        raise Rejected(f"{what}: a list of URLs is required.")
    return list(values)


def _media(inp: dict[str, Any], allowed: dict[str, int]) -> dict[str, int]:
    """Counts of each media type, each a known one within its limit."""
    media = inp.get("media")
    if not isinstance(media, list) or not media:
        raise Rejected("input.media is required.")
    counts: dict[str, int] = {}
    for item in media:
        if not isinstance(item, dict) or set(item) != {"type", "url"}:
            raise Rejected("input.media: each item has a type and a url.")
        kind = item["type"]
        if kind not in allowed:
            raise Rejected(f"input.media: type {kind} is not supported by this model.")
        _urls([item["url"]], "input.media.url")
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] > allowed[kind]:
            raise Rejected(f"input.media: at most {allowed[kind]} of type {kind}.")
    return counts


def check_typed(model: str, inp: dict[str, Any], params: dict[str, Any]) -> None:
    """Refuses what DashScope refuses of a typed model's body."""
    for name in sorted(set(inp) - BASE_INPUTS - TYPED_INPUTS[model]):
        raise Rejected(f"Unrecognized field: input.{name}")
    for name in sorted(set(params) - TYPED_PARAMETERS[model]):
        raise Rejected(f"Unrecognized field: parameters.{name}")
    if model.startswith("wan2.6-r2v"):
        urls = _urls(inp.get("reference_urls"), "input.reference_urls")
        if not 1 <= len(urls) <= 5:
            raise Rejected("input.reference_urls: 1 to 5 references.")
        if params.get("duration", 5) not in (5, 10):
            raise Rejected("duration must be 5 or 10.")
        if params.get("size", "1920*1080") not in R2V_SIZES:
            raise Rejected("size is not supported.")
    elif model == "wan2.7-r2v":
        counts = _media(inp, {"reference_image": 5, "reference_video": 5})
        if sum(counts.values()) > 5:
            raise Rejected("input.media: at most 5 references in all.")
        if params.get("duration", 5) not in range(2, 11):
            raise Rejected("duration must be 2 to 10.")
    elif model == "wan2.7-videoedit":
        counts = _media(inp, {"video": 1, "reference_image": 3})
        if counts.get("video") != 1:
            raise Rejected("input.media: one video is required.")
        if params.get("audio_setting", "auto") not in ("auto", "origin"):
            raise Rejected("audio_setting must be auto or origin.")
    elif model == "wan2.1-vace-plus":
        _check_vace(inp)
    if params.get("resolution", "720P") not in ("720P", "1080P"):
        raise Rejected("resolution is not supported.")


def check_continuation(inp: dict[str, Any], params: dict[str, Any]) -> None:
    """wan2.7-i2v with a `first_clip`: no frame images beside it, a whole 2-15 s."""
    counts = _media(inp, {"first_clip": 1, "last_frame": 1, "driving_audio": 1})
    if counts.get("first_clip") != 1:
        raise Rejected("input.media: first_clip is required.")
    if "ratio" in params:
        raise Rejected("Unrecognized field: parameters.ratio")


def _check_vace(inp: dict[str, Any]) -> None:
    function = inp.get("function")
    if function == "image_reference":
        urls = _urls(inp.get("ref_images_url"), "input.ref_images_url")
        kinds = inp.get("obj_or_bg")
        if not 1 <= len(urls) <= 3:
            raise Rejected("input.ref_images_url: 1 to 3 images.")
        if not isinstance(kinds, list) or len(kinds) != len(urls) or kinds.count("bg") > 1:
            raise Rejected("input.obj_or_bg must match ref_images_url, one bg at most.")
        if set(inp) & {"video_url", "control_condition"}:
            raise Rejected("image_reference takes no video.")
    elif function == "video_repainting":
        _urls([inp.get("video_url")], "input.video_url")
        if inp.get("control_condition") not in CONTROL_CONDITIONS:
            raise Rejected("input.control_condition is not supported.")
        if len(_urls(inp.get("ref_images_url", []), "input.ref_images_url")) > 1:
            raise Rejected("video_repainting takes one reference image at most.")
        if "obj_or_bg" in inp:
            raise Rejected("Unrecognized field: input.obj_or_bg")
    else:
        raise Rejected(f"input.function {function!r} is not supported.")
