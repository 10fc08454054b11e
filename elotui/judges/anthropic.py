"""Anthropic Messages API: `x-api-key` and `anthropic-version` headers, the system prompt as a top-level field.

With `json_mode`, the verdict is requested through a forced tool call whose input schema is the verdict
object (Anthropic's long-standing way to get schema-shaped output); the tool input is the reply text."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from elotui.judges.live import LiveJudge, ReplyShapeError, first_text, int_or_none, object_or_empty
from elotui.judges.parse import VERDICT_SCHEMA

ANTHROPIC_VERSION = "2023-06-01"
VERDICT_TOOL = "record_verdict"


class AnthropicJudge(LiveJudge):
    default_base_url: ClassVar[str] = "https://api.anthropic.com"
    key_required: ClassVar[bool] = True

    def path(self) -> str:
        return "/messages" if self.base_url.endswith("/v1") else "/v1/messages"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}

    def payload(self, system: str, user: str, *, verdict: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "temperature": self.config.temperature,
            "messages": [{"role": "user", "content": user}],
        }
        if system:
            body["system"] = system
        if verdict and self.config.json_mode:
            body["tools"] = [
                {
                    "name": VERDICT_TOOL,
                    "description": "Record your verdict: your reasoning first, then which response is better.",
                    "input_schema": VERDICT_SCHEMA,
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": VERDICT_TOOL}
        return body

    def read_reply(self, data: Any) -> tuple[str, int | None, int | None]:
        if not isinstance(data, dict):
            raise ReplyShapeError("the reply is not a JSON object")
        content = data.get("content")
        if not isinstance(content, list):
            raise ReplyShapeError("no `content` in the reply")
        usage = object_or_empty(data.get("usage"))
        tokens = int_or_none(usage.get("input_tokens")), int_or_none(usage.get("output_tokens"))
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and isinstance(block.get("input"), dict)
            ):
                return json.dumps(block["input"], ensure_ascii=False), *tokens
        return first_text(
            [b for b in content if isinstance(b, dict) and b.get("type", "text") == "text"]
        ), *tokens
