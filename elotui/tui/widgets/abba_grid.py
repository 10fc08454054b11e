"""The AB/BA grid of one pair: a row per judge, a column per order (and condition / sample when there are
several), each cell the contestant that won (coloured by the slot it was shown in), and each unit's class at the
end of the row, so that flips (position bias) stand out."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from elotui.records import PairDetail
from elotui.tui.colours import theme_colour
from elotui.tui.sanitize import one_line
from elotui.tui.widgets.note import Note


def unit_class(ab: PairDetail | None, ba: PairDetail | None) -> str:
    """consistent / FLIP (position bias) / inconclusive / pending, for the two orders of one unit."""
    if ab is None or ba is None or "missing" in (ab.status, ba.status):
        return "pending"
    slots = []
    for d in (ab, ba):
        slots.append(d.winner if d.status == "ok" and d.winner in ("first", "second") else None)
    if None in slots:
        return "inconclusive"
    return "FLIP" if slots[0] == slots[1] else "consistent"


class AbbaGrid(Note):
    def show(self, a: str, b: str, details: Sequence[PairDetail], judges: Sequence[str]) -> None:
        app = self.app
        conds = sorted({(d.condition, d.sample) for d in details})
        several = len(conds) > 1
        table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold", expand=False)
        table.add_column("judge", no_wrap=True)
        for cond, sample in conds:
            suffix = f" {cond}" + (f"#{sample}" if sample else "") if several else ""
            table.add_column(Text(f"AB{suffix}"), no_wrap=True)
            table.add_column(Text(f"BA{suffix}"), no_wrap=True)
            table.add_column(Text("→"), no_wrap=True)
        by_key = {(d.judge, d.condition, d.sample, d.first == a): d for d in details}
        colours = {
            "first": theme_colour(app, "verdict-first"),
            "second": theme_colour(app, "verdict-second"),
            "tie": theme_colour(app, "verdict-tie"),
            "invalid": theme_colour(app, "verdict-invalid"),
            "error": theme_colour(app, "verdict-invalid"),
            "missing": theme_colour(app, "verdict-missing"),
        }
        for judge in judges:
            if not any(k[0] == judge for k in by_key):
                continue
            cells: list[Text] = [Text(one_line(judge, 24))]
            for cond, sample in conds:
                ab = by_key.get((judge, cond, sample, True))
                ba = by_key.get((judge, cond, sample, False))
                for d in (ab, ba):
                    cells.append(self._cell(d, colours))
                klass = unit_class(ab, ba)
                style = "bold reverse " + colours["invalid"] if klass == "FLIP" else ""
                cells.append(Text(klass, style=style))
            table.add_row(*cells)
        legend = Text.assemble(
            ("AB", "bold"),
            f": {one_line(a, 30)} shown first, ",
            ("BA", "bold"),
            f": {one_line(b, 30)} shown first; cells name the winner, coloured by slot: ",
            ("1st", colours["first"]),
            " / ",
            ("2nd", colours["second"]),
            " / ",
            ("tie", colours["tie"]),
            " / ",
            ("invalid", colours["invalid"]),
            " / ",
            ("·", colours["missing"]),
            " not yet",
        )
        if any(d.strength == 2 for d in details):
            legend.append("; ≫ a strong preference (A>>B)")
        from rich.console import Group

        self.update(Group(table, legend))

    @staticmethod
    def _cell(d: PairDetail | None, colours: dict[str, str]) -> Text:
        if d is None:
            return Text("")
        status = d.status
        if status != "ok":
            return Text(
                {"missing": "·", "invalid": "invalid", "error": "failed"}.get(status, status),
                style=colours.get(status, ""),
            )
        winner = d.winner
        if winner == "tie":
            return Text("tie", style=colours["tie"])
        name = d.first if winner == "first" else d.second
        strong = " ≫" if d.strength == 2 else ""  # a graded verdict's strong preference (`A>>B`)
        return Text(one_line(name, 14) + strong, style=f"bold {colours.get(winner or '', '')}")
