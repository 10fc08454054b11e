"""Live judges asked for graded verdicts (`[judge_prompt] scale = "graded"`): a tournament judged through the
loopback fake server in the OpenAI, Anthropic and Gemini wire formats, by a judge that knows each contestant's
latent quality and answers `A>>B` for a gap beyond a threshold. Its verdicts are parsed, stored with their
strength, ranked; `strong_weight = 1` is the ungraded ranking exactly; `strong_weight = 3` equals an independent
Bradley–Terry fit with each strong battle repeated three times (arena-hard's computation); the cache never pays
twice and never answers a graded question with a binary verdict."""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.cli import main
from elotui.store import Store, default_store_path
from elotui.tournament.model import load_tournament
from tests.servers.fake_llm import FakeLLMServer, by_quality

QUALITIES = {"c1": 3.0, "c2": 2.0, "c3": 0.5, "c4": 0.5}  # c3 and c4 tie; c1 vs c3 is a strong gap
STRONG_GAP = 2.0
PROMPTS = 4
WIRES = ("openai", "anthropic", "gemini")


def write_tournament(tmp_path: Path, server: FakeLLMServer, *, scale: str, strong_weight: int) -> Path:
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n' for c in QUALITIES)

    def responses(i: int) -> str:
        return ", ".join(f'{c} = "answer of {c} to question {i}"' for c in QUALITIES)

    prompts = "".join(
        f'[[prompts]]\nid = "p{i}"\ntext = "Question {i}?"\nresponses = {{ {responses(i)} }}\n'
        for i in range(PROMPTS)
    )
    judges = "".join(
        f'[[judges]]\nid = "{wire}"\nprovider = "{wire}"\nmodel = "fake-{wire}"\n'
        f'base_url = "{server.base_url(wire)}"\napi_key_env = "ELOTUI_FAKE_KEY"\nmax_retries = 0\n'
        for wire in WIRES
    )
    text = (
        f'[tournament]\nname = "graded live"\n\n{contestants}\n{prompts}\n{judges}\n'
        f'[judge_prompt]\nscale = "{scale}"\n\n'
        f'[ranking]\nmethod = "bt"\nthreshold = "none"\nbootstrap = 0\nstrong_weight = {strong_weight}\n'
    )
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    return path


