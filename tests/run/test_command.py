"""`elotui run`: --dry-run, --show-prompt, API-key check, --headless exit codes, over the loopback server."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from elotui.cli import main
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer, Status, Verdict


def server_judge(server: FakeLLMServer, jid: str, **extra: object) -> dict[str, object]:
    cfg = server.judge_config("openai-compatible", id=jid, model=f"model-{jid}", **extra)
    return cfg


def test_dry_run_prints_the_plan_and_the_estimates(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = [
        server_judge(
            fake_llm, "cheap", price_per_million_input=1.0, price_per_million_output=2.0, max_tokens=100
        ),
        server_judge(fake_llm, "free"),
    ]
    t = write_tournament(
        tmp_path / "t.toml",
        contestants=["a", "b", "c"],
        judges=judges,
        comparison={"conditions": ["clean", "injected"]},
    )
    store = str(tmp_path / "s.sqlite")
    assert main(["run", str(t), "--dry-run", "--store", store]) == 0
    out = capsys.readouterr().out
    assert fake_llm.requests == []  # a dry run calls nobody
    assert "test: 48 planned calls, 0 already cached, 48 to send" in out
    assert (
        "judge calls: 48 = 2 prompts x 3 pairs x 2 order(s) x 2 judges x 1 sample(s) x 2 condition(s)" in out
    )
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()
        if line.startswith(("cheap", "free", "total"))
    }
    assert rows["cheap"][1:5] == ["verdict", "24", "0", "24"]
    assert rows["free"][1:5] == ["verdict", "24", "0", "24"] and rows["free"][-1] == "-"
    in_tokens = int(rows["cheap"][5].replace(",", ""))
    assert rows["cheap"][6] == f"{24 * 100:,}"  # output estimate: min(max_tokens, 512) per call
    assert 24 * 200 < in_tokens < 24 * 1000  # ~ characters / 4 of each rendered prompt
    assert rows["cheap"][7] == f"${(in_tokens * 1.0 + 2400 * 2.0) / 1e6:.4f}"
    # after a run every call is cached
    assert main(["run", str(t), "--headless", "--store", store]) == 0
    capsys.readouterr()
    assert main(["run", str(t), "--dry-run", "--store", store]) == 0
    assert "48 planned calls, 48 already cached, 0 to send" in capsys.readouterr().out


def test_show_prompt_prints_one_rendered_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = write_tournament(tmp_path / "t.toml", contestants=["a", "b", "c"])
    assert main(["run", str(t), "--show-prompt"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "# first planned comparison: prompt p1, judge j1, condition clean\n===== system =====\n"
    )
    system, user = out.split("===== user =====\n")
    assert "You are an impartial" in system and '"better": "A" | "B" | "tie"' in system
    token = re.search(r"<<<PROMPT ([0-9a-f]{16})>>>", user)
    assert token is not None
    assert f"<<<PROMPT {token.group(1)}>>>\nWhat is AI?\n<<<END PROMPT {token.group(1)}>>>" in user
    assert "<<<RESPONSE A" in user and "<<<RESPONSE B" in user


def test_missing_api_key_is_named_before_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ELOTUI_TEST_MISSING_KEY", raising=False)
    judge = {"id": "j1", "provider": "openai", "model": "gpt", "api_key_env": "ELOTUI_TEST_MISSING_KEY"}
    t = write_tournament(tmp_path / "t.toml", contestants=["a", "b"], judges=[judge])
    assert main(["run", str(t), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "ELOTUI_TEST_MISSING_KEY" in capsys.readouterr().err
    assert not (tmp_path / "s.sqlite").exists()


def test_headless_prints_progress_and_the_leaderboard(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    t = write_tournament(
        tmp_path / "t.toml", contestants=["a", "b", "c"], judges=[server_judge(fake_llm, "j1")]
    )
    fake_llm.verdict_fn = _by_name  # c beats b beats a, in either order
    assert main(["run", str(t), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 0
    captured = capsys.readouterr()
    assert len(fake_llm.requests) == 12
    lines = captured.out.splitlines()
    assert lines[0].startswith("test — elo, threshold 0.5")
    end = next(i for i, line in enumerate(lines) if line.startswith("interval: "))
    assert "95 % bootstrap interval by prompt" in lines[end]  # the interval says what it is
    ranking = [line.split()[1] for line in lines[3:end]]
    assert lines[-1].startswith("verdicts used 12 · invalid 0 · failed 0 · missing 0")
    assert ranking == ["c", "b", "a"]
    assert re.search(
        r"12/12 \(100%\) \| [\d.]+/s \| failed 0 \| invalid 0 \| ETA 0:00 \| tokens [\d,]+ in", captured.err
    )
    # before it: what the run does while it prepares (silent for ~20 s at 10^6 calls before)
    assert (
        captured.err.splitlines()[0] == "preparing: planning the calls and storing the plan (Ctrl-C stops it)"
    )


def _by_name(request: object) -> Verdict:
    pair = request.responses  # type: ignore[attr-defined]
    assert pair is not None
    rank = {"a": 0, "b": 1, "c": 2}
    a, b = (rank[text.split()[0]] for text in pair)
    return Verdict("A" if a > b else "B")


def test_exit_code_3_lists_the_calls_that_failed(
    tmp_path: Path, fake_llm_factory: Callable[..., FakeLLMServer], capsys: pytest.CaptureFixture[str]
) -> None:
    def fn(request: object) -> Verdict | Status:
        pair = request.responses  # type: ignore[attr-defined]
        if pair and pair[0].startswith("a answers p2") and pair[1].startswith("b"):
            return Status(400, '{"error": {"message": "bad request (fake)"}}')
        return Verdict("A")

    server = fake_llm_factory(verdict_fn=fn)
    t = write_tournament(
        tmp_path / "t.toml", contestants=["a", "b", "c"], judges=[server_judge(server, "j1")]
    )
    store = str(tmp_path / "s.sqlite")
    assert main(["run", str(t), "--headless", "--store", store]) == 3
    err = capsys.readouterr().err
    assert "1 planned comparison(s) failed for good" in err
    assert re.search(r"^  j1: p2 a vs b \[clean, sample 0\]: .*400", err, re.MULTILINE)
    # the next run retries only that call
    server.verdict_fn = lambda request: Verdict("B")
    before = len(server.requests)
    assert main(["run", str(t), "--headless", "--store", store]) == 0
    assert len(server.requests) - before == 1


def test_headless_budget_stop_exits_4_and_resumes(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that stops at max_cost with calls left is neither complete (0) nor failed (3): exit 4."""
    judge = server_judge(fake_llm, "paid", price_per_million_input=1000.0, price_per_million_output=1000.0)
    t = write_tournament(tmp_path / "t.toml", contestants=["a", "b", "c"], judges=[judge])
    store = str(tmp_path / "s.sqlite")
    assert main(["run", str(t), "--headless", "--store", store, "--max-cost", "0.000001"]) == 4
    err = capsys.readouterr().err
    assert "budget reached" in err and "--max-cost" in err
    sent = len(fake_llm.requests)
    assert sent < 12
    assert main(["run", str(t), "--headless", "--store", store]) == 0
    assert len(fake_llm.requests) == 12  # only the missing calls were sent on resume


def test_dry_run_and_show_prompt_need_no_api_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ELOTUI_TEST_MISSING_KEY", raising=False)
    judge = {"id": "j1", "provider": "openai", "model": "gpt", "api_key_env": "ELOTUI_TEST_MISSING_KEY"}
    t = write_tournament(tmp_path / "t.toml", contestants=["a", "b"], judges=[judge])
    for flag in ("--dry-run", "--show-prompt"):
        assert main(["run", str(t), flag, "--store", str(tmp_path / "s.sqlite")]) == 0
        assert "ELOTUI_TEST_MISSING_KEY is not set" in capsys.readouterr().err


def test_a_malformed_replay_log_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"prompt": "p1", "first": "a", "second": "b", "judge": "r", "winner": "first"}\n{broken\n'
    )
    judge = {"id": "r", "provider": "replay", "path": "log.jsonl"}
    t = write_tournament(tmp_path / "t.toml", contestants=["a", "b"], judges=[judge])
    assert main(["run", str(t), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert f"{log}:2:2: not valid JSON" in capsys.readouterr().err
