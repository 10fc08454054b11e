"""elotui's wire formats, proven with the official SDKs (test dependencies: openai, anthropic, google-genai,
ollama) — the real clients nobody here wrote.

- Requests: every body elotui builds, for every provider and option, validates against the SDK's request type
  (`sdk_types.problems`: unknown or misspelled keys fail), or, for Gemini, equals the body the SDK's own request
  builder writes for the same settings; and the real clients accept each body as keyword arguments.
- Replies: every reply the fake server sends — success, each error status in each provider's own error shape —
  validates against the SDK's response and error models, and the real clients parse them.
- elotui's message for each error status names the status and the provider's own error kind and message.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from elotui.judges import build_judge
from elotui.judges.parse import parse_graded_verdict
from elotui.tournament.model import JudgeConfig
from tests.judges.conftest import USER, request
from tests.judges.sdk_types import problems
from tests.servers.fake_llm import ApiError, Echo, FakeLLMServer, Text, Verdict, rate_limited

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")
ollama = pytest.importorskip("ollama")

from anthropic.types import Message  # noqa: E402
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming  # noqa: E402
from anthropic.types.shared import ErrorResponse  # noqa: E402
from google.genai import _api_client, _common, errors, models  # noqa: E402
from google.genai import types as gtypes  # noqa: E402
from openai.types.chat import ChatCompletion  # noqa: E402
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming  # noqa: E402
from openai.types.shared import ErrorObject  # noqa: E402

SYSTEMS = ("You are a fair judge.", "")
ERROR_CODES = (400, 401, 403, 404, 429, 500, 529)
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "openai": [
        {},
        {"json_mode": False},
        {"seed": 7},
        {"effort": "high"},
        {"temperature": 0.7, "max_tokens": 50},
    ],
    "openai-compatible": [{}, {"json_mode": False}, {"seed": 7}, {"temperature": 1.0}],
    "anthropic": [{}, {"json_mode": False}, {"effort": "low"}, {"cache_prompt": False}, {"max_tokens": 50}],
    "gemini": [{}, {"json_mode": False}, {"seed": 3}, {"temperature": 0.4, "max_tokens": 99}],
    "ollama": [{}, {"json_mode": False}, {"seed": 3}, {"temperature": 0.2}],
}


GRADED = {
    "A>>B": ("first", 2),
    "A>B": ("first", 1),
    "A=B": ("tie", None),
    "B>A": ("second", 1),
    "B>>A": ("second", 2),
}
SCALES = ("binary", "graded")  # `[judge_prompt] scale`: the verdict's `better` takes 3 or 5 values
ENUMS = {"binary": ["A", "B", "tie"], "graded": ["A>>B", "A>B", "A=B", "B>A", "B>>A"]}


def judge_for(provider: str, scale: str = "binary", **fields: Any) -> Any:
    base = {"base_url": "http://127.0.0.1:9/v1"} if provider == "openai-compatible" else {}
    config = JudgeConfig(id="j", provider=provider, model="m-1", **base, **fields)
    return build_judge(config, judge_id="j", base_dir=Path("."), scale=scale)  # type: ignore[arg-type]


def bodies(provider: str, scale: str = "binary") -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(options, body) for every option set × verdict or plain completion × with or without a system prompt."""
    out = []
    for options, verdict, system in itertools.product(OPTIONS[provider], (True, False), SYSTEMS):
        judge = judge_for(provider, scale, **options)
        out.append(
            (
                {**options, "verdict": verdict, "system": bool(system), "scale": scale},
                judge.payload(system, USER, verdict=verdict),
            )
        )
    return out