def set_key(path: Path, key: str, value: str) -> None:
    lines = [
        f"{key} = {value}" if line.startswith(f"{key} =") else line for line in path.read_text().splitlines()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def ratings(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, float]:
    capsys.readouterr()
    assert main(["export", str(path), "--format", "json", *extra]) == 0
    return {r["contestant"]: r["rating"] for r in json.loads(capsys.readouterr().out)["rows"]}


def stored_calls(path: Path) -> list[Any]:
    with Store(default_store_path(load_tournament(path))) as store:
        return [c for c in store.calls() if c.kind == "verdict"]


def run(path: Path) -> None:
    assert main(["run", str(path), "--headless"]) == 0


@pytest.fixture
def server(fake_llm_factory: Any, fake_key: str) -> FakeLLMServer:
    made: FakeLLMServer = fake_llm_factory(verdict_fn=by_quality(QUALITIES, STRONG_GAP))
    return made


def test_a_graded_tournament_over_three_wire_formats_parses_stores_and_ranks(
    tmp_path: Path, server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_tournament(tmp_path, server, scale="graded", strong_weight=3)
    run(path)
    pairs = len(QUALITIES) * (len(QUALITIES) - 1)  # ordered pairs: both orders of each
    assert len(server.requests) == PROMPTS * pairs * len(WIRES)
    assert Counter(r.wire for r in server.requests) == dict.fromkeys(WIRES, PROMPTS * pairs)
    for r in server.requests:  # every request asked for the graded scale, in its wire's structured output
        assert r.wants_graded and "A>>B" in r.system
        schema = {
            "openai": lambda b: b["response_format"]["json_schema"]["schema"],
            "anthropic": lambda b: b["output_config"]["format"]["schema"],
            "gemini": lambda b: b["generationConfig"]["responseSchema"],
        }[r.wire](r.json)
        assert schema["properties"]["better"]["enum"] == ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    calls = stored_calls(path)
    assert len(calls) == len(server.requests) and {c.status for c in calls} == {"ok"}
    for c in calls:  # the stored winner and strength are what the judge meant, in either order shown
        gap = QUALITIES[c.first] - QUALITIES[c.second]
        want = (
            ("tie", None)
            if gap == 0
            else ("first" if gap > 0 else "second", 2 if abs(gap) >= STRONG_GAP else 1)
        )
        assert (c.winner, c.strength) == want, (c.first, c.second, c.raw_reply)
        assert json.loads(c.raw_reply)["better"] in ("A>>B", "A>B", "A=B", "B>A", "B>>A")
    assert Counter(c.strength for c in calls) == {
        2: 4 * PROMPTS * len(WIRES),  # c1-c3, c1-c4 in both orders
        1: 6 * PROMPTS * len(WIRES),  # c1-c2, c2-c3, c2-c4
        None: 2 * PROMPTS * len(WIRES),  # c3-c4: ties
    }
    board = ratings(path, capsys)
    capsys.readouterr()
    assert main(["export", str(path), "--format", "json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings["strong_weight"] == {
        "weight": 3,
        "strong_verdicts": 4 * PROMPTS * len(WIRES),
        "counted": "as games",
    }
    assert main(["export", str(path), "--format", "json", "--threshold", "0.5"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["strong_weight"]["counted"] == "as one vote each"
    order = sorted(board, key=board.__getitem__, reverse=True)
    assert order[:2] == ["c1", "c2"] and board["c3"] == pytest.approx(board["c4"], abs=1e-6)


def bt_reference(calls: list[Any], weight: int) -> dict[str, float]:
    """Bradley–Terry by maximum likelihood written here (Newton's method on the natural-log strengths; ties half
    a win; elotui's weak Gaussian prior of precision 0.01): each battle once, a strong one `weight` times
    (arena-hard's show_result), on the 400 log10 scale, centred at 1000."""
    names = list(QUALITIES)
    code = {c: i for i, c in enumerate(names)}
    n, prior = len(names), 0.01
    theta = np.zeros(n)
    for _ in range(100):
        grad, hess = -prior * theta, -prior * np.eye(n)
        for c in calls:
            i, j = code[c.first], code[c.second]
            y = {"first": 1.0, "second": 0.0, "tie": 0.5}[c.winner]
            times = weight if c.strength == 2 else 1
            p = 1 / (1 + math.exp(-(theta[i] - theta[j])))
            grad[i] += times * (y - p)
            grad[j] -= times * (y - p)
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


def test_strong_weight_one_is_the_ungraded_ranking_and_three_counts_a_strong_verdict_three_times(
    tmp_path: Path, server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # a judge that is not always right, so that the ratings stay finite: c2 beats c1 on one prompt
    upset = by_quality({**QUALITIES}, STRONG_GAP)

    def verdict_fn(request: Any) -> Any:
        pair = request.responses
        if pair and "answer of c2 to question 0" in pair[0] and "answer of c1" in pair[1]:
            return "B>A" if request.wants_graded else "B"
        if pair and "answer of c4 to question 1" in pair[0] and "answer of c1" in pair[1]:
            return "A>B" if request.wants_graded else "A"
        if pair and "answer of c3 to question 2" in pair[0] and "answer of c2" in pair[1]:
            return "A>>B" if request.wants_graded else "A"
        return upset(request)

    server.verdict_fn = verdict_fn
    path = write_tournament(tmp_path, server, scale="graded", strong_weight=1)
    run(path)
    calls = stored_calls(path)
    weight_one = {m: ratings(path, capsys, "--method", m) for m in ("bt", "elo")}
    set_key(path, "strong_weight", "3")
    weight_three = {m: ratings(path, capsys, "--method", m) for m in ("bt", "elo")}
    assert max(abs(weight_three["bt"][c] - weight_one["bt"][c]) for c in QUALITIES) > 5

    # strong_weight = 3 against an independent fit with every strong battle three times
    want = bt_reference(calls, 3)
    for c in QUALITIES:
        assert weight_three["bt"][c] == pytest.approx(want[c], abs=1e-6), c
    plain = bt_reference(calls, 1)
    for c in QUALITIES:
        assert weight_one["bt"][c] == pytest.approx(plain[c], abs=1e-6), c
    # thresholds count a strong verdict as one vote: at 0.5 the weight changes nothing
    at_half = [ratings(path, capsys, "--method", "bt", "--threshold", "0.5")]
    set_key(path, "strong_weight", "1")
    at_half.append(ratings(path, capsys, "--method", "bt", "--threshold", "0.5"))
    assert at_half[0] == at_half[1]

    # the same verdicts with their strength dropped rank exactly as strong_weight = 1 (and at 3: nothing is strong)
    with sqlite3.connect(default_store_path(load_tournament(path))) as db:
        db.execute("UPDATE calls SET strength = NULL")
    set_key(path, "strong_weight", "3")
    dropped = {m: ratings(path, capsys, "--method", m) for m in ("bt", "elo")}
    for m in ("bt", "elo"):
        for c in QUALITIES:
            assert dropped[m][c] == pytest.approx(weight_one[m][c], abs=1e-9), (m, c)

    # ... and as the binary scale's verdicts of the same judge (new calls: a binary question is another call)
    before = len(server.requests)
    set_key(path, "scale", '"binary"')
    run(path)
    assert len(server.requests) - before == len(calls)
    assert all(not r.wants_graded for r in server.requests[before:])
    binary = {m: ratings(path, capsys, "--method", m) for m in ("bt", "elo")}
    for m in ("bt", "elo"):
        for c in QUALITIES:
            assert binary[m][c] == pytest.approx(weight_one[m][c], abs=1e-9), (m, c)


def test_the_cache_pays_a_graded_question_once_and_never_answers_it_with_a_binary_verdict(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    path = write_tournament(tmp_path, server, scale="graded", strong_weight=3)
    run(path)
    graded_calls = len(server.requests)
    assert graded_calls > 0
    run(path)  # the same graded tournament again: every verdict is in the store
    assert len(server.requests) == graded_calls
    set_key(path, "strong_weight", "1")  # a ranking setting: still nothing to pay
    run(path)
    assert len(server.requests) == graded_calls
    set_key(path, "scale", '"binary"')  # another question: asked anew
    run(path)
    assert len(server.requests) == 2 * graded_calls
    assert not any(r.wants_graded for r in server.requests[graded_calls:])
    set_key(path, "scale", '"graded"')  # both answers are kept: back to graded pays nothing
    run(path)
    assert len(server.requests) == 2 * graded_calls
    # a copy of the file (another store) reads the graded answers from the shared call cache
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "t.toml").write_text(path.read_text(), encoding="utf-8")
    run(copy / "t.toml")
    assert len(server.requests) == 2 * graded_calls
    assert {c.strength for c in stored_calls(copy / "t.toml")} == {None, 1, 2}


def test_custom_templates_still_key_graded_questions_apart(tmp_path: Path, server: FakeLLMServer) -> None:
    """A tournament's own templates read the same on both scales: the scale in the key keeps the answers apart."""
    path = write_tournament(tmp_path, server, scale="graded", strong_weight=3)
    text = path.read_text().replace(
        "[judge_prompt]",
        '[comparison]\nsystem_template = "Judge by {{criterion}}."\n'
        'user_template = "{{prompt}}\\n<<<RESPONSE A {{boundary}}>>>\\n{{response_a}}\\n<<<END RESPONSE A '
        '{{boundary}}>>>\\n<<<RESPONSE B {{boundary}}>>>\\n{{response_b}}\\n<<<END RESPONSE B {{boundary}}>>>"\n\n'
        "[judge_prompt]",
    )
    path.write_text(text, encoding="utf-8")
    run(path)
    first = len(server.requests)
    assert first > 0
    assert all(r.wants_graded for r in server.requests)  # (the schema asks for the grades)
    set_key(path, "scale", '"binary"')
    run(path)
    assert len(server.requests) == 2 * first


def test_the_verdict_log_carries_the_strength_and_replays_to_the_same_ranking(
    tmp_path: Path, server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_tournament(tmp_path, server, scale="graded", strong_weight=3)
    run(path)
    live = ratings(path, capsys)
    capsys.readouterr()
    log = tmp_path / "verdicts.jsonl"
    assert main(["verdicts", str(path), "-o", str(log)]) == 0
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    calls = {(c.prompt, c.first, c.second, c.judge): c.strength for c in stored_calls(path)}
    assert len(rows) == len(calls)
    for row in rows:
        assert row.get("strength") == calls[(row["prompt"], row["first"], row["second"], row["judge"])]
    assert Counter(row.get("strength") for row in rows) == Counter(calls.values())
    # the log read back by replay judges: the strong verdicts count three times there too
    replay = tmp_path / "replay"
    replay.mkdir()
    judges = "".join(
        f'[[judges]]\nid = "{w}"\nprovider = "replay"\npath = "{log}"\nmodel = "{w}"\n' for w in WIRES
    )
    text = path.read_text()
    head, tail = text.split("[[judges]]", 1)[0], text.split("[judge_prompt]", 1)[1]
    (replay / "t.toml").write_text(head + judges + "\n[judge_prompt]" + tail, encoding="utf-8")
    run(replay / "t.toml")
    replayed = ratings(replay / "t.toml", capsys)
    for c in QUALITIES:
        assert replayed[c] == pytest.approx(live[c], abs=1e-9), c
    set_key(replay / "t.toml", "strong_weight", "1")
    assert (
        max(abs(ratings(replay / "t.toml", capsys)[c] - live[c]) for c in QUALITIES) > 1
    )  # (the weight counts)


def test_batch_judges_ask_and_read_graded_verdicts(
    tmp_path: Path, fake_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`batch = true`: the batch requests carry the graded schema (the fake batch server checks every body with
    the official SDKs) and the results are read on the graded scale."""
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    from elotui.run import batching
    from tests.servers.fake_batch import FakeBatchServer

    monkeypatch.setattr(batching, "BATCH_FIRST_POLL_S", 0.01)
    monkeypatch.setattr(batching, "BATCH_MAX_POLL_S", 0.02)
    with FakeBatchServer(verdict_fn=by_quality(QUALITIES, STRONG_GAP)) as server:
        path = write_tournament(tmp_path, FakeLLMServer(), scale="graded", strong_weight=3)
        text = path.read_text()
        for wire, suffix in (("openai", "/v1"), ("anthropic", ""), ("gemini", "/v1beta")):
            start = text.index(f'id = "{wire}"')
            url_at = text.index("base_url = ", start)
            end = text.index("\n", url_at)
            text = text[:url_at] + f'base_url = "{server.url}{suffix}"\nbatch = true' + text[end:]
        path.write_text(text, encoding="utf-8")
        run(path)
        assert server.problems == []
        assert sum(server.submitted.values()) == PROMPTS * 12 * len(WIRES)
    calls = stored_calls(path)
    assert len(calls) == PROMPTS * 12 * len(WIRES)
    for c in calls:
        gap = QUALITIES[c.first] - QUALITIES[c.second]
        want = (
            ("tie", None)
            if gap == 0
            else ("first" if gap > 0 else "second", 2 if abs(gap) >= STRONG_GAP else 1)
        )
        assert (c.status, c.winner, c.strength) == ("ok", *want), (c.judge, c.raw_reply)
