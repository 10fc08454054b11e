"""Untrusted text (responses, judge reasoning, raw replies, error messages) made safe to show.

`clean` and `one_line` (elotui.terminal, shared with the CLI) remove ANSI escape sequences and control characters;
`literal` wraps the result in a `rich.text.Text`, which Textual renders as-is: no markup is ever interpreted,
so a reasoning containing `[bold]x[/bold]` is displayed as exactly those characters.
"""

from __future__ import annotations

from rich.text import Text

from elotui.terminal import clean, one_line

__all__ = ["clean", "literal", "one_line"]


def literal(text: object, style: str = "") -> Text:
    """A Rich Text holding the cleaned text literally (never parsed as markup)."""
    return Text(clean(text), style=style)