def schema_enum(provider: str, body: dict[str, Any]) -> list[str] | None:
    """The values the body's structured output allows for `better` (None: no schema sent)."""
    if provider == "openai" and "response_format" in body:
        return body["response_format"]["json_schema"]["schema"]["properties"]["better"]["enum"]  # type: ignore[no-any-return]
    if provider == "anthropic" and "format" in body.get("output_config", {}):
        return body["output_config"]["format"]["schema"]["properties"]["better"]["enum"]  # type: ignore[no-any-return]
    if provider == "gemini" and "responseSchema" in body["generationConfig"]:
        return body["generationConfig"]["responseSchema"]["properties"]["better"]["enum"]  # type: ignore[no-any-return]
    if provider == "ollama" and "format" in body:
        return body["format"]["properties"]["better"]["enum"]  # type: ignore[no-any-return]
    return None


# --- requests ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("provider", ["openai", "openai-compatible"])
def test_openai_bodies_fit_the_sdk_request_type(provider: str, scale: str) -> None:
    for options, body in bodies(provider, scale):
        assert problems(body, CompletionCreateParamsNonStreaming) == [], options
        assert schema_enum(provider, body) in (None, ENUMS[scale]), options


@pytest.mark.parametrize("scale", SCALES)
def test_anthropic_bodies_fit_the_sdk_request_type(scale: str) -> None:
    for options, body in bodies("anthropic", scale):
        assert problems(body, MessageCreateParamsNonStreaming) == [], options
        assert "temperature" not in body
        assert schema_enum("anthropic", body) in (None, ENUMS[scale]), options


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "ollama"])
def test_a_graded_verdict_body_asks_for_the_five_grades(provider: str) -> None:
    """(So the parametrised checks above can fail: the graded body's schema is not the binary one.)"""
    for scale in SCALES:
        body = judge_for(provider, scale).payload("s", USER, verdict=True)
        assert schema_enum(provider, body) == ENUMS[scale]


def test_the_checker_rejects_what_the_sdk_would() -> None:
    """A misspelled key, a dropped parameter, a wrong type, a bad literal: each is reported (so the tests above
    can fail)."""
    good = judge_for("anthropic").payload("s", USER, verdict=True)
    assert problems(good, MessageCreateParamsNonStreaming) == []
    assert problems({**good, "temperature": 0.0}, MessageCreateParamsNonStreaming)  # the API dropped it
    assert problems({**good, "max_token": 5}, MessageCreateParamsNonStreaming)
    assert problems({k: v for k, v in good.items() if k != "max_tokens"}, MessageCreateParamsNonStreaming)
    bad_format = {**good, "output_config": {"format": {"type": "json", "schema": {}}}}
    assert problems(bad_format, MessageCreateParamsNonStreaming)
    oa = judge_for("openai").payload("s", USER, verdict=True)
    assert problems(
        {**oa, "response_format": {"type": "json_schema", "schema": {}}}, CompletionCreateParamsNonStreaming
    )
    assert problems({**oa, "temperature": "0"}, CompletionCreateParamsNonStreaming)


def _gemini_sdk_body(judge: Any, system: str, verdict: bool, scale: str = "binary") -> dict[str, Any]:
    """The body google-genai's own request builder writes for the same model, settings and schema."""
    c = judge.config
    schema = gtypes.Schema(
        type="OBJECT",
        properties={
            "reasoning": gtypes.Schema(type="STRING"),
            "better": gtypes.Schema(type="STRING", enum=ENUMS[scale]),
        },
        required=["reasoning", "better"],
        property_ordering=["reasoning", "better"],
    )
    json_mode = verdict and c.json_mode
    config = gtypes.GenerateContentConfig(
        temperature=c.temperature,
        max_output_tokens=c.max_tokens,
        seed=c.seed,
        response_mime_type="application/json" if json_mode else None,
        response_schema=schema if json_mode else None,
        system_instruction=system or None,
    )
    api = _api_client.BaseApiClient(api_key="unused")
    contents = [gtypes.Content(role="user", parts=[gtypes.Part(text=USER)])]
    built = models._GenerateContentParameters_to_mldev(
        api, {"model": c.model, "contents": contents, "config": config}
    )
    built.pop("_url", None)
    return _common.encode_unserializable_types(_common.convert_to_dict(built))  # type: ignore[no-any-return]


