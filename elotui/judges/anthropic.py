"""Anthropic Messages API: `x-api-key` and `anthropic-version` headers, the system prompt as a top-level field.

What the body carries follows `anthropic.types.MessageCreateParams` (anthropic SDK 2.14; tests validate every body
against it): no `temperature` (the API no longer takes sampling parameters; a file that sets one is rejected by
`validate`); with `json_mode`, the verdict's JSON schema in `output_config.format` (structured outputs), so the
reply is one text block holding the JSON object; `effort` in `output_config.effort`. The system prompt (the
judge's role and the criterion, the same for every call of a tournament) is sent as a text block with an
ephemeral `cache_control` breakpoint (`cache_prompt = true`, the default), so repeated calls read it from
Anthropic's prompt cache (the API caches prefixes from 1,024 tokens on; shorter ones are simply not cached).

The earlier forced-tool-call path is gone: every current Claude model takes `output_config.format`. A reply that
still carries a `tool_use` block (an older proxy) is read all the same.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from elotui.judges.live import LiveJudge, ReplyShapeError, first_text, int_or_none, object_or_empty
from elotui.judges.parse import verdict_schema

ANTHROPIC_VERSION = "2023-06-01"


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
            "messages": [{"role": "user", "content": user}],
        }
        if system:
            block: dict[str, Any] = {"type": "text", "text": system}
            if self.config.cache_prompt:
                block["cache_control"] = {"type": "ephemeral"}
            body["system"] = [block]
        output: dict[str, Any] = {}
        if verdict and self.config.json_mode:
            output["format"] = {"type": "json_schema", "schema": verdict_schema(self.scale)}
        if self.config.effort is not None:
            output["effort"] = self.config.effort
        if output:
            body["output_config"] = output
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
