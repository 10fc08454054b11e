"""Google Gemini `generateContent`: the key travels in the `x-goog-api-key` header, never in the URL.

JSON mode sets `generationConfig.responseMimeType = application/json` with a `responseSchema`. Bodies are the
ones the google-genai SDK (3.6) builds for the same settings (tests build both and compare them); `seed` goes in
`generationConfig.seed`."""

from __future__ import annotations

from typing import Any, ClassVar

from elotui.judges.live import LiveJudge, ReplyShapeError, first_text, int_or_none, object_or_empty
from elotui.judges.parse import answers


def gemini_verdict_schema(scale: str = "binary") -> dict[str, Any]:
    """The verdict's `responseSchema` on a scale (elotui.judges.parse.answers), in Gemini's schema dialect."""
    return {
        "type": "OBJECT",
        "properties": {
            "reasoning": {"type": "STRING"},
            "better": {"type": "STRING", "enum": list(answers(scale))},
        },
        "required": ["reasoning", "better"],
        # as the google-genai SDK's own request builder writes it
        "property_ordering": ["reasoning", "better"],
    }


GEMINI_VERDICT_SCHEMA: dict[str, Any] = gemini_verdict_schema("binary")


class GeminiJudge(LiveJudge):
    default_base_url: ClassVar[str] = "https://generativelanguage.googleapis.com/v1beta"
    key_required: ClassVar[bool] = True

    def path(self) -> str:
        model = (self.config.model or "").removeprefix("models/")
        return f"/models/{model}:generateContent"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def payload(self, system: str, user: str, *, verdict: bool) -> dict[str, Any]:
        generation: dict[str, Any] = {
            "temperature": self.config.temperature,
            "maxOutputTokens": self.config.max_tokens,
        }
        if self.config.seed is not None:
            generation["seed"] = self.config.seed
        if verdict and self.config.json_mode:
            generation["responseMimeType"] = "application/json"
            generation["responseSchema"] = gemini_verdict_schema(self.scale)
        body: dict[str, Any] = {
            "contents": [{"role": "user", "parts": [{"text": user}]}],
            "generationConfig": generation,
        }
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}], "role": "user"}  # the SDK's form
        return body

    def read_reply(self, data: Any) -> tuple[str, int | None, int | None]:
        if not isinstance(data, dict):
            raise ReplyShapeError("the reply is not a JSON object")
        usage = object_or_empty(data.get("usageMetadata"))
        tokens = int_or_none(usage.get("promptTokenCount")), int_or_none(usage.get("candidatesTokenCount"))
        candidates = data.get("candidates")
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            feedback = data.get("promptFeedback")
            block = feedback.get("blockReason") if isinstance(feedback, dict) else None
            raise ReplyShapeError(
                f"the prompt was blocked: {block}" if block else "no candidates in the reply"
            )
        content = candidates[0].get("content")
        if not isinstance(content, dict):
            reason = candidates[0].get("finishReason")
            raise ReplyShapeError(
                f"no content (finishReason {reason})" if reason else "no content in the candidate"
            )
        return first_text(content.get("parts")), *tokens