@pytest.mark.parametrize("scale", SCALES)
def test_gemini_bodies_are_the_sdks_own(scale: str) -> None:
    for options, verdict, system in itertools.product(OPTIONS["gemini"], (True, False), SYSTEMS):
        judge = judge_for("gemini", scale, **options)
        want = _gemini_sdk_body(judge, system, verdict, scale)
        assert judge.payload(system, USER, verdict=verdict) == want, options


@pytest.mark.parametrize("scale", SCALES)
def test_ollama_bodies_fit_the_client_request_model(scale: str) -> None:
    from ollama._types import ChatRequest, Options

    for options, body in bodies("ollama", scale):
        assert set(body) <= set(ChatRequest.model_fields), options
        assert set(body["options"]) <= set(Options.model_fields), options
        ChatRequest.model_validate(body)


# --- the real clients against the fake server -------------------------------------------------------------------


async def test_the_openai_client_sends_elotuis_body_and_parses_the_reply(fake_llm: FakeLLMServer) -> None:
    client = openai.AsyncOpenAI(base_url=fake_llm.base_url("openai"), api_key="k", max_retries=0)
    body = judge_for("openai", seed=1, effort="low").payload("sys", USER, verdict=True)
    completion = await client.chat.completions.create(**body)
    assert isinstance(completion, ChatCompletion) and json.loads(completion.choices[0].message.content or "")
    assert fake_llm.requests[-1].json == body  # what the SDK sent is exactly elotui's body
    fake_llm.script(ApiError(429, "slow down"))
    with pytest.raises(openai.RateLimitError) as caught:
        await client.chat.completions.create(**body)
    assert caught.value.body == {
        "message": "slow down",
        "type": "rate_limit_exceeded",
        "param": None,
        "code": None,
    }
    await client.close()


async def test_the_anthropic_client_sends_elotuis_body_and_parses_the_reply(fake_llm: FakeLLMServer) -> None:
    client = anthropic.AsyncAnthropic(
        base_url=fake_llm.base_url("anthropic").removesuffix("/v1"), api_key="k", max_retries=0
    )
    body = judge_for("anthropic", effort="medium").payload("sys", USER, verdict=True)
    message = await client.messages.create(**body)
    assert isinstance(message, Message) and message.stop_reason == "end_turn"
    assert json.loads(message.content[0].text)["better"] in ("A", "B", "tie")  # type: ignore[union-attr]
    assert fake_llm.requests[-1].json == body
    fake_llm.script(ApiError(529, "Overloaded"))
    with pytest.raises(anthropic.APIStatusError) as caught:
        await client.messages.create(**body)
    assert caught.value.status_code == 529 and caught.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]
    with pytest.raises(TypeError):  # what the issue found: the SDK refuses a body carrying `temperature`
        await client.messages.create(**body, temperature=0.0)
    await client.close()


async def test_the_clients_send_elotuis_graded_bodies_and_parse_the_graded_reply(
    fake_llm: FakeLLMServer,
) -> None:
    oa = openai.AsyncOpenAI(base_url=fake_llm.base_url("openai"), api_key="k", max_retries=0)
    body = judge_for("openai", "graded").payload("sys", USER, verdict=True)
    completion = await oa.chat.completions.create(**body)
    assert json.loads(completion.choices[0].message.content or "")["better"] == "B>>A"
    assert fake_llm.requests[-1].json == body
    await oa.close()
    an = anthropic.AsyncAnthropic(
        base_url=fake_llm.base_url("anthropic").removesuffix("/v1"), api_key="k", max_retries=0
    )
    body = judge_for("anthropic", "graded").payload("sys", USER, verdict=True)
    fake_llm.script(Verdict("A>B"))
    message = await an.messages.create(**body)
    assert json.loads(message.content[0].text)["better"] == "A>B"  # type: ignore[union-attr]
    assert fake_llm.requests[-1].json == body
    await an.close()
    client = genai.Client(
        api_key="k", http_options=gtypes.HttpOptions(base_url=fake_llm.url, api_version="v1beta")
    )
    schema = gtypes.Schema(
        type="OBJECT",
        properties={
            "reasoning": gtypes.Schema(type="STRING"),
            "better": gtypes.Schema(type="STRING", enum=ENUMS["graded"]),
        },
        required=["reasoning", "better"],
    )
    config = gtypes.GenerateContentConfig(
        response_mime_type="application/json", response_schema=schema, system_instruction="sys"
    )
    fake_llm.script(Verdict("A=B"))
    reply = await client.aio.models.generate_content(model="m-1", contents=USER, config=config)
    assert json.loads(reply.text or "")["better"] == "A=B"


