"""What makes two creates the same request, for the cache of identical requests.

The key is a SHA-256 over the model, the type, the prompt, the duration, the aspect ratio
and the controls (resolution, seed, sound, negative prompt, prompt rewriting), with every
input named by the SHA-256 of its content, never by its URL: the image and end image, each
reference (its kind and content, in order) and the source video. The same picture or clip
at two addresses (or as a data: URI) is the same request, and a URL whose content changed
is not. Numbers are normalised (1 and 1.0 are equal). Metadata, the webhook and the routing
policy are left out: they do not change the video asked for.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from vidrouter.domain.create_request import CreateRequest

# The request fields that name an input image (their content hash goes into the key).
IMAGE_INPUTS = ("image_url", "end_image_url")


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class InputHashes:
    """The content hash of each input a request gives: `images` by field name, one per
    reference in order, and the source video's."""

    images: Mapping[str, str]
    references: tuple[str, ...] = ()
    video: str | None = None


def cache_key(req: CreateRequest, inputs: InputHashes) -> str:
    """The key of `req`; `inputs` holds the content hash of each input it gives."""
    missing = [name for name in IMAGE_INPUTS if image_of(req, name) and name not in inputs.images]
    if len(inputs.references) != len(req.references):
        missing.append("references")
    if (req.video is None) != (inputs.video is None):
        missing.append("video")
    if missing:
        raise ValueError(f"no content hash for {', '.join(missing)}")
    c = req.controls
    canonical = {
        "model": req.model.id,
        "type": req.type,
        "prompt": req.prompt,
        "duration": _number(req.duration),
        "aspect_ratio": req.aspect_ratio,
        "resolution": c.resolution,
        "seed": None if c.seed is None else int(c.seed),
        "generate_audio": c.generate_audio,
        "negative_prompt": c.negative_prompt,
        "enhance_prompt": c.enhance_prompt,
        "inputs": {name: inputs.images[name] for name in IMAGE_INPUTS if image_of(req, name)},
        "references": [
            [r.kind, digest] for r, digest in zip(req.references, inputs.references, strict=True)
        ],
        "video": inputs.video,
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def image_of(req: CreateRequest, name: str) -> str | None:
    """The URL the request gives for the image field `name`."""
    return req.image_url if name == "image_url" else req.controls.end_image_url


def _number(value: float) -> str:
    """1, 1.0 and 1.00 alike."""
    return repr(float(value))
