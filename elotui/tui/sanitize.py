"""Untrusted text (responses, judge reasoning, raw replies, error messages) made safe to show.

`clean` removes ANSI escape sequences and control characters (keeping newlines and tabs, which it expands);
`literal` wraps the result in a `rich.text.Text`, which Textual renders as-is: no markup is ever interpreted,
so a reasoning containing `[bold]x[/bold]` is displayed as exactly those characters.
"""

from __future__ import annotations

import re
import unicodedata

from rich.text import Text

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


def literal(text: object, style: str = "") -> Text:
    """A Rich Text holding the cleaned text literally (never parsed as markup)."""
    return Text(clean(text), style=style)
