"""The committed sample data is exactly what scripts/build_samples.py produces, and stays small."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.samples.sample_paths import SAMPLES


def _assert_same(outputs: list, root: Path) -> None:
    for out in outputs:
        assert out.files, out.name
        for rel, content in out.files.items():
            committed = root / out.name / rel
            assert committed.exists(), f"{committed} is produced by the build script but not committed"
            assert committed.read_bytes() == content, (
                f"{committed} differs from the build (run scripts/build_samples.py)"
            )


def test_replay_samples_equal_the_build(build_script: ModuleType, shared_data: Path) -> None:
    _assert_same(build_script.build_all(shared_data, ["vicuna80", "guanaco", "llmbar"]), SAMPLES)


def test_simulated_arena_equals_the_build(build_script: ModuleType) -> None:
    _assert_same([build_script.build_simulated_arena()], SAMPLES)


def test_build_is_deterministic(build_script: ModuleType) -> None:
    a = build_script.build_simulated_arena().files
    b = build_script.build_simulated_arena().files
    assert a == b


def test_check_mode_reports_a_difference(build_script: ModuleType, tmp_path: Path, capsys) -> None:
    assert build_script.main(["--only", "simulated_arena", "--out", str(tmp_path)]) == 0
    assert build_script.main(["--only", "simulated_arena", "--out", str(tmp_path), "--check"]) == 0
    target = tmp_path / "simulated_arena" / "tournament.toml"
    target.write_text(target.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert build_script.main(["--only", "simulated_arena", "--out", str(tmp_path), "--check"]) == 1
    assert "differs from the build" in capsys.readouterr().err


def test_toml_text_round_trips_awkward_strings(build_script: ModuleType) -> None:
    import tomllib

    samples = [
        "plain",
        "two\nlines",
        "ends with quote'\n",
        "has ''' inside\n",
        'quotes """ and \\ back\nx',
        "control \x07 char\nx",
        "tab\there\nand unicode é ✓\n",
        "\nleading newline",
        "trailing\n\n",
    ]
    for s in samples:
        assert tomllib.loads(f"v = {build_script.toml_text(s)}\n")["v"] == s, repr(s)


def test_samples_are_compact() -> None:
    total = sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file())
    assert total < 5_000_000, f"sample_tournaments/ is {total:,} bytes"
    for name in ("vicuna80", "guanaco"):
        assert (SAMPLES / name / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_every_sample_has_a_readme() -> None:
    for name in ("vicuna80", "guanaco", "competency_profiles", "simulated_arena"):
        assert (SAMPLES / name / "README.md").stat().st_size > 200, name
    assert "35fb99e5d5c7a2f3535811f1edbe417da7563957" in (SAMPLES / "README.md").read_text(encoding="utf-8")
