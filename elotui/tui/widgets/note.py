"""`Note`: a Static whose content changes, laid out again at its new height on every update.

Textual 8.2 counts a layout request (`Widget._layout_updates`, part of the key of the widget's cached box
model) only when no layout is pending. Content set while one is pending could then be measured with the box
model cached for the content before it, and the widget kept its old height until its next update: the
leaderboard's notes showed one line of five (found by a flaky snapshot; reproduced step by step in
tests/tui/test_note.py). Every Static of the TUI whose content changes is a `Note`."""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


class Note(Static):
    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(content, layout=layout)
        if layout:  # a new key for the box model, also when a layout was already pending
            self._layout_updates += 1
