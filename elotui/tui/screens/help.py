"""The help screen (`?`), made from the key bindings themselves: every binding active where `?` was pressed (the
app's, the screen's, the focused view's and its parents'), each with its binding's description, so the list cannot
drift from the keys. A binding's `tooltip` is its long description (the footer shows the short one)."""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Checkbox, DataTable, Input, Select, Static, Tabs

from elotui.rating.labels import interval_label
from elotui.rating.leaderboard import Leaderboard


class HelpRow(NamedTuple):
    keys: str  # as the footer shows them, several keys of one action joined by spaces
    description: str


class HelpSection(NamedTuple):
    title: str
    rows: list[HelpRow]


def section_title(node: DOMNode) -> str:
    """Where a binding is bound, as a reader says it."""
    if isinstance(node, App):
        return "everywhere"
    if isinstance(node, Screen):
        return "on this screen"
    titled = getattr(node, "HELP_TITLE", None)
    if isinstance(titled, str):
        return titled
    for kind, title in (
        (DataTable, "table"),
        (Input, "text box"),
        (Select, "selector"),
        (Tabs, "tab bar"),
        (Checkbox, "checkbox"),
    ):
        if isinstance(node, kind):
            return f"in the focused {title}"
    # never a class name (`in ContentTabs`): a reader knows the screen's parts, not the widgets' names
    return (
        "in the focused pane"
        if isinstance(node, ScrollableContainer)
        else "in the focused part of the screen"
    )


def section_rank(node: DOMNode) -> int:
    """The app's keys first, then the view's own (a node with a HELP_TITLE), the focused widget's, the screen's."""
    if isinstance(node, App):
        return 0
    if isinstance(node, Screen):
        return 3
    return 1 if isinstance(getattr(node, "HELP_TITLE", None), str) else 2


def describe(binding: Binding, tooltip: str) -> str:
    return tooltip or binding.tooltip or binding.description


def help_sections(screen: Screen[object]) -> list[HelpSection]:
    """Every binding active on `screen`, grouped by the node that binds it (in `section_rank`'s order); the keys
    of one action with one description share a row."""
    app = screen.app
    by_node: dict[int, tuple[DOMNode, dict[tuple[str, str], list[str]]]] = {}
    for active in screen.active_bindings.values():
        node, binding = active.node, active.binding
        rows = by_node.setdefault(id(node), (node, {}))[1]
        rows.setdefault((binding.action, describe(binding, active.tooltip)), []).append(
            app.get_key_display(binding)
        )
    nodes = sorted(by_node.values(), key=lambda item: section_rank(item[0]))
    return [
        HelpSection(section_title(node), [HelpRow(" ".join(keys), what) for (_, what), keys in rows.items()])
        for node, rows in nodes
    ]


def about(board: Leaderboard | None) -> str:
    interval = interval_label(board) if board is not None else "as [ranking] bootstrap sets it"
    return (
        "Every pair is judged in both orders (AB and BA) by every judge. A threshold turns each presentation's "
        "votes into one game: at 1.0 only a unanimous verdict is a win (anything else a draw), at 0.5 a simple "
        "majority, and 'none' makes every verdict its own game. Ratings are Elo averaged over many random game "
        "orders, or Bradley–Terry. Both intervals come from one bootstrap that resamples prompts (now: "
        f"{interval}); order is the share of those rounds in which a contestant stays above the next one. "
        "Δ is the gap to the next rank, P(win) its expected win probability 1/(1+10^(-Δ/400)); band: Δ<50 "
        "practically tied, 50–150 moderate, >150 strong. Where the terminal is narrow, P(win), W/L/D, win rate and "
        "games leave the table for the line under it, which shows them for the selected contestant. That line "
        "also gives the selected row's drop_to_flip: the fewest games whose removal puts the next row above it "
        "(refits, made in the background: … until then); ! after Δ marks a fragile order, one that 1 % of the "
        "games or fewer can flip, whatever its order confidence. While batch judges' batches are open, a table "
        "under the counts lists them as the providers report them. "
        "y shows Bradley–Terry with style control (who wins when length and markdown are equal, as Chatbot Arena "
        "controls for style) or raw; the rank then reads 3▲2: third here, two places higher than in the other "
        "view.\n\n"
        "Counts say their scope: 'tournament' is every run of this tournament file (what the store holds), "
        "'this run' only what this elotui process has done since it started. Replayed and simulated verdicts are "
        "labelled in the header: they are not live judge calls."
    )


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "dismiss", "close")]

    def __init__(self, sections: list[HelpSection], board: Leaderboard | None = None) -> None:
        super().__init__()
        self.sections = sections
        self._board = board

    def compose(self) -> ComposeResult:
        width = max((len(row.keys) for section in self.sections for row in section.rows), default=1)
        with VerticalScroll(id="help-body"):
            yield Static(Text("elotui — keys where you pressed ?", style="bold"))
            for section in self.sections:
                table = Table(box=None, show_header=False, pad_edge=False)
                table.add_column(style="bold", no_wrap=True, min_width=width)
                table.add_column()
                for row in section.rows:
                    table.add_row(Text(row.keys), Text(row.description))
                yield Static(Text("\n" + section.title, style="italic"))
                yield Static(table, classes="help-keys")
            yield Static(Text("\n" + about(self._board)))
            yield Static(Text("\nescape closes · each view has its own keys: press ? there", style="dim"))
