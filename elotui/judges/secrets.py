"""The secrets an endpoint's settings carry, cut out of every text that leaves the judge layer.

Besides the API key (read from its variable at call time, elotui.judges.http), a `base_url` may carry
credentials: `https://user:password@host` (httpx sends them as `Authorization: Basic base64(user:password)`),
a token as the user name alone, or a query parameter such as `?api_key=...`. A server that echoes the request
would otherwise put them in the store. `redact_url` is the URL as shown and recorded (no userinfo, secret query
values replaced); `url_secrets` lists each secret in every form an echo may hold it (as written, percent-decoded,
and the Basic credential), for `Redactor` to replace in text.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

REDACTED = "[redacted]"
# Query parameter names that hold a credential: api_key, key, access_token, token, client_secret, password, sig...
SECRET_PARAM = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
MIN_NAME_TOKEN = 8  # a user name alone (no password) is taken for a token from this length on


def _is_secret_param(pair: str) -> bool:
    name, sep, value = pair.partition("=")
    return bool(sep and value and SECRET_PARAM.search(unquote_plus(name)))


def redact_url(url: str) -> str:
    """The URL without its userinfo (`http://user:password@host` -> `http://host`) and with the values of its
    secret query parameters replaced (`?api_key=abc&v=1` -> `?api_key=[redacted]&v=1`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.split("://", 1)[0] + "://" + url.rsplit("@", 1)[-1].split("?", 1)[0]
    pairs = parts.query.split("&") if parts.query else []
    if "@" not in parts.netloc and not any(_is_secret_param(p) for p in pairs):
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = "&".join(p.partition("=")[0] + "=" + REDACTED if _is_secret_param(p) else p for p in pairs)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_secrets(url: str) -> list[str]:
    """Every secret the URL carries, in each form it may be echoed: the password (as written and decoded), a
    token given as the user name alone, the Basic credential built from them, and secret query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    if "@" in parts.netloc:
        user_raw, _, password_raw = parts.netloc.rsplit("@", 1)[0].partition(":")
        user, password = unquote(user_raw), unquote(password_raw)
        if password:
            found += [password_raw, password]
        elif len(user) >= MIN_NAME_TOKEN:
            found += [user_raw, user]
        found.append(base64.b64encode(f"{user}:{password}".encode()).decode("ascii"))
    for pair in parts.query.split("&") if parts.query else []:
        if _is_secret_param(pair):
            value = pair.partition("=")[2]
            found += [value, unquote_plus(value)]
    return sorted({s for s in found if s}, key=len, reverse=True)  # longest first: no secret is cut in two


class Redactor:
    """Replaces an endpoint's secrets in text: the key (asked for each time: it is never kept) and its URL's."""

    def __init__(self, url: str, key: Callable[[], str | None]) -> None:
        self._url_secrets = url_secrets(url)
        self._key = key

    def __call__(self, text: str) -> str:
        key = self._key()
        for secret in ([key] if key else []) + self._url_secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text
