"""URLs in log lines, without what makes them secret: the query string (a webhook URL's
`?token=`, a presigned URL's `X-Amz-Signature=`, our own signed content URLs) and the
credentials (`https://user:password@host`). The scheme, host, port and path stay, so a line
still says where a request went.

Applied to each whole formatted line (message, extra fields and traceback alike) by the
formatters of `observability/logs.py`, so no logger of ours or of a library can put a
secret URL on stderr, whatever it logs and however.
"""

from __future__ import annotations

import re

# scheme://[userinfo@]host[:port][/path][?query][#fragment]; a URL ends at white space, a
# quote, a backslash (JSON escapes) or an angle bracket.
_URL = re.compile(
    r"""(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,15}://)"""
    r"""(?P<userinfo>[^\s/?#@"'\\<>]*@)?"""
    r"""(?P<rest>[^\s?#"'\\<>]*)"""
    r"""(?P<query>\?[^\s#"'\\<>]*)?"""
    r"""(?P<fragment>\#[^\s"'\\<>]*)?"""
)
HIDDEN = "[redacted]"


def redact_urls(text: str) -> str:
    """`text` with every URL's credentials and query string (and fragment) replaced."""
    if "://" not in text:
        return text
    return _URL.sub(_redacted, text)


def _redacted(match: re.Match[str]) -> str:
    userinfo = f"{HIDDEN}@" if match["userinfo"] else ""
    query = f"?{HIDDEN}" if match["query"] or match["fragment"] else ""
    return f"{match['scheme']}{userinfo}{match['rest']}{query}"
