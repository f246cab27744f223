"""A generation as the API shows it, in each API's shape: our Generation object (with
freshly signed URLs of its video and poster) and OpenAI's Video object; as a dict, or as the
response's bytes.

The routed endpoints and the poll fast path (`api/fastpath.py`) present through this one
object, so their answers are the same bytes. A finished generation's bytes change only when
its URLs' expiry moves (hourly), so they are kept per (id, expiry) instead of being encoded
on every poll.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from vidrouter.api.openai_videos_map import video_object
from vidrouter.domain.clock import Clock
from vidrouter.domain.generation import Generation
from vidrouter.domain.media import preview_key
from vidrouter.domain.representation import generation_object
from vidrouter.storage.signing import UrlSigner

_CACHED_BODIES = 10_000
_VIDEO = -1  # the cache's "expiry" of a Video object: it has no URL, it never changes


class Presenter:
    def __init__(self, signer: Callable[[], UrlSigner | None], clock: Clock) -> None:
        # `signer` is asked each time: its secret is read from the database at startup.
        self.signer = signer
        self.clock = clock
        self._bodies: OrderedDict[tuple[str, int], bytes] = OrderedDict()

    def __call__(self, g: Generation) -> dict[str, Any]:
        """Our Generation object."""
        signer = self.signer()
        if g.video_key is None or signer is None:
            return generation_object(g, None)
        now = self.clock()
        # The poster's URL is given before it exists, if need be: the content host makes a
        # missing one on request.
        thumbnail = signer.sign(preview_key(g.video_key, "thumbnail"), now)
        return generation_object(g, signer.sign(g.video_key, now), thumbnail)

    def video(self, g: Generation) -> dict[str, Any]:
        """OpenAI's Video object."""
        return video_object(g)

    def generation_json(self, g: Generation) -> bytes:
        """Our Generation object as a response body."""
        signer = self.signer()
        if not g.status.terminal or signer is None:
            return encode(self(g))
        return self._cached((g.id, signer.expires_for(self.clock())), g, self)

    def video_json(self, g: Generation) -> bytes:
        """OpenAI's Video object as a response body."""
        if not g.status.terminal:
            return encode(self.video(g))
        return self._cached((g.id, _VIDEO), g, self.video)

    def _cached(
        self, key: tuple[str, int], g: Generation, shape: Callable[[Generation], object]
    ) -> bytes:
        body = self._bodies.get(key)
        if body is None:
            body = self._bodies[key] = encode(shape(g))
            if len(self._bodies) > _CACHED_BODIES:
                self._bodies.popitem(last=False)
        return body


def encode(obj: object) -> bytes:
    """JSON as the framework's JSONResponse writes it."""
    return json.dumps(
        obj, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")
