"""Dependencies of the routes, named once as `Annotated` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from vidrouter.api import limits
from vidrouter.api.errors import AuthError
from vidrouter.service import Service
from vidrouter.store.keys import ApiKey


async def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


ServiceDep = Annotated[Service, Depends(get_service)]


async def authenticate(request: Request, service: ServiceDep) -> ApiKey:
    header = request.headers.get("authorization")
    if header is None:
        raise AuthError(
            "missing_api_key",
            "no API key given; send the header 'Authorization: Bearer <API_KEY>'",
        )
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise AuthError(
            "invalid_authorization_header",
            "the Authorization header must be 'Bearer <API_KEY>'",
        )
    key = await service.keys.authenticate(token) if len(token) <= 200 else None
    if key is None:
        # Never echo the key back: it may be a real secret pasted in the wrong place.
        raise AuthError("invalid_api_key", "the API key is not valid (unknown or revoked)")
    limits.enforce(await service.limiter.hit(request.scope, key))
    return key


CurrentKey = Annotated[ApiKey, Depends(authenticate)]
