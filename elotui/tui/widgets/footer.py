"""The footer, with `? help` and `q quit` first: Textual's Footer shows the keys in binding order and cuts what does
not fit, which at 80 columns were these two (the focused view's own keys come before the app's). A key that does not
fit whole is left out instead of shown cut (`p pause/▏`): the help screen (`?`) lists every key."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST_KEYS = ("question_mark", "q")  # shown before every other key, in this order
PALETTE = "-command-palette"


def first_key_rank(widget: object) -> int:
    """0, 1: a key of FIRST_KEYS; 2: anything else (kept in Textual's order by a stable sort)."""
    key = widget.key if isinstance(widget, FooterKey) else None
    return FIRST_KEYS.index(key) if key in FIRST_KEYS else len(FIRST_KEYS)


def key_width(key: FooterKey, compact: bool) -> int:
    """The cells a footer key takes, as Textual's Footer lays it out (its DEFAULT_CSS): the key padded one cell each
    side and the description one cell after, or, compact, the key bare, a cell before the description and a margin
    after (the command palette's key, docked right, as wide: its border takes a padding cell's place)."""
    text = cell_len(key.key_display) + (cell_len(key.description) + 1 if key.description else 0)
    return text + (1 if compact else 2)


def fitting(widgets: Iterable[Widget], width: int, compact: bool) -> Iterator[Widget]:
    """The footer's widgets without the keys that would not fit whole in `width` cells (each key after the first
    that does not fit is left out too, so the order stays); a widget that is not a key (a group) is kept."""
    shown = list(widgets)
    room = width - sum(
        key_width(w, compact) for w in shown if isinstance(w, FooterKey) and w.has_class(PALETTE)
    )
    full = False
    for w in shown:
        if isinstance(w, FooterKey) and not w.has_class(PALETTE):
            full = full or key_width(w, compact) > room
            if full:
                continue
            room -= key_width(w, compact)
        yield w


class KeyFooter(Footer):
    def compose(self) -> ComposeResult:
        width = self.size.width or self.app.size.width
        yield from fitting(sorted(super().compose(), key=first_key_rank), width, self.compact)

    def on_resize(self) -> None:
        self.refresh(recompose=True)
