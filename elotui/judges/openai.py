"""OpenAI Chat Completions (`openai`) and the same wire format at any base_url (`openai-compatible`:
Groq, OpenRouter, vLLM, llama.cpp server, LM Studio, Ollama's /v1).

Bodies follow `openai.types.chat.CompletionCreateParamsNonStreaming` (openai SDK 3.57; tests validate every body
against it): JSON-schema `response_format` (strict) for `openai`, `json_object` for compatible servers; `seed`
when the file sets it (OpenAI and most compatible servers take it; replies stay best-effort deterministic);
`effort` as `reasoning_effort` for reasoning models (`openai` only)."""

from __future__ import annotations

from typing import Any, ClassVar

from elotui.judges.live import LiveJudge, ReplyShapeError, chat_messages, int_or_none, object_or_empty
from elotui.judges.parse import verdict_schema


class OpenAIJudge(LiveJudge):
    """`openai`: https://api.openai.com/v1, Bearer key, structured output by JSON schema."""

    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    key_required: ClassVar[bool] = True

    def path(self) -> str:
        return "/chat/completions"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {key}"}

    def _limit_field(self) -> str:
        return "max_completion_tokens"

    def _response_format(self) -> dict[str, Any]:
        return {
            "type": "json_schema",
            "json_schema": {"name": "verdict", "strict": True, "schema": verdict_schema(self.scale)},
        }

    def payload(self, system: str, user: str, *, verdict: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": chat_messages(system, user),
            "temperature": self.config.temperature,
            self._limit_field(): self.config.max_tokens,
        }
        if verdict and self.config.json_mode:
            body["response_format"] = self._response_format()
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        if self.config.effort is not None:
            body["reasoning_effort"] = self.config.effort
        return body

    def read_reply(self, data: Any) -> tuple[str, int | None, int | None]:
        if not isinstance(data, dict):
            raise ReplyShapeError("the reply is not a JSON object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ReplyShapeError("no `choices` in the reply")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise ReplyShapeError("no `message` in the first choice")
        content = message.get("content")
        if not isinstance(content, str):
            refusal = message.get("refusal")
            raise ReplyShapeError(
                f"the model refused: {refusal}" if isinstance(refusal, str) else "no text content"
            )
        usage = object_or_empty(data.get("usage"))
        return content, int_or_none(usage.get("prompt_tokens")), int_or_none(usage.get("completion_tokens"))


class OpenAICompatibleJudge(OpenAIJudge):
    """`openai-compatible`: the Chat Completions wire format at `base_url`; the key is optional.

    JSON mode asks for `{"type": "json_object"}`, which more servers accept than a JSON schema."""

    default_base_url: ClassVar[str] = ""
    key_required: ClassVar[bool] = False

    def _limit_field(self) -> str:
        return "max_tokens"

    def _response_format(self) -> dict[str, Any]:
        return {"type": "json_object"}
