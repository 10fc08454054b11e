"""The status bar is shown 4 times a second, also when nothing changes (a finished or idle run): unchanged text
is not drawn again (it was: the first line repainted 4 times a second for as long as the app was open)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from elotui.tui.widgets.status_bar import StatusBar, StatusInfo


class BarApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar()


def info(done: int) -> StatusInfo:
    return StatusInfo(
        name="t",
        threshold="0.5",
        method="Elo",
        scope="all judges",
        state="finished",
        kinds=["live"],
        done=done,
        total=8,
    )


@pytest.mark.asyncio
async def test_unchanged_status_is_not_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    app = BarApp()
    async with app.run_test(size=(80, 5)) as pilot:
        bar = app.query_one(StatusBar)
        drawn: list[str] = []
        original = StatusBar.update
        monkeypatch.setattr(
            StatusBar,
            "update",
            lambda self, content, **kw: (drawn.append(str(content)), original(self, content, **kw))[1],
        )
        bar.show(info(3))
        bar.show(info(3))
        await pilot.pause()
        assert len(drawn) == 1 and "3/8 calls" in drawn[0]
        bar.show(info(4))
        bar.show(info(3))
        assert len(drawn) == 3 and "3/8 calls" in bar.content.plain  # type: ignore[union-attr]