async def test_the_gemini_client_parses_the_fake_replies(fake_llm: FakeLLMServer) -> None:
    client = genai.Client(
        api_key="k", http_options=gtypes.HttpOptions(base_url=fake_llm.url, api_version="v1beta")
    )
    config = gtypes.GenerateContentConfig(response_mime_type="application/json", system_instruction="sys")
    reply = await client.aio.models.generate_content(model="m-1", contents=USER, config=config)
    assert json.loads(reply.text or "")["better"] in ("A", "B", "tie")
    assert reply.usage_metadata is not None and reply.usage_metadata.prompt_token_count
    fake_llm.script(ApiError(429, "quota"))
    with pytest.raises(errors.ClientError) as caught:
        await client.aio.models.generate_content(model="m-1", contents=USER)
    assert (
        caught.value.code == 429
        and caught.value.status == "RESOURCE_EXHAUSTED"
        and caught.value.message == "quota"
    )


# --- every fake reply against the SDK models -----------------------------------------------------------------------

WIRES = {
    "openai": "/chat/completions",
    "anthropic": "/messages",
    "gemini": "/models/m-1:generateContent",
    "ollama": "/api/chat",
}


def _post(server: FakeLLMServer, wire: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.base_url(wire) + WIRES[wire], json=body, timeout=5)


def _request_body(wire: str, scale: str = "binary") -> dict[str, Any]:
    provider = {"openai": "openai", "anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama"}[wire]
    return judge_for(provider, scale).payload("sys", request().user, verdict=True)


def _valid_reply(wire: str, data: dict[str, Any]) -> None:
    if wire == "openai":
        ChatCompletion.model_validate(data, strict=False)
    elif wire == "anthropic":
        Message.model_validate(data)
    elif wire == "gemini":
        gtypes.GenerateContentResponse.model_validate(data)
    else:
        ollama.ChatResponse.model_validate(data)


def _valid_error(wire: str, code: int, data: dict[str, Any]) -> str:
    """Validate an error body against the SDK's error model; returns the provider's message."""
    if wire == "openai":
        return ErrorObject.model_validate(data["error"]).message
    if wire == "anthropic":
        return ErrorResponse.model_validate(data).error.message
    if wire == "gemini":
        err = errors.APIError(code, data)
        assert err.status and err.code == code
        return str(err.message)
    assert isinstance(data["error"], str)
    return data["error"]


@pytest.mark.parametrize("wire", list(WIRES))
def test_every_graded_fake_reply_validates_and_reads_back(fake_llm: FakeLLMServer, wire: str) -> None:
    """The fake answers a graded request on the graded scale (by default: the longer response, `>>` when it is
    twice as long); each reply validates against the SDK's model, and elotui's judge reads its grade."""
    body = _request_body(wire, "graded")
    response = _post(fake_llm, wire, body)
    _valid_reply(wire, response.json())
    judge = judge_for(wire, "graded")
    text, _, _ = judge.read_reply(response.json())
    assert json.loads(text)["better"] == "B>>A"  # USER's response B is over twice as long as A
    for grade in ENUMS["graded"]:
        for shape in ("better", "fence", "upper", "prose"):
            fake_llm.script(Verdict(grade, shape=shape))  # type: ignore[arg-type]
            data = _post(fake_llm, wire, body).json()
            _valid_reply(wire, data)
            read = parse_graded_verdict(judge.read_reply(data)[0])
            assert read[0] == "ok" and read[1:3] == GRADED[grade], (grade, shape)


