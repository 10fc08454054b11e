"""The command palette: every key action, the scopes and the themes, searchable by name."""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import partial
from itertools import islice
from typing import Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from elotui.session import TournamentSession
from elotui.tournament.model import Tournament
from elotui.tui.widgets.choice import MAX_LISTED
from elotui.vocab import THRESHOLDS, threshold_label

Command = tuple[str, str, Callable[[], object]]


class PaletteHost(Protocol):
    """What the palette needs of the app (the app implements it; this module does not import the app)."""

    tournament: Tournament
    session: TournamentSession
    available_themes: Collection[str]

    def action_threshold(self, index: int) -> None: ...
    def action_toggle_method(self) -> None: ...
    def action_toggle_style(self) -> None: ...
    def action_pause(self) -> None: ...
    def action_export(self) -> None: ...
    def action_show_tab(self, tab: str) -> None: ...
    def action_last_invalid(self) -> None: ...
    def action_help(self) -> None: ...
    def action_screenshot(self) -> None: ...
    async def action_quit(self) -> None: ...
    def set_scope_prompt(self, prompt: str | None) -> None: ...
    def set_scope_judge(self, judge: str | None) -> None: ...
    def set_scope_turn(self, turn: int | None) -> None: ...
    def switch_theme(self, name: str) -> None: ...


def listed_prompts(prompts: list[str], query: str) -> list[str]:
    """The prompts the palette offers as scopes: all of them up to MAX_LISTED, else those whose id holds the query's
    last word (case aside), at most MAX_LISTED."""
    if len(prompts) <= MAX_LISTED:
        return prompts
    words = query.lower().split()
    if not words:
        return []
    needle = words[-1]
    return list(islice((p for p in prompts if needle in p.lower()), MAX_LISTED))


def palette_commands(app: PaletteHost, query: str = "") -> list[Command]:
    """Every command; the prompts' scopes of a tournament of more than MAX_LISTED prompts only for the prompts whose
    id holds the query's last word (at most MAX_LISTED of them: 10^6 commands took seconds a keystroke)."""
    out: list[Command] = []
    for i, t in enumerate(THRESHOLDS, start=1):
        help_text = f"key {i}: rank with agreement threshold {threshold_label(t)}"
        out.append((f"Threshold {threshold_label(t)}", help_text, partial(app.action_threshold, i)))
    out += [
        ("Toggle method Elo / Bradley–Terry", "key m", app.action_toggle_method),
        (
            "Toggle style control: style-controlled / raw Bradley–Terry",
            "key y: who wins when length and markdown are equal; ▲▼ each rank's change",
            app.action_toggle_style,
        ),
        ("Pause or resume judging", "key p", app.action_pause),
        (
            "Export ranking to CSV",
            "key e: the ranking on screen, as `elotui export` writes it",
            app.action_export,
        ),
        ("Show leaderboard", "key l", partial(app.action_show_tab, "tab-leaderboard")),
        ("Show pairs", "key v", partial(app.action_show_tab, "tab-pairs")),
        ("Show diagnostics", "key d", partial(app.action_show_tab, "tab-diagnostics")),
        ("Read last invalid reply", "key i", app.action_last_invalid),
        ("Help", "key ?", app.action_help),
        ("Save screenshot (SVG)", "key s: into the current directory", app.action_screenshot),
        ("Quit", "key q: stop judging, wait for calls in flight, close", app.action_quit),
        ("Scope: all prompts", "rank over every prompt", partial(app.set_scope_prompt, None)),
        ("Scope: all judges", "rank over every judge", partial(app.set_scope_judge, None)),
    ]
    turns = app.session.judged_turns()
    if len(turns) > 1:  # each judged turn alone, as `elotui export --turn N`
        out.append(("Scope: all turns", "rank over every turn's prompts", partial(app.set_scope_turn, None)))
        for n in turns:
            out.append((f"Scope: turn {n}", f"rank turn {n}'s prompts only", partial(app.set_scope_turn, n)))
    for p in listed_prompts(app.session.prompt_ids, query):
        out.append((f"Scope: prompt {p}", "rank on this prompt only", partial(app.set_scope_prompt, p)))
    for j in app.tournament.judge_ids:
        out.append(
            (f"Scope: judge {j}", "rank with this judge's verdicts only", partial(app.set_scope_judge, j))
        )
    for name in sorted(app.available_themes):
        out.append(
            (
                f"Switch theme: {name}",
                "colours for bands, verdicts and grids",
                partial(app.switch_theme, name),
            )
        )
    return out


class ElotuiCommands(Provider):
    @property
    def _app(self) -> PaletteHost:
        return cast(PaletteHost, cast(Any, self.app))

    async def discover(self) -> Hits:
        for title, help_text, callback in palette_commands(self._app):
            if title.startswith(("Scope: prompt", "Scope: judge", "Switch theme")):
                continue
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in palette_commands(self._app, query):
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, text=title, help=help_text)
