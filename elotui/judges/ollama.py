"""Ollama's native chat API (`/api/chat`, no key, `stream: false`); JSON mode passes the verdict JSON
schema as `format`."""

from __future__ import annotations

from typing import Any, ClassVar

from elotui.judges.live import LiveJudge, ReplyShapeError, chat_messages, int_or_none
from elotui.judges.parse import verdict_schema


class OllamaJudge(LiveJudge):
    default_base_url: ClassVar[str] = "http://127.0.0.1:11434"
    key_required: ClassVar[bool] = False

    def path(self) -> str:
        return "/api/chat"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {key}"}

    def payload(self, system: str, user: str, *, verdict: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": chat_messages(system, user),
            "stream": False,
            "options": {"temperature": self.config.temperature, "num_predict": self.config.max_tokens},
        }
        if self.config.seed is not None:
            body["options"]["seed"] = self.config.seed
        if verdict and self.config.json_mode:
            body["format"] = verdict_schema(self.scale)
        return body

    def read_reply(self, data: Any) -> tuple[str, int | None, int | None]:
        if not isinstance(data, dict):
            raise ReplyShapeError("the reply is not a JSON object")
        message = data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise ReplyShapeError("no `message.content` in the reply")
        return (
            message["content"],
            int_or_none(data.get("prompt_eval_count")),
            int_or_none(data.get("eval_count")),
        )
