"""`Note`: a Static whose content changes, laid out again when its height changes.

Textual 8.2 counts a layout request (`Widget._layout_updates`, part of the key of the widget's cached box
model) only when no layout is pending. Content set while one is pending could then be measured with the box
model cached for the content before it, and the widget kept its old height until its next update: the
leaderboard's notes showed one line of five (found by a flaky snapshot; reproduced step by step in
tests/tui/test_note.py). Every Static of the TUI whose content changes is a `Note`.

A layout costs a pass over the whole screen and a repaint of every widget on it (at 100 contestants, about as
much as redrawing the leaderboard itself), so new content as high as the old at the same width, with no layout
pending, is only repainted in place: its height, the one thing a layout would change, is the same."""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


class Note(Static):
    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        keeps = layout and self._laid_out()
        before = self.content_size.height
        super().update(content, layout=False)
        if layout and not (keeps and self._height_at(self.content_size.width) == before):
            self.refresh(layout=True)
            self._layout_updates += 1  # a new key for the box model, also when a layout was already pending

    def _laid_out(self) -> bool:
        """On screen, at its laid-out size, with no layout pending for it."""
        return self.is_mounted and not self._layout_required and self.content_size.width > 0

    def _height_at(self, width: int) -> int:
        """The content's height at `width` columns."""
        return self.get_content_height(self.size, self.app.size, width)
