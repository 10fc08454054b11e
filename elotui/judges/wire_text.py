"""Text from a provider's reply made storable: every string is valid Unicode before it reaches SQLite, a JSON
file or a terminal.

A JSON reply may carry half of a UTF-16 surrogate pair (`"cut emoji \\ud83d"`: a model or a proxy cut an emoji
in two); Python decodes it to a lone surrogate, which no UTF-8 encoder takes, so storing it failed and the paid
answer was lost. Pairs are joined; a lone half is kept as the escape it arrived as (`storable`: the reply's own
text, shown raw) or becomes U+FFFD (`readable`: reasoning and error messages, read by people).
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89abcdefABCDEF]")  # what a JSON text says to make one


def _joined(text: str) -> str:
    """Surrogate pairs made whole characters; lone halves left as they are."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def storable(text: str) -> str:
    """`text` with each lone surrogate written as its escape (`\\ud83d`), as the JSON reply had it."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _joined(text).encode("utf-8", "backslashreplace").decode("utf-8")


def readable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (the replacement character)."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", _joined(text))


def may_hold_surrogates(json_text: str) -> bool:
    """Whether decoding this JSON text can give a lone surrogate (it spells one as an escape)."""
    return _ESCAPED_SURROGATE.search(json_text) is not None


def storable_data(value: Any) -> Any:
    """A decoded JSON value with `storable` applied to every string in it, keys included."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, list):
        return [storable_data(v) for v in value]
    if isinstance(value, dict):
        return {storable(k): storable_data(v) for k, v in value.items()}
    return value
