"""Blob storage for finished videos, and the signed URLs that serve them."""

from vidrouter.storage.base import BlobInfo, BlobStorage
from vidrouter.storage.local import LocalStorage
from vidrouter.storage.signing import UrlSigner

__all__ = ["BlobInfo", "BlobStorage", "LocalStorage", "UrlSigner"]
