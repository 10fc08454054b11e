"""The help screen (`?`) is made from the bindings: on each view it lists every binding active where `?` was
pressed (the app's, the screen's, the focused view's), each key with its binding's description, and nothing else."""

from __future__ import annotations

import re

import pytest

from elotui.tui.app import ElotuiApp
from elotui.tui.screens.help import HelpScreen, about, help_sections
from tests.tui.conftest import press_and_settle, settle
from tests.tui.small_terminal import screen_text


def bound(app: ElotuiApp) -> set[tuple[str, str]]:
    """(key as shown, description) of every binding active on the screen on top."""
    return {
        (app.get_key_display(a.binding), a.tooltip or a.binding.tooltip or a.binding.description)
        for a in app.screen.active_bindings.values()
    }


@pytest.mark.parametrize("view", ["l", "v", "d"])
async def test_the_help_lists_every_binding_of_the_app_and_the_current_screen(
    crafted_app: ElotuiApp, view: str
) -> None:
    app = crafted_app
    async with app.run_test(size=(130, 110)) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, view)
        expected = bound(app)
        await press_and_settle(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = {
            (key, row.description)
            for section in app.screen.sections
            for row in section.rows
            for key in row.keys.split(" ")
        }
        assert listed == expected
        assert all(description.strip() for _, description in listed)
        shown = "\n".join(screen_text(app))
        for key, description in listed:  # every row is on the screen, whole (the help is tall enough here)
            assert f" {key} " in shown and description in shown
        assert "everywhere" in shown and "on this screen" in shown


async def test_the_keys_a_user_asked_about_have_descriptions(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=(130, 110)) as pilot:
        await settle(pilot)
        everywhere = dict(bound(app))
        await press_and_settle(pilot, "v")
        on_pairs = dict(bound(app))
    for key in ("s", "e", "p", "m", "1", "5", "i", "r", "?", "q", "tab", "^p"):
        assert everywhere.get(key), key
    for key in ("/", "n", "N", "o", "x", "X", "esc"):
        assert on_pairs.get(key) and key not in everywhere, key


async def test_the_help_says_how_the_intervals_are_made(crafted_app: ElotuiApp) -> None:
    app = crafted_app
    async with app.run_test(size=(130, 110)) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "question_mark")
        shown = " ".join(line.strip() for line in screen_text(app))
        text = about(app.board)
        assert text[:40] in shown
        assert "over game orders" not in text and "over game orders" not in shown
        assert "one bootstrap that resamples prompts" in text
        assert "bootstrap interval by prompt, 20 rounds" in text  # the crafted tournament's own setting
        assert "'tournament' is every run" in text and "'this run'" in text


async def test_the_help_lists_the_apps_keys_then_the_views_then_the_focused_widgets(
    crafted_app: ElotuiApp,
) -> None:
    app = crafted_app
    async with app.run_test(size=(130, 110)) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "v", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        titles = [section.title for section in app.screen.sections]
    assert titles == ["everywhere", "on the pairs screen", "in the focused table", "on this screen"]


async def test_the_help_names_where_keys_apply_in_words_not_widget_class_names(
    crafted_app: ElotuiApp,
) -> None:
    """Wherever the focus is (the tab bar, a selector, a table, a pane), each section of the help is titled in
    words: `in the focused tab bar`, never `in ContentTabs`."""
    app = crafted_app
    titles: set[str] = set()
    async with app.run_test(size=(130, 110)) as pilot:
        await settle(pilot)
        for view in ("l", "v", "d"):
            await press_and_settle(pilot, view)
            for _ in range(16):
                titles |= {section.title for section in help_sections(app.screen)}
                await press_and_settle(pilot, "tab")
    assert "in the focused tab bar" in titles and "in the focused checkbox" in titles
    assert not [t for t in titles if re.search(r"[a-z][A-Z]", t)], titles
