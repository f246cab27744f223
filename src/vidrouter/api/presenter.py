"""A generation as the API shows it: the public object with a freshly signed video_url."""

from __future__ import annotations

from typing import Any

from vidrouter.domain.generation import Generation
from vidrouter.domain.representation import generation_object
from vidrouter.service import Service


def present(service: Service, g: Generation) -> dict[str, Any]:
    url = None
    if g.video_key is not None and service.signer is not None:
        url = service.signer.sign(g.video_key, service.clock())
    return generation_object(g, url)