@pytest.mark.parametrize("wire", list(WIRES))
def test_every_fake_reply_validates_against_the_sdk_models(fake_llm: FakeLLMServer, wire: str) -> None:
    body = _request_body(wire)
    for action in (Verdict("A"), Verdict("B", shape="fence"), Text("plain text"), Echo()):
        fake_llm.script(action)
        response = _post(fake_llm, wire, body)
        assert response.status_code == 200
        _valid_reply(wire, response.json())
    for code in ERROR_CODES:
        fake_llm.script(ApiError(code, f"fake {code}"))
        response = _post(fake_llm, wire, body)
        assert response.status_code == code
        assert _valid_error(wire, code, response.json()) == f"fake {code}"
    fake_llm.script(rate_limited(3))
    response = _post(fake_llm, wire, body)
    assert response.headers["retry-after"] == "3"
    _valid_error(wire, 429, response.json())


# --- elotui's message for each error ---------------------------------------------------------------------------------

KINDS = {
    "openai": {400: "invalid_request_error", 404: "invalid_request_error", 500: "server_error"},
    "anthropic": {
        400: "invalid_request_error",
        404: "not_found_error",
        500: "api_error",
        529: "overloaded_error",
    },
    "gemini": {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 500: "INTERNAL", 429: "RESOURCE_EXHAUSTED"},
}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
@pytest.mark.parametrize("code", ERROR_CODES)
async def test_elotui_says_what_each_error_was(
    make_judge, fake_llm: FakeLLMServer, fake_key: str, provider: str, code: int
) -> None:
    judge, notices = make_judge(provider, max_retries=1)
    fake_llm.script(
        ApiError(code, f"the {provider} says {code}"), ApiError(code, f"the {provider} says {code}")
    )
    reply = await judge.judge(request())
    error = reply.error or ""
    assert reply.status == "error" and f"HTTP {code}" in error and f"the {provider} says {code}" in error
    kind = KINDS.get(provider, {}).get(code)
    if kind:
        assert kind in error
    retried = code in (429, 500, 529)
    assert len(fake_llm.requests) == (2 if retried else 1) and len(notices) == (1 if retried else 0)
    if code in (401, 403):
        assert "rejected the key from $ELOTUI_FAKE_KEY" in error and fake_key not in error
    await judge.aclose()


def test_an_anthropic_temperature_is_a_validate_error_with_file_and_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from elotui.cli import main

    head = (
        '[tournament]\nname = "t"\n\n[[contestants]]\nid = "a"\n[[contestants]]\nid = "b"\n\n[[prompts]]\nid = "p"\n'
        'text = "Q?"\nresponses = { a = "x", b = "y" }\n\n'
    )
    judges = (
        '[[judges]]\nid = "claude"\nprovider = "anthropic"\nmodel = "claude-x"\ntemperature = 0.2\n\n'
        '[[judges]]\nid = "gpt"\nprovider = "openai"\nmodel = "gpt-x"\ntemperature = 0.2\neffort = "low"\n'
    )
    path = tmp_path / "t.toml"
    path.write_text(head + judges, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    line = (head + judges).splitlines().index("temperature = 0.2") + 1
    assert (
        f"{path.name}:{line}: judges[0].temperature: the Anthropic Messages API takes no `temperature`" in err
    )
    assert "judges[1]" not in err  # OpenAI takes both
    path.write_text(head + judges.replace("temperature = 0.2\n\n", "\n", 1), encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    assert "temperature" not in judge_for("anthropic").payload("s", USER, verdict=True)
