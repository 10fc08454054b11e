"""Text made safe for a terminal: untrusted text (responses, judge reasoning, raw replies, a provider's error
body, a contestant id, the tournament's name) never writes an escape sequence to the user's terminal.

`clean` removes ANSI escape sequences (CSI, OSC such as clipboard writes and window titles, OSC 8 links, DCS, 8-bit
CSI) and control characters (NUL, BEL, C1, bidi overrides such as U+202E; newlines kept, CR and CRLF become LF,
tabs become spaces); `one_line` folds it to one line. `SafeStream` applies `clean` to everything written to a
stream: the CLI wraps stderr always, and stdout when it is a terminal (data written to a pipe or a file with
`-o` keeps its exact text). The TUI shows the same cleaned text (elotui.tui.sanitize).
"""

from __future__ import annotations

import re
import unicodedata
from typing import IO, Any

# CSI (ESC [ ... final), OSC (ESC ] ... BEL/ST), other two-byte escapes, and 8-bit CSI.
_ANSI = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]        # CSI
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?  # OSC, terminated by BEL or ST (or cut off)
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?  # DCS, SOS, PM, APC
  | \x1b[@-Z\\-_]                  # two-character escapes
  | \x9b[0-?]*[ -/]*[@-~]          # 8-bit CSI
    """,
    re.VERBOSE,
)


def clean(text: object, *, tab_size: int = 4) -> str:
    """The text without ANSI sequences or control characters; CRLF/CR become LF, tabs become spaces."""
    if text is None:
        return ""
    s = _ANSI.sub("", str(text))
    s = s.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " " * tab_size)
    out = []
    for ch in s:
        if ch == "\n":
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs") or ch in "\u2028\u2029":
            continue
        if cat == "Cf" and ch not in "\u200d":  # format chars (bidi overrides, zero-width) except ZWJ (emoji)
            continue
        out.append(ch)
    return "".join(out)


def one_line(text: object, limit: int | None = None) -> str:
    """`clean` on one line (newlines become spaces), optionally cut to `limit` characters with an ellipsis."""
    s = " ".join(clean(text).split())
    if limit is not None and len(s) > limit:
        s = s[: max(limit - 1, 0)] + "…"
    return s


class SafeStream:
    """A text stream whose writes are `clean`ed (line by line, so a line cut between two writes stays whole)."""

    def __init__(self, inner: IO[str]) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(clean(text, tab_size=8))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self.inner, name)
