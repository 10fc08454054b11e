"""The API key appears in no stored or exported byte: a real run (the runner, the store, the manifest) against a
loopback server whose replies and errors echo the request headers, then every file the store and the exports
wrote is searched for the key."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path

import pytest

from elotui.commands.verdicts import log_rows
from elotui.export.graph import export_graph
from elotui.export.ranking import write_json
from elotui.judges.secrets import redact_url, url_secrets
from elotui.run.runner import Runner
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.verdict_log import write_log
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import Echo, FakeLLMServer, Status, Text

PROVIDERS = ["openai", "anthropic", "gemini"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_key_is_in_no_stored_byte(
    fake_llm: FakeLLMServer, fake_key: str, tmp_path: Path, provider: str
) -> None:
    judge = fake_llm.judge_config(provider, id="j1", max_retries=1, max_concurrency=1, timeout_s=2.0)
    path = write_tournament(
        tmp_path / "t.toml", contestants=["a", "b", "c"], prompts={"p1": "Q?"}, judges=[judge]
    )
    tournament = load_tournament(path)
    fake_llm.script(
        Echo(),  # 200 whose text echoes the headers (the key among them): an invalid verdict
        Echo(500),
        Echo(500),  # errors whose bodies echo the key, twice: fails for good
        Status(401, f'{{"error": {{"message": "bad key {fake_key}"}}}}'),
        Echo(400),
        Text(f'{{"reasoning": "your key is {fake_key}", "better": "A"}}'),
    )
    store_dir = tmp_path / "store"
    store = Store(store_dir / "calls.sqlite")
    result = await Runner(tournament, store).run()
    assert result.total == 6
    # The key did travel to the server (so this test could fail).
    assert any(fake_key in str(r.headers) for r in fake_llm.requests)
    statuses = sorted(c.status for c in store.calls())
    assert statuses == sorted(
        ["invalid", "error", "error", "error", "ok", "ok"]
    )  # the last: the server default
    assert any(
        "[redacted]" in (c.raw_reply or "") for c in store.calls()
    )  # the echo was there and was cut out
    exports = tmp_path / "exports"
    export_graph(tournament, store, exports / "graph")
    board = io.StringIO()
    write_json(TournamentSession(tournament, store).leaderboard(threshold="none"), board)
    log = io.StringIO()
    write_log(log_rows(store), log)
    store.close()
    stored = b"".join(p.read_bytes() for p in [*store_dir.rglob("*"), *exports.rglob("*")] if p.is_file())
    stored += (board.getvalue() + log.getvalue() + str(result)).encode()
    assert fake_key.encode() not in stored
    assert b"[redacted]" in stored  # the echoed replies were stored, with the key cut out


async def test_base_url_credentials_are_in_no_stored_byte(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    """`user:password@` (sent as `Authorization: Basic base64(user:password)`) and `?api_key=` in a base_url: a
    server that echoes the request puts them in replies and errors; none reaches a file."""
    password, query_key = "s3cret-pass", "q-key-0123456789"
    basic = base64.b64encode(f"alice:{password}".encode()).decode()
    base_url = (
        fake_llm.base_url("openai").replace("://", f"://alice:{password}@") + f"?api_key={query_key}&v=1"
    )
    judge = {"id": "j1", "provider": "openai-compatible", "model": "m", "base_url": base_url}
    judge |= {"max_retries": 1, "max_concurrency": 1, "timeout_s": 2.0}
    path = write_tournament(
        tmp_path / "t.toml", contestants=["a", "b", "c"], prompts={"p1": "Q?"}, judges=[judge]
    )
    tournament = load_tournament(path)
    fake_llm.script(
        Echo(), Echo(500), Echo(500), Echo(400), Text(f'{{"reasoning": "{basic}", "better": "A"}}')
    )
    store_dir = tmp_path / "store"
    store = Store.open_for(tournament, store_dir / "calls.sqlite")  # with the shared call cache, as a run
    result = await Runner(tournament, store).run()
    assert result.total == 6
    sent = fake_llm.requests[0]  # the credentials did travel (so this test could fail)
    assert (
        sent.headers["authorization"] == f"Basic {basic}"
        and sent.path == f"/v1/chat/completions?api_key={query_key}&v=1"
    )
    assert sorted(c.status for c in store.calls()) == ["error", "error", "invalid", "ok", "ok", "ok"]
    exports = tmp_path / "exports"
    export_graph(tournament, store, exports / "graph")
    board = io.StringIO()
    session = TournamentSession(tournament, store)
    write_json(session.leaderboard(threshold="none"), board)
    provenance = json.dumps(session.provenance())
    log = io.StringIO()
    write_log(log_rows(store), log)
    store.close()
    home = Path(os.environ["ELOTUI_HOME"])  # the shared call cache too
    written = [*store_dir.rglob("*"), *exports.rglob("*"), *home.rglob("*")]
    assert any(p.name == "call-cache.sqlite" for p in written)
    stored = b"".join(p.read_bytes() for p in written if p.is_file())
    stored += (board.getvalue() + log.getvalue() + provenance + str(result)).encode()
    for secret in (password, basic, query_key):
        assert secret.encode() not in stored, secret
    assert b"[redacted]" in stored and "api_key=[redacted]&v=1" in provenance


def test_redact_url_and_the_secrets_a_url_carries() -> None:
    url = "https://tok%40en:p%2Fss@api.example/v1?api-version=2024&key=k%2B1&sig=abc+d#frag"
    assert redact_url(url) == "https://api.example/v1?api-version=2024&key=[redacted]&sig=[redacted]#frag"
    assert redact_url("https://api.example/v1?api-version=2024") == "https://api.example/v1?api-version=2024"
    basic = base64.b64encode(b"tok@en:p/ss").decode()
    assert set(url_secrets(url)) == {"p%2Fss", "p/ss", basic, "k%2B1", "k+1", "abc+d", "abc d"}
    token_only = url_secrets("https://ghp_0123456789abcdef@host/v1")  # a token as the user name
    assert set(token_only) == {"ghp_0123456789abcdef", base64.b64encode(b"ghp_0123456789abcdef:").decode()}
    assert "admin" not in url_secrets("https://admin@host/v1")  # a short name alone is not taken for a token
