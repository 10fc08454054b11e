"""What the app's mixins (elotui.tui.actions, elotui.tui.flips_view) share: their base, `App[int]` for the type
checker and `object` at run time (a mixin imports nothing of the app), and the widget type their `_view` returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.widget import Widget

if TYPE_CHECKING:
    from textual.app import App

    AppBase = App[int]
else:
    AppBase = object

W = TypeVar("W", bound=Widget)
