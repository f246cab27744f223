"""References, edits and extensions on fal: each type goes to an app of its own, whose input
fields the catalog route names (fal's typed endpoint schemas differ app by app; see
docs/providers/fal.md, "References, edits and extensions"):

    r2v_model / v2v_model / extend_model   the app of reference-to-video / video-to-video /
                                           video-extend (a route lists a type only with one)
    refs.image / refs.video / refs.audio   the list field of each reference kind
                                           ("image_urls", "video_urls", "audio_urls")
    ref.image                              a single-URL field of a reference image
                                           ("reference_image_url": the first one only)
    source_field                           the source video's field ("video_url"); when it
                                           names the `refs.video` list, the source goes first
                                           in that list (Seedance 2.0 edits by reference)
    "<type>:<option>"                      any option of the text-to-video input for that
                                           type only, e.g. "video-to-video:duration_format" =
                                           "omit", "video-to-video:input.mode" = "flex_1"
                                           ("" drops a fixed input; "field.<control>" = ""
                                           a control the type's app lacks)
    "<type>:prompt_lead"                   put before a prompt that does not name "@video1"
    max_images_with_video                  the most reference images beside a video (a
                                           reference video or the source: Kling's and
                                           Vidu's apps take 4 then, 7 without)

fal fetches every URL itself (or takes a `data:` URI); its runners cannot reach a loopback
address, which the routing refuses at create.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from vidrouter.domain.generation import JsonScalar
from vidrouter.domain.inputs import REFERENCE_TO_VIDEO, VIDEO_EXTEND, VIDEO_TO_VIDEO
from vidrouter.providers import base

APPS = {REFERENCE_TO_VIDEO: "r2v_model", VIDEO_TO_VIDEO: "v2v_model", VIDEO_EXTEND: "extend_model"}
TYPED = tuple(APPS)
SOURCE_NAME = "@video1"


def typed_request(request: base.ProviderRequest) -> tuple[str, base.ProviderRequest]:
    """The app of the request's type, and the request with that type's options in force."""
    options = request.options
    app = options.get(APPS[request.type])
    if not isinstance(app, str) or not app:
        raise base.InvalidInput(f"this fal route makes no {request.type}")
    prefix = f"{request.type}:"
    merged: dict[str, JsonScalar] = {k: v for k, v in options.items() if ":" not in k}
    merged.update({k[len(prefix) :]: v for k, v in options.items() if k.startswith(prefix)})
    # An empty fixed input for the type: the text-to-video app's input this app lacks.
    merged = {k: v for k, v in merged.items() if not (k.startswith("input.") and v == "")}
    if request.controls.generate_audio and merged.get("field.generate_audio") == "":
        raise base.InvalidInput(f"this fal route makes no sound for a {request.type}")
    prompt = request.prompt
    lead = merged.get("prompt_lead")
    if isinstance(lead, str) and lead and SOURCE_NAME not in prompt.lower():
        prompt = lead + prompt
    return app, replace(request, options=merged, prompt=prompt, image_url=None)


def billed_seconds(request: base.ProviderRequest, asked: int) -> int:
    """What fal bills (each generated second): an edit is as long as its source (every
    edit app here makes the source's length), the other types the seconds `asked`."""
    if request.type == VIDEO_TO_VIDEO and request.source is not None:
        return max(1, round(request.source.seconds))
    return asked


def _url(media: base.ProviderMedia) -> str:
    if not media.reachable and not media.url.startswith("data:"):
        raise base.InvalidInput(
            f"fal fetches a {media.kind} by URL, and this one is only reachable from this server"
        )
    return media.url


def media_fields(request: base.ProviderRequest) -> dict[str, Any]:
    """The references and the source, in the fields the route's options name."""
    options = request.options
    fields: dict[str, Any] = {}
    for media in request.references:
        listed = _name(options, f"refs.{media.kind}")
        single = _name(options, f"ref.{media.kind}")
        if listed:
            fields.setdefault(listed, []).append(_url(media))
        elif single and single not in fields:
            fields[single] = _url(media)
        elif not single:
            raise base.InvalidInput(f"this fal app takes no {media.kind} reference")
    _check_images_beside_video(request)
    if request.type in (VIDEO_TO_VIDEO, VIDEO_EXTEND):
        if request.source is None:
            raise base.InvalidInput(f"a {request.type} needs a source video")
        source = _url(request.source.video)
        target = _name(options, "source_field") or "video_url"
        if target == _name(options, "refs.video"):
            fields[target] = [source, *fields.get(target, [])]
        else:
            fields[target] = source
    return fields


def _check_images_beside_video(request: base.ProviderRequest) -> None:
    """The app's cap on images beside a video, which `max_references` (one count per kind)
    cannot say: refused here rather than by fal once the run has been queued."""
    most = request.options.get("max_images_with_video")
    if not isinstance(most, int) or isinstance(most, bool):
        return
    images = sum(1 for m in request.references if m.kind == "image")
    with_video = request.source is not None or any(m.kind == "video" for m in request.references)
    if with_video and images > most:
        raise base.InvalidInput(
            f"this fal app takes at most {most} reference images beside a video"
        )


def _name(options: Mapping[str, JsonScalar], key: str) -> str:
    value = options.get(key)
    return value if isinstance(value, str) else ""
