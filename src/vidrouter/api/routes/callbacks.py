"""Inbound provider callbacks: a provider tells us a job moved; we poll it now.

The URL's token is the credential every provider can carry (they cannot send our API keys);
a provider that signs its callbacks (Vidu) has its signature checked too. A provider whose
webhooks are registered once per account (PixVerse, at `/v1/provider-callbacks/pixverse`)
is trusted by its signature alone. A valid callback makes the generation due for a poll;
nothing in the body is trusted, so a forged or replayed callback cannot complete or fail
anything.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from vidrouter.api.deps import CallbacksDep
from vidrouter.domain.errors import NotFound
from vidrouter.usecases.callbacks import CALLBACK_PATH, CallbackDelivery

router = APIRouter(prefix=CALLBACK_PATH, tags=["provider callbacks"])


@router.post("/{generation_id}/{token}", status_code=204, response_model=None)
async def provider_callback(
    generation_id: str, token: str, request: Request, callbacks: CallbacksDep
) -> Response:
    delivery = CallbackDelivery(
        request.method, str(request.url), dict(request.headers), await request.body()
    )
    if not await callbacks.poke(generation_id, token, delivery):
        raise NotFound("no such callback", code="callback_not_found")
    return Response(status_code=204)


@router.post("/{provider}", response_model=None)
async def provider_webhook(provider: str, request: Request, callbacks: CallbacksDep) -> Response:
    """A provider's signed account-wide webhook; PixVerse retries until it reads `ok`."""
    delivery = CallbackDelivery(
        request.method, str(request.url), dict(request.headers), await request.body()
    )
    if not await callbacks.signed(provider, delivery):
        raise NotFound("no such callback", code="callback_not_found")
    return PlainTextResponse("ok")
