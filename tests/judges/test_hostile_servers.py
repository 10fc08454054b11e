"""Hostile and broken servers are bounded and clear: a huge reply, a gzip bomb, a server trickling a byte a
second, a dead endpoint, credentials in the base_url."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.judges.conftest import request
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer, RawBody, Trickle


async def test_a_huge_reply_is_not_read(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge("openai", max_reply_bytes=1024 * 1024)
    fake_llm.script(RawBody("x" * (20 * 1024 * 1024), content_type="application/json"))
    reply = await judge.judge(request())
    assert reply.status == "error" and "larger than max_reply_bytes = 1,048,576 bytes" in (reply.error or "")
    await judge.aclose()


async def test_a_gzip_bomb_is_capped_decompressed(make_judge, fake_llm: FakeLLMServer) -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 200_000
    judge, _ = make_judge("openai", max_reply_bytes=1024 * 1024)
    fake_llm.script(RawBody(bomb, content_type="application/json", headers={"Content-Encoding": "gzip"}))
    reply = await judge.judge(request())
    assert reply.status == "error" and "(decompressed)" in (reply.error or "")
    await judge.aclose()


async def test_timeout_bounds_the_whole_attempt(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge("openai", timeout_s=1.0, max_retries=0)
    fake_llm.script(Trickle(b'{"choices": [] ' + b" " * 100 + b"}", every_s=0.2))  # ~20 s to send it all
    started = time.monotonic()
    reply = await judge.judge(request())
    assert reply.status == "error" and "within timeout_s = 1s (the whole attempt)" in (reply.error or "")
    assert time.monotonic() - started < 5  # bounded by timeout_s, not by the server
    await judge.aclose()


def test_a_dead_endpoint_ends_the_run_promptly_and_clearly(tmp_path: Path) -> None:
    judge = {
        "id": "j1",
        "provider": "openai-compatible",
        "model": "m",
        "base_url": "http://user:s3cret-pass@127.0.0.1:9/v1",
        "max_concurrency": 4,
    }
    contestants = [f"c{i}" for i in range(8)]
    prompts = {f"p{i}": f"Question {i}?" for i in range(6)}
    path = write_tournament(tmp_path / "t.toml", contestants=contestants, prompts=prompts, judges=[judge])
    store = tmp_path / "s.sqlite"
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", "--store", str(store)],
        env={**os.environ, "ELOTUI_HOME": str(tmp_path / "home")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    took = time.monotonic() - started
    assert out.returncode == 3 and took < 30, (took, out.stderr[-2000:])
    assert (
        "cannot reach http://127.0.0.1:9/v1" in out.stderr
        and "call(s) not sent (the next run tries them)" in out.stderr
    )
    assert len(out.stderr.splitlines()) < 40  # not one line per planned call (336 here)
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".toml")
    for text in (out.stdout, out.stderr):
        assert "s3cret-pass" not in text
    assert b"s3cret-pass" not in stored  # not in calls.error, not in the run manifest
