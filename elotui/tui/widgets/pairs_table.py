"""The pairs list's columns and cells: prompt, pair, stability, the c·p·i counts, how the judges split (a·b), the
preferred contestant and the number of verdicts.

Where the terminal is narrow (80 columns) the verdict count and the judges' split go first (the selected pair's
detail below shows both), and the prompt's column narrows, so that the names in the pair and preferred columns
keep their 12 characters instead of being cut to five. Where it is wide, the room left over goes to those names, up
to the longest contestant's (`mixtral-8x7b-instruct-v0.1` and `mixtral-8x22b-instruct-v0.1` are told apart at 160
columns)."""

from __future__ import annotations

from rich.text import Text

from elotui.rating.pair_summary import POSITION_BIAS, PairSummary
from elotui.tui.sanitize import one_line

PAIR_COLUMNS = (
    ("prompt", 10),
    ("pair", 28),
    ("stability", 13),
    ("c·p·i", 7),
    ("a·b", 5),
    ("preferred", 12),
    ("verdicts", 8),
)
NAME = 12  # characters of a contestant's name in the pair and preferred columns
NARROW_PROMPT = 8
DROPPED_FIRST = ("verdicts", "a·b")  # left out, in this order, while the columns do not fit
CELL_PADDING = 2
SCROLLBAR = 2


def _width(columns: list[tuple[str, int]]) -> int:
    return sum(w + CELL_PADDING for _, w in columns)


def pair_columns(terminal_width: int, longest_name: int = NAME) -> list[tuple[str, int]]:
    """The columns shown at this terminal width, with their widths; `longest_name`: the characters of the longest
    contestant name, which the pair and preferred columns grow to where the terminal has the room."""
    available = terminal_width - SCROLLBAR
    columns = list(PAIR_COLUMNS)
    for name in DROPPED_FIRST:
        if _width(columns) <= available:
            break
        columns = [c for c in columns if c[0] != name]
    if _width(columns) > available:
        columns = [(n, NARROW_PROMPT if n == "prompt" else w) for n, w in columns]
    chars = min(longest_name, NAME + max(0, available - _width(columns)) // 3)  # a pair shows two names
    if chars <= NAME:
        return columns
    wider = {"pair": 2 * chars + 4, "preferred": chars}
    return [(n, wider.get(n, w)) for n, w in columns]


def name_width(columns: list[tuple[str, int]]) -> int:
    """The characters of a contestant's name in these columns (the preferred column's width)."""
    return max(NAME, dict(columns).get("preferred", NAME))


def pair_cells(s: PairSummary, columns: list[tuple[str, int]], bias_style: str) -> list[Text]:
    """The row of one pair, in the columns shown."""
    name = name_width(columns)
    cells = {
        "prompt": lambda: Text(one_line(s.prompt, dict(columns)["prompt"])),
        "pair": lambda: Text(f"{one_line(s.a, name)} vs {one_line(s.b, name)}"),
        "stability": lambda: Text(s.klass, style=bias_style if s.klass == POSITION_BIAS else ""),
        "c·p·i": lambda: Text(s.counts if s.units else "—", justify="right"),
        "a·b": lambda: Text(
            f"{s.for_a}·{s.for_b}" if s.judges_voting else "—",
            justify="right",
            style="bold" if s.judges_split else "",
        ),
        "preferred": lambda: Text(
            one_line(s.preference or ("split" if s.agreement is not None else "—"), name)
        ),
        "verdicts": lambda: Text(str(s.verdicts), justify="right"),
    }
    return [cells[name]() for name, _ in columns]
