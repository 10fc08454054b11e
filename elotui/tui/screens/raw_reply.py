"""A modal with text the user must read as it is: raw judge replies, error messages (shown literally)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from elotui.tui.sanitize import literal


class RawTextScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,enter", "dismiss", "close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self._title = title
        self._body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="raw-body"):
            yield Static(literal(self._title, style="bold"), id="raw-title")
            yield Static(literal(self._body), id="raw-text")
            yield Static("escape closes", classes="dim")
