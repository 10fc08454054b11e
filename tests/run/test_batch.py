"""Batch judges (`batch = true`) against loopback fakes of the OpenAI and Anthropic batch APIs
(tests.servers.fake_batch, which checks every body it receives and every reply it sends with the official SDKs):
each call submitted once, the verdicts those of the same judge asked synchronously, failed requests retried by
the next run only, a killed process's batch collected by the next run instead of submitted again, the budget and
the dry run at the batch price."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from elotui.commands.leaderboard_text import print_leaderboard
from elotui.run import batching
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.store.batches import all_batches, open_batches
from elotui.store.schema import SCHEMA_VERSION
from elotui.tournament.model import load_tournament
from tests.run.fakes import write_tournament
from tests.servers.fake_batch import FakeBatchServer
from tests.servers.fake_llm import FakeLLMServer, by_responses

pytest.importorskip("openai")
pytest.importorskip("anthropic")

CONTESTANTS = ["a", "b", "c", "d", "e", "f"]
PROMPTS = {f"p{i}": f"Question number {i}?" for i in range(1, 5)}
TOTAL = len(PROMPTS) * 15 * 2  # 120 verdict calls
PRICES = {"price_per_million_input": 2.0, "price_per_million_output": 8.0}
JUDGE_FN = by_responses(lambda a, b: "A" if (len(a) + ord(a[0])) % 3 >= (len(b) + ord(b[0])) % 3 else "B")


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batching, "BATCH_FIRST_POLL_S", 0.01)
    monkeypatch.setattr(batching, "BATCH_MAX_POLL_S", 0.02)
    monkeypatch.setenv("ELOTUI_FAKE_KEY", "sk-fake-batch")


def batch_judge(server: FakeBatchServer, provider: str, **extra: Any) -> dict[str, Any]:
    base = server.url + {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]
    return {
        "id": "j1",
        "provider": provider,
        "model": "fake-model",
        "base_url": base,
        "api_key_env": "ELOTUI_FAKE_KEY",
        "batch": True,
        **extra,
    }


def run(path: Path, store: Path, **options: Any) -> Any:
    with Store(store) as s:
        return asyncio.run(Runner(load_tournament(path), s, **options).run())


def verdicts(store: Path) -> dict[tuple[str, str, str], tuple[str, str]]:
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT prompt, first, second, status, winner FROM calls WHERE kind = 'verdict'")
        return {(p, f, s): (st, w) for p, f, s, st, w in rows}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_batch_submits_each_call_once_and_equals_the_synchronous_run(tmp_path: Path, provider: str) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN) as server, FakeLLMServer(verdict_fn=JUDGE_FN) as live:
        path = write_tournament(
            tmp_path / "b.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, provider, batch_max_requests=50, **PRICES)],
        )
        result = run(path, tmp_path / "b.sqlite")
        assert result.state == "finished" and result.done == TOTAL and not result.failed
        assert len(server.submitted) == TOTAL and set(server.submitted.values()) == {1}
        assert server.created == 3  # 50 + 50 + 20
        assert server.problems == []
        sync = live.judge_config(provider, id="j1", **PRICES)
        path2 = write_tournament(tmp_path / "s.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[sync])
        assert run(path2, tmp_path / "s.sqlite").done == TOTAL
    batched, synchronous = verdicts(tmp_path / "b.sqlite"), verdicts(tmp_path / "s.sqlite")
    assert len(batched) == TOTAL and batched == synchronous
    assert {w for _, w in batched.values()} == {"first", "second"}  # the judge is not constant
    boards = []
    for name in ("b", "s"):
        out = io.StringIO()
        with Store(tmp_path / f"{name}.sqlite") as s:
            print_leaderboard(load_tournament(tmp_path / f"{name}.toml"), s, out)
            boards.append(out.getvalue())
    assert boards[0] == boards[1] and "elo" in boards[0]
    batch_costs, sync_costs = costs(tmp_path / "b.sqlite"), costs(tmp_path / "s.sqlite")
    assert batch_costs.keys() == sync_costs.keys() and all(c > 0 for c in sync_costs.values())
    assert all(batch_costs[k] == pytest.approx(sync_costs[k] * 0.5) for k in sync_costs)  # recorded at half
    with Store(tmp_path / "b.sqlite") as s:
        assert [b.state for b in all_batches(s)] == ["collected"] * 3 and not open_batches(s)


def costs(store: Path) -> dict[tuple[str, str, str], float]:
    """Each presentation's recorded cost (the cache keys differ: a judge's base_url is part of them)."""
    with sqlite3.connect(store) as db:
        return {(p, f, s): c for p, f, s, c in db.execute("SELECT prompt, first, second, cost FROM calls")}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_errored_and_expired_requests_fail_and_only_they_are_sent_again(
    tmp_path: Path, provider: str
) -> None:
    fates: dict[str, str | None] = {}

    def outcome(cid: str) -> str | None:  # of the first submission: 10 % errored, 5 % expired, 2.5 % missing
        if cid not in fates:
            n = len(fates)
            fates[cid] = (
                "errored"
                if n % 10 == 0
                else "expired"
                if n % 20 == 5
                else "missing"
                if n % 40 == 15
                else None
            )
            return fates[cid]
        return None

    with FakeBatchServer(verdict_fn=JUDGE_FN, outcome_fn=outcome) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, provider)],
        )
        first = run(path, tmp_path / "s.sqlite")
        bad = {cid for cid, fate in fates.items() if fate}
        assert len(bad) == 12 + 6 + 3 and first.failed_calls == len(bad) and first.done == TOTAL - len(bad)
        stored = verdicts(tmp_path / "s.sqlite")
        assert sum(st == "error" for st, _ in stored.values()) == len(bad)
        second = run(path, tmp_path / "s.sqlite")
        resent = {cid for cid, n in server.submitted.items() if n == 2}
        assert resent == bad and sum(server.submitted.values()) == TOTAL + len(bad)
        assert second.done == TOTAL and server.problems == []


def test_a_batch_that_fails_whole_frees_its_calls(tmp_path: Path) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN) as server:
        server.fail_whole = True
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "openai")],
        )
        first = run(path, tmp_path / "s.sqlite")
        assert first.done == 0 and first.failed_calls == TOTAL
        server.fail_whole = False
        assert run(path, tmp_path / "s.sqlite").done == TOTAL
        assert set(server.submitted.values()) == {2}


def test_max_cost_stops_submitting_batches_before_the_budget(tmp_path: Path) -> None:
    priced = {"price_per_million_input": 1000.0, "price_per_million_output": 1000.0, "batch_max_requests": 10}
    with FakeBatchServer(verdict_fn=JUDGE_FN) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "openai", **priced)],
        )
        result = run(path, tmp_path / "s.sqlite", max_cost=0.5)
        assert result.state == "budget" and 0 < result.done < TOTAL, (result, server.submitted)
        assert result.run_cost <= 0.5
        assert len(server.submitted) == result.done  # nothing submitted that was not collected and recorded


def test_dry_run_prices_batch_judges_at_the_batch_factor(tmp_path: Path) -> None:
    from elotui.judges import build_judge
    from elotui.plan.estimate import dry_run

    prices = {"price_per_million_input": 2.0, "price_per_million_output": 8.0}
    costs = []
    for batch in (False, True):
        judge = {"id": "j1", "provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9", **prices}
        if batch:
            judge["batch"] = True
        path = write_tournament(
            tmp_path / f"{batch}.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge]
        )
        t = load_tournament(path)
        judges = {j.id: build_judge(j, judge_id=j.id, base_dir=tmp_path) for j in t.spec.judges}
        with Store(tmp_path / f"{batch}.sqlite") as s:
            costs.append(dry_run(t, s, judges).rows[0].cost)
    assert costs[0] and costs[1] == pytest.approx(costs[0] * 0.5)
    shown = cli(
        "run",
        str(tmp_path / "True.toml"),
        "--dry-run",
        "--store",
        str(tmp_path / "d.sqlite"),
        env={**os.environ, "ELOTUI_HOME": str(tmp_path / "home")},
    )
    assert shown.returncode == 0, shown.stderr
    (row,) = [line for line in shown.stdout.splitlines() if line.startswith("j1 ")]
    assert "verdict, batch ×0.5" in row and f"${costs[1]:.4f}" in row


def test_batch_on_a_provider_without_a_batch_api_is_refused(tmp_path: Path) -> None:
    judge = {"id": "j1", "provider": "ollama", "model": "m", "batch": True}
    path = write_tournament(tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=[judge])
    done = subprocess.run(
        [sys.executable, "-m", "elotui.cli", "validate", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2 and "batch" in done.stderr + done.stdout


def test_a_killed_process_batch_is_collected_by_the_next_run_not_submitted_again(tmp_path: Path) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN, hold=True) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "openai")],
        )
        store = tmp_path / "s.sqlite"
        cmd = [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", "--store", str(store)]
        env = {
            **os.environ,
            "ELOTUI_HOME": str(tmp_path / "home"),
            "ELOTUI_BATCH_FIRST_POLL_S": "0.01",
            "ELOTUI_BATCH_MAX_POLL_S": "0.02",
        }
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not (server.created and any(b["status"] == "in_progress" for b in server.batches.values())):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        with Store(store) as s:
            (row,) = open_batches(s)
            assert row.batch_id == "batch_1" and len(row.keys) == TOTAL
        listed = subprocess.run(
            [sys.executable, "-m", "elotui.cli", "runs", str(path), "--store", str(store)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert listed.returncode == 0 and "batch_1" in listed.stdout, listed.stdout + listed.stderr
        server.release()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, done.stderr
        assert (
            server.created == 1 and len(server.submitted) == TOTAL and set(server.submitted.values()) == {1}
        )
        assert server.problems == []
    stored = verdicts(store)
    assert len(stored) == TOTAL and all(st == "ok" for st, _ in stored.values())
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == TOTAL


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "elotui.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def cli_env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ELOTUI_HOME": str(tmp_path / "home"),
        "ELOTUI_BATCH_FIRST_POLL_S": "0.01",
        "ELOTUI_BATCH_MAX_POLL_S": "0.02",
    }


def test_no_wait_submits_and_exits_then_the_next_run_collects(tmp_path: Path) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "anthropic")],
        )
        store, env = tmp_path / "s.sqlite", cli_env(tmp_path)
        left = cli("run", str(path), "--headless", "--no-wait", "--store", str(store), env=env)
        assert left.returncode == 0, left.stderr
        assert "1 batch(es) of 120 request(s) open" in left.stderr and "batches: 1 open" in left.stderr
        assert server.created == 1 and verdicts(store) == {}
        with Store(store) as s:  # what `elotui watch T` reads of the run: its last progress, batches included
            from elotui.store.runs import latest_run
            from elotui.tui.state.watch import progress_of

            watched = progress_of(latest_run(s))
        assert watched is not None and watched.batches is not None
        assert (
            watched.batches.startswith("batches: 1 open · j1 msgbatch_1 ") and "/120 done" in watched.batches
        )
        done = cli("run", str(path), "--headless", "--store", str(store), env=env)
        assert done.returncode == 0, done.stderr
        assert server.created == 1 and set(server.submitted.values()) == {1} and server.problems == []
    assert len(verdicts(store)) == TOTAL


def test_cancel_batches_cancels_at_the_provider_and_frees_the_calls(tmp_path: Path) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN, hold=True) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "openai")],
        )
        store, env = tmp_path / "s.sqlite", cli_env(tmp_path)
        assert (
            cli("run", str(path), "--headless", "--no-wait", "--store", str(store), env=env).returncode == 0
        )
        cancelled = cli("run", str(path), "--cancel-batches", "--store", str(store), env=env)
        assert cancelled.returncode == 0 and "batch_1 cancelled (120 requests freed)" in cancelled.stderr
        assert "POST /v1/batches/batch_1/cancel" in server.paths
        with Store(store) as s:
            assert not open_batches(s) and [b.state for b in all_batches(s)] == ["cancelled"]
        server.release()
        assert cli("run", str(path), "--headless", "--store", str(store), env=env).returncode == 0
        assert server.created == 2 and set(server.submitted.values()) == {2}
    assert len(verdicts(store)) == TOTAL


def test_mixed_panel_of_batch_and_synchronous_judges(tmp_path: Path) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN) as server, FakeLLMServer(verdict_fn=JUDGE_FN) as live:
        judges = [batch_judge(server, "openai"), {**live.judge_config("openai-compatible"), "id": "j2"}]
        path = write_tournament(tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=judges)
        result = run(path, tmp_path / "s.sqlite")
        assert result.done == 2 * TOTAL and len(server.submitted) == TOTAL and len(live.requests) == TOTAL


def test_a_version_8_store_gains_the_batches_table_and_keeps_its_answers(tmp_path: Path) -> None:
    from tests.foundation.old_stores import store_at_version

    path = tmp_path / "v8.sqlite"
    db = store_at_version(path, 8)
    db.execute("INSERT INTO calls (key, kind, status, winner) VALUES ('k1', 'verdict', 'ok', 'first')")
    db.close()
    with Store(path) as s:
        assert s.schema_version == SCHEMA_VERSION and s.cached_keys(["k1"]) == {"k1"}
        assert open_batches(s) == [] and all_batches(s) == []
        from elotui.store.batches import add_batch, update_batch

        row = add_batch(s, "j1", "openai", ["k1", "k2"], None)
        update_batch(s, row, batch_id="batch_x", state="open", counts=(1, 0))
        (open_row,) = open_batches(s, "j1")
        assert (open_row.batch_id, open_row.keys, open_row.done, open_row.ended_at) == (
            "batch_x",
            ("k1", "k2"),
            1,
            None,
        )
        update_batch(s, row, state="collected")
        assert open_batches(s) == [] and all_batches(s)[0].ended_at is not None


def test_the_batches_line_neutralises_what_the_provider_says() -> None:
    from elotui.run.events import BatchProgress, batches_line

    hostile = BatchProgress(
        "j1", "batch_\x1b]52;c;evil\x07x", 10, 3, 1, "in_progress\x1b[2J\nfake line", 100.0
    )
    line = batches_line([hostile], 100.0 + 125)
    assert line is not None and "\x1b" not in line and "\n" not in line and "\x07" not in line
    assert line.startswith("batches: 1 open · j1 batch_") and "3/10 done, 1 failed, 2m" in line
    assert batches_line([], 0.0) is None


def test_an_adaptive_plan_submits_each_round_as_a_batch(tmp_path: Path) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "openai")],
            comparison={"plan": "adaptive", "max_calls": 60},
        )
        result = run(path, tmp_path / "s.sqlite")
        assert result.adaptive is not None and 0 < result.done <= 60
        assert server.created >= 2  # one batch a round, each round waiting for its batch
        assert set(server.submitted.values()) == {1} and len(server.submitted) == len(
            verdicts(tmp_path / "s.sqlite")
        )
        assert server.problems == []


def test_a_batch_the_provider_does_not_know_fails_its_calls_instead_of_polling_forever(
    tmp_path: Path,
) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN, hold=True) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "openai")],
        )
        store, env = tmp_path / "s.sqlite", cli_env(tmp_path)
        assert (
            cli("run", str(path), "--headless", "--no-wait", "--store", str(store), env=env).returncode == 0
        )
        server.batches.clear()  # e.g. the store copied to a machine with another account's key
        result = run(path, store)
        assert result.failed_calls == TOTAL
        with sqlite3.connect(store) as db:
            errors = {error for (error,) in db.execute("SELECT error FROM calls")}
        assert len(errors) == 1 and "batch batch_1 could not be polled" in errors.pop()
        assert server.paths.count("GET /v1/batches/batch_1") == 1  # refused once: not asked again
        with Store(store) as s:
            assert [(b.state, b.status) for b in all_batches(s)] == [("failed", "poll refused")]
        server.release()
        assert run(path, store).done == TOTAL  # the next run submits them again


def test_no_wait_without_headless_is_refused(tmp_path: Path) -> None:
    path = write_tournament(tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS)
    done = cli("run", str(path), "--no-wait", "--store", str(tmp_path / "s.sqlite"), env=cli_env(tmp_path))
    assert done.returncode == 2 and "--no-wait goes with --headless" in done.stderr


def test_a_results_file_read_twice_records_nothing_twice(tmp_path: Path) -> None:
    with FakeBatchServer(verdict_fn=JUDGE_FN) as server:
        path = write_tournament(
            tmp_path / "t.toml",
            contestants=CONTESTANTS,
            prompts=PROMPTS,
            judges=[batch_judge(server, "openai")],
        )
        store = tmp_path / "s.sqlite"
        assert run(path, store).done == TOTAL
        with sqlite3.connect(store) as db:  # as if the process died after recording, before closing the batch
            db.execute("UPDATE batches SET state = 'open', ended_at = NULL")
            before = db.execute("SELECT key, finished_at FROM calls ORDER BY key").fetchall()
        again = run(path, store)
        assert again.done == TOTAL and server.created == 1 and len(server.submitted) == TOTAL
        with sqlite3.connect(store) as db:
            assert db.execute("SELECT key, finished_at FROM calls ORDER BY key").fetchall() == before
        with Store(store) as s:  # every call of it answered: the batch is closed, not left open
            assert [b.state for b in all_batches(s)] == ["collected"]


def test_the_fake_batch_server_catches_bodies_the_sdks_reject() -> None:
    """The SDK checks of the fake can fail: a misspelled parameter in each provider's batch body is reported."""
    with FakeBatchServer() as server:
        server.route(
            "POST",
            "/v1/files",
            {"content-type": "multipart/form-data; boundary=b"},
            b'--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--b\r\n'
            b'Content-Disposition: form-data; name="file"; filename="x.jsonl"\r\n\r\n'
            b'{"custom_id": "k1", "method": "POST", "url": "/v1/chat/completions", '
            b'"body": {"model": "m", "mesages": []}}\r\n--b--\r\n',
        )
        assert server.problems == []  # the upload itself is fine
        server.route(
            "POST",
            "/v1/batches",
            {},
            json.dumps(
                {"input_file_id": "file-1", "endpoint": "/v1/chat/completions", "completion_window": "24h"}
            ).encode(),
        )
        assert any("mesages" in p for p in server.problems) and server.submitted["k1"] == 1
        server.problems.clear()
        body = {
            "requests": [
                {
                    "custom_id": "k2",
                    "params": {"model": "m", "max_tokens": 5, "messages": [], "temprature": 0},
                }
            ]
        }
        server.route("POST", "/v1/messages/batches", {}, json.dumps(body).encode())
        server.route("GET", "/v1/messages/batches/msgbatch_2", {}, b"")
        assert any("temprature" in p for p in server.problems)
