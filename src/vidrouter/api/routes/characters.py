"""OpenAI's characters at /v1/videos/characters: a clip uploaded once (multipart `name` +
`video`), then named in creates as a reference (`usecases/characters.py`). Each account
sees only its own: another's id is a 404."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from vidrouter.api.deps import CharactersDep, CurrentKey
from vidrouter.api.routes.video_ops import NOT_POST, post_only
from vidrouter.api.routes.videos import UnsupportedMediaType
from vidrouter.api.schemas import ERRORS_CREATE, ERRORS_ID, ErrorOut
from vidrouter.api.uploads import is_multipart, upload_form
from vidrouter.domain.request_fields import check_names
from vidrouter.store.characters import Character

router = APIRouter(prefix="/v1/videos/characters", tags=["openai-compatible videos"])

_FIELDS = ("name",)


class CharacterOut(BaseModel):
    id: str = Field(examples=["char_4ZcXb2cV9kLmN3pQrS4tUvW8"])
    object: Literal["character"] = "character"
    name: str
    created_at: int = Field(description="Unix seconds.")


class CharacterDeletedOut(BaseModel):
    id: str
    object: Literal["character.deleted"] = "character.deleted"
    deleted: Literal[True] = True


@router.post(
    "",
    response_model=None,
    responses={
        200: {"model": CharacterOut},
        413: {"model": ErrorOut, "description": "The upload exceeds the server's limit"},
        415: {"model": ErrorOut},
        **ERRORS_CREATE,
    },
    # Described in docs/api.md rather than /openapi.json: whether the upload is taken
    # depends on the file's content (a playable MP4), which no schema can say.
    include_in_schema=False,
)
async def create_character(
    request: Request, characters: CharactersDep, key: CurrentKey
) -> JSONResponse:
    """Keep a character: its name and clip. Name it in creates as
    `{"type": "character", "id": ...}` (or `characters: [{"id": ...}]` on /v1/videos)."""
    if not is_multipart(request):
        raise UnsupportedMediaType(
            "send multipart/form-data with a name and a video file", code="unsupported_media_type"
        )
    async with upload_form(request, file_field="video") as form:
        check_names(form.fields, _FIELDS)
        made = await characters.create(key.account_id, form.fields.get("name"), form.file)
    return JSONResponse(character_object(made))


router.add_api_route("", post_only, methods=NOT_POST, include_in_schema=False)


@router.get(
    "/{character_id}", response_model=None, responses={200: {"model": CharacterOut}, **ERRORS_ID}
)
async def retrieve_character(
    character_id: str, characters: CharactersDep, key: CurrentKey
) -> JSONResponse:
    return JSONResponse(character_object(await characters.get(key.account_id, character_id)))


@router.delete(
    "/{character_id}",
    response_model=None,
    responses={200: {"model": CharacterDeletedOut}, **ERRORS_ID},
)
async def delete_character(
    character_id: str, characters: CharactersDep, key: CurrentKey
) -> JSONResponse:
    """Delete the character and its media; generations that named it keep their copy."""
    removed = await characters.delete(key.account_id, character_id)
    return JSONResponse({"id": removed.id, "object": "character.deleted", "deleted": True})


def character_object(c: Character) -> dict[str, Any]:
    return {
        "id": c.id,
        "object": "character",
        "name": c.name,
        "created_at": int(c.created_at.timestamp()),
    }
