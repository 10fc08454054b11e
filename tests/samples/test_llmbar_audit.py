"""The llmbar sample reproduces LLMBar's published figures exactly (statistics.json of every set × evaluator, strategy
Metrics_Reference, vendored in llmbar_statistics.json): accuracy per seat order (correct_False / correct_True), their
average (invalid verdicts counted wrong), both orders correct, and positional agreement with LLMBar's convention
(`equal`: two invalid verdicts agree). Several of the 52 combinations have invalid verdicts (PaLM2 most)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from elotui.cli import main
from tests.samples.sample_paths import SAMPLES

TOURNAMENT = SAMPLES / "llmbar" / "tournament.toml"
FIGURES = json.loads((Path(__file__).parent / "llmbar_statistics.json").read_text(encoding="utf-8"))[
    "figures"
]


def _fraction(text: str) -> tuple[int, int]:
    m = re.match(r"(\d+) / (\d+) = ", text)
    assert m, text
    return int(m.group(1)), int(m.group(2))


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    store = tmp_path_factory.mktemp("llmbar") / "store.sqlite"
    assert main(["run", str(TOURNAMENT), "--headless", "--no-delay", "--store", str(store)]) == 0
    out = tmp_path_factory.mktemp("llmbar-out") / "diagnose.json"
    assert main(["diagnose", str(TOURNAMENT), "--store", str(store), "--format", "json", "-o", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))["gold"]  # type: ignore[no-any-return]


def test_the_sample_reproduces_every_published_llmbar_figure(gold: dict[str, object]) -> None:
    by_category = gold["by_category"]  # type: ignore[index]
    with_invalid = 0
    for f in FIGURES:
        got = by_category[f["set"]][f["judge"].lower()]  # type: ignore[index]
        n = got["units"]
        k_first, total = _fraction(f["correct_False"])
        k_second, _ = _fraction(f["correct_True"])
        assert n == total, f
        assert (
            round(got["accuracy_by_seat"]["first"] * n) == k_first
            and got["accuracy_by_seat"]["first"] == k_first / n
        )
        assert got["accuracy_by_seat"]["second"] == k_second / n
        assert got["accuracy_all"] * 100 == pytest.approx(float(f["correct_average"].rstrip("%")), abs=1e-9)
        assert got["both_correct"] == _fraction(f["correct_both"])[0] / n
        assert got["agreement_llmbar"] == _fraction(f["equal"])[0] / n
        with_invalid += got["valid"] < got["planned"]
    assert len(FIGURES) == 52 and with_invalid >= 3  # LLMEval^2 PaLM2: 18 of 400 verdicts invalid


def test_invalid_verdicts_separate_the_two_accuracies(gold: dict[str, object]) -> None:
    palm = gold["by_category"]["Processed/LLMEval^2"]["palm2"]  # type: ignore[index]
    assert palm["valid"] == 382 and palm["planned"] == 400
    assert palm["accuracy_all"] == 258 / 400 and palm["accuracy_valid"] == 258 / 382
