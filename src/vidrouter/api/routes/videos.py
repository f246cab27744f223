"""The OpenAI-compatible Videos API at /v1/videos (being built)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/v1/videos", tags=["openai-compatible videos"])
