"""Identifiers: a type prefix and a random, URL-safe, unguessable suffix."""

from __future__ import annotations

import re
import secrets
import string

_ALPHABET = string.ascii_letters + string.digits
# What a generation id can be (with room for '-' and '_'): anything else names none, and is
# answered without a query (PostgreSQL would refuse a NUL in it with an error).
_GENERATION_ID = re.compile(r"gen_[A-Za-z0-9_-]{1,60}")


def new_id(prefix: str, length: int = 24) -> str:
    return prefix + "".join(secrets.choice(_ALPHABET) for _ in range(length))


def generation_id() -> str:
    return new_id("gen_")


def is_generation_id(value: str) -> bool:
    return _GENERATION_ID.fullmatch(value) is not None


def delivery_id() -> str:
    return new_id("msg_")


def account_id() -> str:
    return new_id("acct_", 16)


def key_id() -> str:
    return new_id("key_", 16)


def batch_id() -> str:
    return new_id("batch_")


def character_id() -> str:
    return new_id("char_")


def is_character_id(value: str) -> bool:
    return _CHARACTER_ID.fullmatch(value) is not None


def is_batch_id(value: str) -> bool:
    return _BATCH_ID.fullmatch(value) is not None


_BATCH_ID = re.compile(r"batch_[A-Za-z0-9]{1,60}")
_CHARACTER_ID = re.compile(r"char_[A-Za-z0-9]{1,60}")
