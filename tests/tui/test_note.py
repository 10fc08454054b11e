"""`Note` takes its new height even when its content changes while a layout is pending.

The interleaving is forced step by step: a layout is pending for the widget, its container is laid out before
the widget's idle (as when a sibling asked for a layout first), then the content changes. A plain Textual 8.2
Static keeps the height of its old content here (its box model is cached under an unchanged key); the
leaderboard's notes were cut to one line this way in a snapshot run under load."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.widgets import Static

from elotui.tui.widgets.note import Note

LONG = "word " * 40  # 200 characters: 5 lines at 40 columns


class NoteApp(App[None]):
    CSS = "Note { height: auto; }"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Note("short", id="note")
            yield Static("below", id="below")


@pytest.mark.asyncio
async def test_note_height_follows_content_set_while_a_layout_is_pending() -> None:
    app = NoteApp()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        note = app.query_one(Note)
        assert note.size.height == 1
        note.refresh(layout=True)  # a layout is pending for the note
        note.parent._clear_arrangement_cache()  # type: ignore[union-attr]  # a sibling asked for a layout ...
        app.screen._refresh_layout()  # ... and the screen was laid out before the note's idle
        note.update(LONG)
        for _ in range(3):
            await pilot.pause()
        assert note.size.height == 5
        below = app.query_one("#below")
        assert below.region.y == note.region.bottom


async def showing_long(app: NoteApp, pilot: Pilot[None]) -> Note:
    """The app's note, laid out with LONG (5 lines at 40 columns)."""
    note = app.query_one(Note)
    note.update(LONG)
    await pilot.pause()
    assert note.size.height == 5
    return note


@pytest.mark.asyncio
async def test_note_shrinks_back() -> None:
    app = NoteApp()
    async with app.run_test(size=(40, 20)) as pilot:
        note = await showing_long(app, pilot)
        note.update("short again")
        await pilot.pause()
        assert note.size.height == 1


@pytest.mark.asyncio
async def test_note_of_the_same_height_is_repainted_without_a_layout() -> None:
    app = NoteApp()
    async with app.run_test(size=(40, 20)) as pilot:
        note = await showing_long(app, pilot)
        laid_out = note._layout_updates
        note.update(LONG.replace("word", "wore"))  # new words, the same 5 lines at 40 columns
        assert not note._layout_required and note._layout_updates == laid_out
        await pilot.pause()
        assert note.size.height == 5 and "wore" in str(note.render())
        note.update(LONG + LONG)  # 10 lines: laid out again
        assert note._layout_required
        await pilot.pause()
        assert note.size.height == 10
        assert app.query_one("#below").region.y == note.region.bottom
