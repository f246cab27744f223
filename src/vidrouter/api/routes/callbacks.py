"""Inbound provider callbacks: a provider tells us a job moved; we poll it now.

The URL's token is the only credential (providers cannot send our API keys). A valid token
makes the generation due for a poll; nothing in the body is trusted, so a forged or
replayed callback cannot complete or fail anything.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from vidrouter.api.deps import CallbacksDep
from vidrouter.domain.errors import NotFound
from vidrouter.usecases.callbacks import CALLBACK_PATH

router = APIRouter(prefix=CALLBACK_PATH, tags=["provider callbacks"])


@router.post("/{generation_id}/{token}", status_code=204, response_model=None)
async def provider_callback(generation_id: str, token: str, callbacks: CallbacksDep) -> Response:
    if not await callbacks.poke(generation_id, token):
        raise NotFound("no such callback", code="callback_not_found")
    return Response(status_code=204)
