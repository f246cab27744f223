"""The HTTP server under `vidrouter serve`: uvicorn's httptools protocol extended with the
limits a server facing clients directly needs (`limits`) and the ASGI
`http.response.zerocopysend` extension (`zerocopy`).

These subclass uvicorn's private protocol (`uvicorn.protocols.http.httptools_impl`), so
`pyproject.toml` pins uvicorn to the versions the tests cover
(`tests/test_hardening_server.py`, `tests/test_content_zerocopy.py`)."""

from vidrouter.server.limits import LimitedHttpToolsProtocol, limited_protocol, server_options
from vidrouter.server.zerocopy import EXTENSION, ZeroCopySend

__all__ = [
    "EXTENSION",
    "LimitedHttpToolsProtocol",
    "ZeroCopySend",
    "limited_protocol",
    "server_options",
]
