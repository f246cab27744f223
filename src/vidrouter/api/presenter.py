"""A generation as the API shows it: the public object with a freshly signed video_url."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vidrouter.domain.clock import Clock
from vidrouter.domain.generation import Generation
from vidrouter.domain.representation import generation_object
from vidrouter.storage.signing import UrlSigner


class Presenter:
    def __init__(self, signer: Callable[[], UrlSigner | None], clock: Clock) -> None:
        # `signer` is asked each time: its secret is read from the database at startup.
        self.signer = signer
        self.clock = clock

    def __call__(self, g: Generation) -> dict[str, Any]:
        signer = self.signer()
        url = None
        if g.video_key is not None and signer is not None:
            url = signer.sign(g.video_key, self.clock())
        return generation_object(g, url)
