"""The API key appears in no stored byte: replies (even ones that echo the request headers) and errors are
recorded through the store, and the SQLite files are searched for the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.store import CallRecord, Store
from tests.judges.conftest import request
from tests.servers.fake_llm import Echo, FakeLLMServer, Status, Text

PROVIDERS = ["openai", "anthropic", "gemini"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_key_is_in_no_stored_byte(
    make_judge, fake_llm: FakeLLMServer, fake_key: str, tmp_path: Path, provider: str
) -> None:
    judge, notices = make_judge(provider, max_retries=1)
    fake_llm.script(
        Echo(),  # 200 whose text echoes the headers (the key among them): an invalid verdict
        Echo(500),
        Echo(500),  # errors whose bodies echo the key, twice: fails for good
        Status(401, f'{{"error": {{"message": "bad key {fake_key}"}}}}'),
        Echo(400),
        Text(f'{{"reasoning": "your key is {fake_key}", "better": "A"}}'),
    )
    replies = [await judge.judge(request(f"k{i}")) for i in range(5)]
    fake_llm.script(Echo())
    completion = await judge.complete("s", "u")
    # The key did travel to the server (so this test could fail).
    assert any(fake_key in str(r.headers) for r in fake_llm.requests)
    assert [r.status for r in replies] == ["invalid", "error", "error", "error", "ok"]
    store = Store(tmp_path / "calls.sqlite")
    for i, reply in enumerate(replies):
        store.record_call(
            CallRecord(
                key=f"k{i}",
                kind="verdict",
                status=reply.status,
                judge="j1",
                provider=provider,
                winner=reply.winner,
                reasoning=reply.reasoning,
                raw_reply=reply.raw_reply,
                error=reply.error,
                attempts=reply.attempts,
            )
        )
    store.record_call(
        CallRecord(
            key="gen",
            kind="generation",
            status=completion.status,
            output_text=completion.text,
            error=completion.error,
        )
    )
    texts = [str(r) for r in replies] + [str(completion)] + [str(n) for n in notices]
    assert "[redacted]" in replies[0].raw_reply  # the echo was there and was cut out
    assert all(fake_key not in t for t in texts)
    store.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert fake_key.encode() not in stored
    assert b"[redacted]" in stored  # the echoed replies were stored, with the key cut out
    await judge.aclose()
