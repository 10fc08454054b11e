"""Each provider's wire format against the loopback server: request shape, auth headers, reply reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.judges import build_judge
from elotui.judges.anthropic import ANTHROPIC_VERSION, AnthropicJudge
from elotui.judges.base import Judge
from elotui.judges.gemini import GeminiJudge
from elotui.judges.ollama import OllamaJudge
from elotui.judges.openai import OpenAICompatibleJudge, OpenAIJudge
from elotui.judges.parse import VERDICT_SCHEMA
from elotui.tournament.model import JudgeConfig
from tests.judges.conftest import USER, request
from tests.servers.fake_llm import FakeLLMServer, Text, Verdict

PROVIDERS = ["openai", "openai-compatible", "anthropic", "gemini", "ollama"]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "shape", ["better", "winner", "preferred", "preferred_profile", "prose", "fence", "upper"]
)
async def test_every_provider_reads_every_verdict_shape(
    make_judge, fake_llm: FakeLLMServer, provider: str, shape: str
) -> None:
    judge, _ = make_judge(provider)
    fake_llm.script(Verdict("B", "B explains more.", shape), Verdict("A", "A is right.", shape))  # type: ignore[arg-type]
    r1 = await judge.judge(request("k1"))
    r2 = await judge.judge(request("k2"))
    assert (r1.status, r1.winner, r2.status, r2.winner) == ("ok", "second", "ok", "first")
    assert len(fake_llm.requests) == 2 and fake_llm.requests[0].wire == (
        "openai" if "openai" in provider else provider
    )
    await judge.aclose()


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_tokens_and_cost(make_judge, fake_llm: FakeLLMServer, provider: str) -> None:
    judge, _ = make_judge(provider, price_per_million_input=2.0, price_per_million_output=10.0)
    fake_llm.script(Verdict("A", input_tokens=1200, output_tokens=300))
    reply = await judge.judge(request())
    assert (reply.input_tokens, reply.output_tokens) == (1200, 300)
    assert reply.cost == pytest.approx(1200 * 2.0 / 1e6 + 300 * 10.0 / 1e6)
    await judge.aclose()


async def test_no_price_means_no_cost(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge("openai")
    reply = await judge.judge(request())
    assert reply.cost is None and reply.input_tokens is not None
    await judge.aclose()


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_complete_returns_plain_text(make_judge, fake_llm: FakeLLMServer, provider: str) -> None:
    judge, _ = make_judge(provider)
    fake_llm.script(Text("A generated answer."))
    done = await judge.complete("Be brief.", "Say something.")
    assert (done.status, done.text) == ("ok", "A generated answer.")
    seen = fake_llm.requests[0]
    assert seen.system == "Be brief." and seen.user == "Say something."
    assert not seen.wants_verdict  # a plain completion asks for no JSON
    await judge.aclose()


async def test_openai_request(make_judge, fake_llm: FakeLLMServer, fake_key: str) -> None:
    judge, _ = make_judge("openai", temperature=0.3, max_tokens=77)
    await judge.judge(request())
    seen = fake_llm.requests[0]
    assert seen.path == "/v1/chat/completions" and seen.headers["authorization"] == f"Bearer {fake_key}"
    body = seen.json
    assert (
        body["model"] == "fake-model" and body["temperature"] == 0.3 and body["max_completion_tokens"] == 77
    )
    assert body["messages"] == [
        {"role": "system", "content": "You are a fair judge."},
        {"role": "user", "content": USER},
    ]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == VERDICT_SCHEMA
    await judge.aclose()


async def test_openai_without_json_mode_sends_no_response_format(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge("openai", json_mode=False)
    await judge.judge(request())
    assert "response_format" not in fake_llm.requests[0].json
    await judge.aclose()


async def test_openai_compatible_key_is_optional(fake_llm: FakeLLMServer) -> None:
    config = JudgeConfig(
        id="local", provider="openai-compatible", model="llama", base_url=fake_llm.base_url("openai")
    )
    judge = build_judge(config, judge_id="local", base_dir=Path("."))
    reply = await judge.judge(request())
    seen = fake_llm.requests[0]
    assert reply.status == "ok" and "authorization" not in seen.headers
    assert seen.json["response_format"] == {"type": "json_object"} and seen.json["max_tokens"] == 1024
    await judge.aclose()


async def test_anthropic_request(make_judge, fake_llm: FakeLLMServer, fake_key: str) -> None:
    judge, _ = make_judge("anthropic")
    reply = await judge.judge(request())
    seen = fake_llm.requests[0]
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == fake_key and seen.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in seen.headers
    body = seen.json
    # top-level, not a message; one text block with a prompt-cache breakpoint (the same for every call)
    assert body["system"] == [
        {"type": "text", "text": "You are a fair judge.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [{"role": "user", "content": USER}]
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": VERDICT_SCHEMA}}
    assert "temperature" not in body and "tools" not in body
    assert reply.status == "ok" and reply.winner == "second"  # the JSON object in the text block
    await judge.aclose()


async def test_gemini_key_is_in_a_header_never_in_the_url(
    make_judge, fake_llm: FakeLLMServer, fake_key: str
) -> None:
    judge, _ = make_judge("gemini", model="models/gemini-2.0-flash", max_tokens=99)
    reply = await judge.judge(request())
    seen = fake_llm.requests[0]
    assert reply.status == "ok"
    assert seen.path == "/v1beta/models/gemini-2.0-flash:generateContent"
    assert fake_key not in seen.path and "key=" not in seen.path
    assert seen.headers["x-goog-api-key"] == fake_key
    body = seen.json
    assert body["systemInstruction"] == {"parts": [{"text": "You are a fair judge."}], "role": "user"}
    assert body["contents"] == [{"role": "user", "parts": [{"text": USER}]}]
    gen = body["generationConfig"]
    assert gen["responseMimeType"] == "application/json" and gen["maxOutputTokens"] == 99
    assert gen["responseSchema"]["properties"]["better"]["enum"] == ["A", "B", "tie"]
    await judge.aclose()


async def test_ollama_request(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge("ollama", max_tokens=50)
    await judge.judge(request())
    seen = fake_llm.requests[0]
    body = seen.json
    assert seen.path == "/api/chat" and body["stream"] is False
    assert body["format"] == VERDICT_SCHEMA and body["options"] == {"temperature": 0.0, "num_predict": 50}
    await judge.aclose()


@pytest.mark.parametrize(
    ("provider", "cls", "url"),
    [
        ("openai", OpenAIJudge, "https://api.openai.com/v1"),
        ("anthropic", AnthropicJudge, "https://api.anthropic.com"),
        ("gemini", GeminiJudge, "https://generativelanguage.googleapis.com/v1beta"),
        ("ollama", OllamaJudge, "http://127.0.0.1:11434"),
        ("openai-compatible", OpenAICompatibleJudge, "http://host:8000/v1"),
    ],
)
def test_build_judge_and_identity(provider: str, cls: type, url: str, fake_key: str) -> None:
    base = {"base_url": url} if provider == "openai-compatible" else {}
    config = JudgeConfig(id="j", provider=provider, model="m", api_key_env="ELOTUI_FAKE_KEY", **base)
    judge = build_judge(config, judge_id="j", base_dir=Path("."))
    assert isinstance(judge, cls) and isinstance(judge, Judge) and judge.kind == "live"
    ident = judge.identity()
    expected: dict[str, object] = {
        "provider": provider,
        "model": "m",
        "temperature": 0.0,
        "max_tokens": 1024,
        "base_url": url,
        "json_mode": True,
    }
    if (
        provider == "anthropic"
    ):  # the Messages API takes no temperature: it is neither sent nor in the cache key
        del expected["temperature"]
    assert (
        ident == expected
    )  # the same keys as before for the other providers: their cached calls stay cached
    assert fake_key not in repr(ident) and "ELOTUI_FAKE_KEY" not in repr(ident)
