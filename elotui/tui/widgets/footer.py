"""The footer, with `? help` and `q quit` first: Textual's Footer shows the keys in binding order and cuts what does
not fit, which at 80 columns were these two (the focused view's own keys come before the app's)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST_KEYS = ("question_mark", "q")  # shown before every other key, in this order


def first_key_rank(widget: object) -> int:
    """0, 1: a key of FIRST_KEYS; 2: anything else (kept in Textual's order by a stable sort)."""
    key = widget.key if isinstance(widget, FooterKey) else None
    return FIRST_KEYS.index(key) if key in FIRST_KEYS else len(FIRST_KEYS)


class KeyFooter(Footer):
    def compose(self) -> ComposeResult:
        yield from sorted(super().compose(), key=first_key_rank)
