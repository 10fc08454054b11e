"""A small, dated table of well-known models' list prices, for the judges `elotui init` writes: with prices, the
dry run estimates the cost and `--max-cost` means something from the first run. Prices change: the file written
says where they come from and when, and the user's file is what counts."""

from __future__ import annotations

import re

PRICES_AS_OF = "2025-11"  # the providers' published standard-tier prices, USD per million tokens (in, out)
PRICES: dict[tuple[str, str], tuple[float, float]] = {
    ("openai", "gpt-4o"): (2.50, 10.00),
    ("openai", "gpt-4o-mini"): (0.15, 0.60),
    ("openai", "gpt-4.1"): (2.00, 8.00),
    ("openai", "gpt-4.1-mini"): (0.40, 1.60),
    ("openai", "gpt-4.1-nano"): (0.10, 0.40),
    ("openai", "gpt-5"): (1.25, 10.00),
    ("openai", "gpt-5-mini"): (0.25, 2.00),
    ("openai", "gpt-5-nano"): (0.05, 0.40),
    ("openai", "o3"): (2.00, 8.00),
    ("openai", "o3-mini"): (1.10, 4.40),
    ("openai", "o4-mini"): (1.10, 4.40),
    ("anthropic", "claude-3-5-haiku"): (0.80, 4.00),
    ("anthropic", "claude-haiku-4-5"): (1.00, 5.00),
    ("anthropic", "claude-3-7-sonnet"): (3.00, 15.00),
    ("anthropic", "claude-sonnet-4"): (3.00, 15.00),
    ("anthropic", "claude-sonnet-4-5"): (3.00, 15.00),
    ("anthropic", "claude-opus-4"): (15.00, 75.00),
    ("anthropic", "claude-opus-4-1"): (15.00, 75.00),
    ("gemini", "gemini-2.0-flash"): (0.10, 0.40),
    ("gemini", "gemini-2.5-flash"): (0.30, 2.50),
    ("gemini", "gemini-2.5-flash-lite"): (0.10, 0.40),
    ("gemini", "gemini-2.5-pro"): (1.25, 10.00),  # prompts up to 200k tokens
}
# what may follow a known name and still be the same model: a date snapshot or an alias
_SNAPSHOT = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{8}|-latest|-preview(-\d{2}-\d{4})?)?")


def model_price(provider: str, model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens of a well-known model (its dated snapshots too), or None."""
    name = model.strip().lower().removeprefix("models/")
    for (p, known), price in sorted(PRICES.items(), key=lambda item: -len(item[0][1])):
        if p == provider and name.startswith(known) and _SNAPSHOT.fullmatch(name[len(known) :]):
            return price
    return None


def price_lines(provider: str, model: str) -> list[str]:
    """The TOML lines of a judge's prices: from the table, or a TODO where the model is not in it (none for a
    local model)."""
    if provider == "ollama":
        return ["# a local model: no prices, no cost"]
    price = model_price(provider, model)
    if price is None:
        return [
            f"# TODO: {model} is not in elotui's price table ({PRICES_AS_OF}): set its prices (USD per million",
            "# tokens) for the dry run's cost estimate and --max-cost",
            "# price_per_million_input = 0.0",
            "# price_per_million_output = 0.0",
        ]
    pin, pout = price
    return [
        f"# list prices from elotui's price table of {PRICES_AS_OF} (USD per million tokens): check your provider's",
        f"price_per_million_input = {pin:g}",
        f"price_per_million_output = {pout:g}",
    ]
