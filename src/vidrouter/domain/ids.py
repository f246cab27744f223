"""Identifiers: a type prefix and a random, URL-safe, unguessable suffix."""

from __future__ import annotations

import secrets
import string

_ALPHABET = string.ascii_letters + string.digits


def new_id(prefix: str, length: int = 24) -> str:
    return prefix + "".join(secrets.choice(_ALPHABET) for _ in range(length))


def generation_id() -> str:
    return new_id("gen_")


def delivery_id() -> str:
    return new_id("msg_")


def account_id() -> str:
    return new_id("acct_", 16)


def key_id() -> str:
    return new_id("key_", 16)
