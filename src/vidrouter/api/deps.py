"""Dependencies of the routes, named once as `Annotated` aliases. Each route takes only the
parts it uses; the composition root (`vidrouter.composition`) builds them once, as one
`ApiParts`, and hands them to `api.app.create_app`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, TypeVar

from fastapi import Depends, Request

from vidrouter.api.errors import AuthError
from vidrouter.api.presenter import Presenter
from vidrouter.domain.clock import Clock
from vidrouter.domain.errors import NotFound
from vidrouter.observability import Observer
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.previews import Previews
from vidrouter.storage.signing import UrlSigner
from vidrouter.store.keys import ApiKey, KeyStore
from vidrouter.store.usage import UsageStore
from vidrouter.usecases.batches import Batches
from vidrouter.usecases.budgets import Budgets, remember_key
from vidrouter.usecases.callbacks import ProviderCallbacks
from vidrouter.usecases.characters import Characters
from vidrouter.usecases.generations import Generations, check_idempotency_key
from vidrouter.usecases.models import ModelCatalog
from vidrouter.usecases.rate_limits import Limiter, enforce

T = TypeVar("T")


class Readiness(Protocol):
    """What /readyz asks of the process: (ready, the body to answer); see
    usecases/readiness.py."""

    async def check(self) -> tuple[bool, dict[str, Any]]: ...


@dataclass(frozen=True)
class ContentHost:
    """What serving stored blobs at signed URLs needs."""

    storage: BlobStorage
    signer_of: Callable[[], UrlSigner | None]  # set once the process has opened
    clock: Clock
    previews: Previews  # a video's poster and sprite sheet, made here when missing
    redirect: bool = False  # VIDROUTER_CONTENT_DELIVERY=redirect: 302 to the store

    @property
    def signer(self) -> UrlSigner | None:
        return self.signer_of()


@dataclass(frozen=True)
class ApiParts:
    """Everything the routes may use, and nothing else."""

    generations: Generations
    catalog: ModelCatalog
    keys: KeyStore
    limiter: Limiter
    presenter: Presenter
    storage: BlobStorage
    content: ContentHost
    callbacks: ProviderCallbacks
    usage: UsageStore
    clock: Clock
    readiness: Readiness
    observer: Observer
    batches: Batches
    budgets: Budgets | None = None  # None: no budget header (e.g. an app without budgets)
    characters: Characters | None = None  # None: no characters (404 on their routes)


def _parts(request: Request) -> ApiParts:
    parts: ApiParts = request.app.state.parts
    return parts


def _part(pick: Callable[[ApiParts], T]) -> Callable[[Request], T]:
    """The dependency answering `pick` of the app's parts."""

    def part(request: Request) -> T:
        return pick(_parts(request))

    return part


def _characters(request: Request) -> Characters:
    characters = _parts(request).characters
    if characters is None:
        raise NotFound("this server keeps no characters", code="not_found")
    return characters


def _idempotency_key(request: Request) -> str | None:
    return check_idempotency_key(request.headers.get("idempotency-key"))


GenerationsDep = Annotated[Generations, Depends(_part(lambda p: p.generations))]
BatchesDep = Annotated[Batches, Depends(_part(lambda p: p.batches))]
CatalogDep = Annotated[ModelCatalog, Depends(_part(lambda p: p.catalog))]
KeysDep = Annotated[KeyStore, Depends(_part(lambda p: p.keys))]
LimiterDep = Annotated[Limiter, Depends(_part(lambda p: p.limiter))]
PresenterDep = Annotated[Presenter, Depends(_part(lambda p: p.presenter))]
StorageDep = Annotated[BlobStorage, Depends(_part(lambda p: p.storage))]
ContentDep = Annotated[ContentHost, Depends(_part(lambda p: p.content))]
CallbacksDep = Annotated[ProviderCallbacks, Depends(_part(lambda p: p.callbacks))]
UsageDep = Annotated[UsageStore, Depends(_part(lambda p: p.usage))]
ClockDep = Annotated[Clock, Depends(_part(lambda p: p.clock))]
ReadinessDep = Annotated[Readiness, Depends(_part(lambda p: p.readiness))]
CharactersDep = Annotated[Characters, Depends(_characters)]
# The `Idempotency-Key` header, checked (usecases/generations.py); after `CurrentKey` in a
# route's parameters, so that a request without a valid API key is a 401 first.
IdempotencyKey = Annotated[str | None, Depends(_idempotency_key)]


async def authenticate(request: Request, keys: KeysDep, limiter: LimiterDep) -> ApiKey:
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
    key = await keys.authenticate(token) if len(token) <= 200 else None
    if key is None:
        # Never echo the key back: it may be a real secret pasted in the wrong place.
        raise AuthError("invalid_api_key", "the API key is not valid (unknown or revoked)")
    enforce(await limiter.hit(request.scope, key))
    remember_key(request.scope.setdefault("state", {}), key)  # for the budget header
    return key


CurrentKey = Annotated[ApiKey, Depends(authenticate)]
