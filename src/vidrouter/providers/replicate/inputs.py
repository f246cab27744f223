"""Edits on Replicate: a route's `v2v_model` names the Replicate model of its video-to-video
(`luma/modify-video` for Ray 2), `source_field` its input of the source video ("video"), and
options written `"video-to-video:<option>"` replace the text-to-video ones for that type
(`"video-to-video:duration_field" = ""`: the model takes no duration;
`"video-to-video:input.mode" = "flex_1"`). See docs/providers/replicate.md.

Replicate fetches an input URL itself; a source only this server can serve cannot reach it
(the routing refuses such a generation at create).
"""

from __future__ import annotations

from dataclasses import replace

from vidrouter.domain.generation import JsonScalar
from vidrouter.domain.inputs import VIDEO_TO_VIDEO
from vidrouter.providers import base

MODELS = {VIDEO_TO_VIDEO: "v2v_model"}
TYPED = tuple(MODELS)


def typed_request(request: base.ProviderRequest) -> base.ProviderRequest:
    """The request on its type's model, with that type's options in force."""
    options = request.options
    model = options.get(MODELS[request.type])
    if not isinstance(model, str) or not model:
        raise base.InvalidInput(f"this Replicate route makes no {request.type}")
    prefix = f"{request.type}:"
    merged: dict[str, JsonScalar] = {
        k: v for k, v in options.items() if ":" not in k and k != "i2v_model"
    }
    merged.update({k[len(prefix) :]: v for k, v in options.items() if k.startswith(prefix)})
    return replace(request, model=model, options=merged, image_url=None)


def source_input(request: base.ProviderRequest) -> tuple[str, str]:
    """The source video's field and URL."""
    if request.source is None:
        raise base.InvalidInput(f"a {request.type} needs a source video")
    media = request.source.video
    if not media.reachable:
        raise base.InvalidInput(
            "Replicate fetches the source video by URL, and this one is only reachable from "
            "this server"
        )
    field = request.options.get("source_field")
    return (field if isinstance(field, str) and field else "video"), media.url
