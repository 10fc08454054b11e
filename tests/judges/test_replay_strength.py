"""A replay judge answers with its log line's graded strength (`"strength"`: 2 strong, 1 clear), so a replayed
verdict is stored, and told to a run's subscribers, exactly as a live graded judge's: the store's
`calls.strength` and the `VerdictRecorded` event carry it. A tie or a failed verdict has none; a strength that is
not 1, 2 or null is a bad line (file and line named)."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.judges import build_judge
from elotui.judges import replay_index as log_index
from elotui.judges.base import JudgeRequest, Presentation
from elotui.run.events import Event, VerdictRecorded
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import JudgeConfig, load_tournament

LINES = [
    ("q1", "a", "b", "first", "ok", 2),
    ("q1", "b", "a", "second", "ok", 1),
    ("q2", "a", "b", "tie", "ok", None),
    ("q2", "b", "a", "second", "ok", None),  # a binary verdict in the same log
    ("q3", "a", "b", None, "invalid", None),
    ("q3", "b", "a", "first", "ok", 2),
]


@pytest.fixture(autouse=True)
def _fresh() -> None:
    log_index.forget()


def write_log(path: Path, lines: list[tuple[str, str, str, str | None, str, object]] = LINES) -> Path:
    rows = []
    for prompt, first, second, winner, status, strength in lines:
        row = {"prompt": prompt, "first": first, "second": second, "judge": "gpt-4", "condition": "clean"}
        row |= {"sample": 0, "winner": winner, "reasoning": f"{prompt} {first}", "status": status}
        if strength is not None:
            row["strength"] = strength
        rows.append(json.dumps(row) + "\n")
    path.write_text("".join(rows), encoding="utf-8")
    return path


def ask(prompt: str, first: str, second: str) -> JudgeRequest:
    return JudgeRequest(f"{prompt}{first}{second}", "", "", Presentation(prompt, first, second))


async def test_a_replayed_verdict_carries_its_lines_strength(tmp_path: Path) -> None:
    write_log(tmp_path / "log.jsonl")
    judge = build_judge(
        JudgeConfig(id="j", provider="replay", path="log.jsonl", model="gpt-4"),
        judge_id="j",
        base_dir=tmp_path,
    )
    got = {}
    for prompt, first, second, *_ in LINES:
        reply = await judge.judge(ask(prompt, first, second))
        got[(prompt, first)] = (reply.status, reply.winner, reply.strength)
    assert got == {
        ("q1", "a"): ("ok", "first", 2),
        ("q1", "b"): ("ok", "second", 1),
        ("q2", "a"): ("ok", "tie", None),
        ("q2", "b"): ("ok", "second", None),
        ("q3", "a"): ("invalid", None, None),
        ("q3", "b"): ("ok", "first", 2),
    }


def test_a_strength_on_a_tie_or_a_failed_verdict_is_dropped(tmp_path: Path) -> None:
    write_log(tmp_path / "log.jsonl", [("q", "a", "b", "tie", "ok", 2), ("q", "b", "a", None, "invalid", 1)])
    index = log_index.index_of(tmp_path / "log.jsonl")["gpt-4"]
    assert [entry[3] for entry in index.values()] == [None, None]  # type: ignore[index]


@pytest.mark.parametrize("bad", [3, 0, "2", 1.5, True, [2]])
def test_a_strength_that_is_not_one_or_two_names_the_line(tmp_path: Path, bad: object) -> None:
    path = write_log(tmp_path / "log.jsonl", [*LINES[:2], ("q9", "a", "b", "first", "ok", bad)])
    with pytest.raises(UserError, match=r"log\.jsonl:3: `strength` must be 1 .*2 .* or null"):
        log_index.index_of(path)


def replay_tournament(tmp_path: Path) -> Path:
    """Contestants a and b on prompts q1-q3, one replay judge `j` reading `LINES`."""
    log = write_log(tmp_path / "log.jsonl")
    prompts = "".join(
        f'[[prompts]]\nid = "{p}"\ntext = "{p}?"\nresponses = {{ a = "A {p}", b = "B {p}" }}\n'
        for p in ("q1", "q2", "q3")
    )
    toml = tmp_path / "t.toml"
    toml.write_text(
        '[tournament]\nname = "replayed"\n[[contestants]]\nid = "a"\n[[contestants]]\nid = "b"\n'
        f'{prompts}[[judges]]\nid = "j"\nprovider = "replay"\nmodel = "gpt-4"\npath = "{log.name}"\n',
        encoding="utf-8",
    )
    return toml


async def test_a_replay_run_stores_and_tells_each_strength(tmp_path: Path) -> None:
    toml = replay_tournament(tmp_path)
    events: list[Event] = []
    with Store(tmp_path / "store.sqlite") as store:
        result = await Runner(load_tournament(toml), store, on_event=events.append).run()
        assert result.state == "finished"
        stored = {(c.prompt, c.first): c.strength for c in store.calls() if c.kind == "verdict"}
        strong = store.strong_verdicts()
    want = {(p, f): s for p, f, _, _, _, s in LINES}
    assert stored == want
    told = {
        (e.presentation.prompt, e.presentation.first): e.strength
        for e in events
        if isinstance(e, VerdictRecorded)
    }
    assert told == want
    assert sorted(strong) == [("q1", "a", "b", "j", "clean", 0), ("q3", "b", "a", "j", "clean", 0)]


def bt_reference(
    verdicts: list[tuple[str, str, str, int | None]], names: list[str], weight: int
) -> dict[str, float]:
    """Bradley–Terry by maximum likelihood written here (Newton on the natural-log strengths, ties half a win,
    elotui's weak Gaussian prior of precision 0.01), a strong verdict `weight` times; 400 log10 scale, mean 1000."""
    code = {c: i for i, c in enumerate(names)}
    theta = np.zeros(len(names))
    for _ in range(100):
        grad, hess = -0.01 * theta, -0.01 * np.eye(len(names))
        for first, second, winner, strength in verdicts:
            i, j = code[first], code[second]
            y = {"first": 1.0, "second": 0.0, "tie": 0.5}[winner]
            times = weight if strength == 2 else 1
            p = 1 / (1 + math.exp(-(theta[i] - theta[j])))
            grad[[i, j]] += times * (y - p) * np.array([1, -1])
            w = times * p * (1 - p)
            hess[i, i] -= w
            hess[j, j] -= w
            hess[i, j] += w
            hess[j, i] += w
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.max(np.abs(step)) < 1e-13:
            break
    return {c: float(400 / math.log(10) * (theta[code[c]] - theta.mean()) + 1000) for c in names}


def test_each_replayed_sample_counts_with_its_own_strength(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two samples per presentation, their strengths differing: the ranking weighs exactly the strong samples
    (the store's), not every sample of a presentation whose log holds a strong line."""
    rng = random.Random(5)
    names = ["a", "b", "c"]
    lines: list[tuple[str, str, str, str | None, str, object]] = []
    for q in range(6):
        for first, second in itertools.permutations(names, 2):
            for _ in range(2):
                winner = rng.choice(["first", "first", "second", "tie"])
                strength = None if winner == "tie" else rng.choice([1, 2])
                lines.append((f"q{q}", first, second, winner, "ok", strength))
    split = [
        (lines[i], lines[i + 1]) for i in range(0, len(lines), 2) if {lines[i][5], lines[i + 1][5]} == {1, 2}
    ]
    assert len(split) >= 5  # presentations whose samples differ in strength
    write_log(tmp_path / "log.jsonl", lines)
    prompts = "".join(
        f'[[prompts]]\nid = "q{q}"\ntext = "q{q}?"\nresponses = {{ a = "A", b = "B", c = "C" }}\n'
        for q in range(6)
    )
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n' for c in names)
    toml = tmp_path / "t.toml"
    toml.write_text(
        f'[tournament]\nname = "samples"\n{contestants}{prompts}'
        '[[judges]]\nid = "j"\nprovider = "replay"\nmodel = "gpt-4"\npath = "log.jsonl"\n'
        "[comparison]\nsamples = 2\n"
        '[ranking]\nmethod = "bt"\nthreshold = "none"\nbootstrap = 0\nstrong_weight = 3\n',
        encoding="utf-8",
    )
    assert main(["run", str(toml), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 0
    with Store(tmp_path / "s.sqlite") as store:
        calls = sorted((c.prompt, c.first, c.second, c.sample, c.strength) for c in store.calls())
    assert calls == sorted((p, f, s, k % 2, g) for k, (p, f, s, _, _, g) in enumerate(lines))
    capsys.readouterr()
    assert main(["export", str(toml), "--store", str(tmp_path / "s.sqlite"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["strong_weight"]["strong_verdicts"] == sum(g == 2 for *_, g in lines)
    want = bt_reference([(f, s, w, g) for _, f, s, w, _, g in lines], names, 3)
    for row in doc["rows"]:
        assert row["rating"] == pytest.approx(want[row["contestant"]], abs=1e-6), row["contestant"]
