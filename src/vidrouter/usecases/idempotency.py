"""When a repeated `Idempotency-Key` carries "the same request": the same meaning, not the
same text. The fingerprint is taken of the request as parsed and normalised by the create
rules (defaults filled in, numbers as numbers, an explicit `null` the same as an absent
field), so `"duration": 1.0` and `1`, or an added `"metadata": null`, replay the original
generation instead of a 409, while any difference in what would be made still conflicts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping

from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.create_request import CreateRequest
from vidrouter.domain.routing import DEFAULT_POLICY


def request_fingerprint(req: CreateRequest) -> str:
    """A hash of everything the parsed request asks for, whatever the body's spelling."""
    if req.routing == DEFAULT_POLICY:  # `routing: {}` asks what no routing asks
        req = dataclasses.replace(req, routing=None)
    if req.video is not None and req.video.uploaded:
        # An upload is kept under each create's own id before the key is looked up: it is
        # the same request by its content (`sha256`), not by where this copy lies.
        req = dataclasses.replace(req, video=dataclasses.replace(req.video, key=None))
    canonical = json.dumps(_plain(req), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _plain(value: object) -> object:
    """`value` as JSON data: dataclasses field by field (every field, so a field added to
    the request counts without this module knowing it), the model by its id, and integral
    floats as integers."""
    if isinstance(value, ListedModel):
        return value.id
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, frozenset | set) else items
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)  # an enum, say: its value
