"""Every sample validates offline; the one that needs keys says which are missing."""

from __future__ import annotations

import pytest

from elotui.cli import main
from tests.samples.sample_paths import SAMPLE_NAMES, SAMPLES

KEY_VARS = ("GROQ_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY")


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_validates(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(SAMPLES / name / "tournament.toml")]) == 0
    assert ": ok" in capsys.readouterr().out


def test_competency_profiles_warns_about_missing_keys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    assert main(["validate", str(SAMPLES / "competency_profiles" / "tournament.toml")]) == 0
    err = capsys.readouterr().err
    for var in KEY_VARS:
        assert f"{var} is not set" in err


def test_competency_profiles_with_keys_has_no_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for var in KEY_VARS:
        monkeypatch.setenv(var, "test-key")
    assert main(["validate", str(SAMPLES / "competency_profiles" / "tournament.toml")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_competency_profiles_uses_the_three_providers() -> None:
    from elotui.tournament.model import load_tournament

    t = load_tournament(SAMPLES / "competency_profiles" / "tournament.toml")
    by_provider = {(j.provider, j.api_key_env) for j in t.spec.judges}
    assert ("openai-compatible", "GROQ_API_KEY") in by_provider
    assert ("gemini", "GEMINI_API_KEY") in by_provider
    assert ("openai", "OPENAI_API_KEY") in by_provider
    groq = [j for j in t.spec.judges if j.provider == "openai-compatible"]
    assert all(j.base_url == "https://api.groq.com/openai/v1" for j in groq)
    assert 3 <= len(t.contestant_ids) <= 5 and len(t.prompt_ids) >= 3
    for (prompt, contestant), text in t.responses.items():
        assert "Competencies:" in text and text.count("\n- ") >= 3, (prompt, contestant)
