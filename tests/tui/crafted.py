"""A crafted tournament for the TUI tests: three contestants, two prompts, three replay judges, every pair in
both orders, written as a tournament file + verdict log, and a store filled from that log.

The verdicts make the order differ between thresholds: A beats B and C only 2 judges to 1 (a win at 0.5, a draw
at 1.0), while C beats B unanimously. So at 0.5 the order is A > C > B, and at 1.0 it is C > A > B.
One reasoning holds Rich markup and an ANSI escape; one verdict is invalid with a raw reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from elotui.store import CallRecord, PlanRow, Store
from elotui.tournament.model import Tournament, load_tournament

CONTESTANTS = ("A", "B", "C")
PROMPTS = ("p1", "p2")
JUDGES = ("j1", "j2", "j3")
MARKUP_REASONING = (
    "Response A is [bold]x[/bold] better \x1b[31mred\x1b[0m and [link=http://evil]click[/link]."
)
RAW_INVALID = "I refuse to pick [red]either[/red] one."


def preferred(judge: str, first: str, second: str) -> str:
    """Which contestant this judge prefers."""
    pair = {first, second}
    if pair == {"B", "C"}:
        return "C"
    return "A" if judge in ("j1", "j2") else (pair - {"A"}).pop()


def verdict_rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for prompt in PROMPTS:
        for first in CONTESTANTS:
            for second in CONTESTANTS:
                if first == second:
                    continue
                for judge in JUDGES:
                    win = preferred(judge, first, second)
                    row: dict[str, object] = {
                        "prompt": prompt,
                        "first": first,
                        "second": second,
                        "judge": judge,
                        "condition": "clean",
                        "sample": 0,
                        "winner": "first" if win == first else "second",
                        "reasoning": f"{judge} prefers {win} on {prompt}.",
                        "status": "ok",
                    }
                    if (prompt, first, second, judge) == ("p1", "A", "B", "j1"):
                        row["reasoning"] = MARKUP_REASONING
                    if (prompt, first, second, judge) == ("p2", "C", "B", "j3"):
                        row.update(winner=None, reasoning=None, status="invalid")
                    rows.append(row)
    return rows


def write_tournament(
    folder: Path, *, delay_ms: float = 0.0, max_concurrency: int = 4, labels: Mapping[str, str] | None = None
) -> Path:
    """The tournament file (and its verdict log); `labels`: contestant id -> label (the leaderboard shows both)."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "verdicts.jsonl").open("w", encoding="utf-8") as fh:
        for row in verdict_rows():
            fh.write(json.dumps(row) + "\n")
    lines = [
        "[tournament]",
        'name = "Crafted [b]markup[/b] cup"',
        "",
        "[ranking]",
        "threshold = 0.5",
        "permutations = 20",
        "bootstrap = 20",
        "",
    ]
    for c in CONTESTANTS:
        lines += ["[[contestants]]", f'id = "{c}"']
        lines += [f'label = "{labels[c]}"', ""] if labels and c in labels else [""]
    for p in PROMPTS:
        lines += [
            "[[prompts]]",
            f'id = "{p}"',
            f'text = "Question {p}: explain [i]this[/i]."',
            "[prompts.responses]",
        ]
        for c in CONTESTANTS:
            lines.append(f'{c} = "Answer of {c} to {p}."')
        lines.append("")
    for j in JUDGES:
        lines += [
            "[[judges]]",
            f'id = "{j}"',
            'provider = "replay"',
            'path = "verdicts.jsonl"',
            f"delay_ms = {delay_ms}",
            f"max_concurrency = {max_concurrency}",
            "",
        ]
    path = folder / "tournament.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def filled_store(tournament: Tournament, path: Path) -> Store:
    """A store holding the crafted plan and every verdict (as a finished replay run would leave it)."""
    store = Store(path)
    plan: list[PlanRow] = []
    for seq, row in enumerate(verdict_rows()):
        key = f"k{seq:04d}"
        plan.append(
            PlanRow(
                seq,
                str(row["prompt"]),
                str(row["first"]),
                str(row["second"]),
                str(row["judge"]),
                "clean",
                0,
                key,
            )
        )
        store.record_call(
            CallRecord(
                key=key,
                kind="verdict",
                status=str(row["status"]),
                judge=str(row["judge"]),
                provider="replay",
                prompt=str(row["prompt"]),
                first=str(row["first"]),
                second=str(row["second"]),
                condition="clean",
                sample=0,
                winner=row["winner"],
                reasoning=row["reasoning"],  # type: ignore[arg-type]
                raw_reply=RAW_INVALID
                if row["status"] == "invalid"
                else json.dumps({"winner": row["winner"]}),
                latency_ms=12.0,
                input_tokens=100,
                output_tokens=20,
                finished_at=1000.0 + seq,
            )
        )
    store.set_plan(plan)
    return store


def crafted(tmp_path: Path, labels: Mapping[str, str] | None = None) -> tuple[Tournament, Store]:
    tournament = load_tournament(write_tournament(tmp_path / "crafted", labels=labels))
    return tournament, filled_store(tournament, tmp_path / "crafted.sqlite")
