"""Bad tournament files: every problem names the file, the line and the key; exit code 2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.tournament.model import load_tournament
from tests.foundation.tournament_files import VALID


def write(tmp_path: Path, text: str, *, beta: bool = True) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    if beta:
        (tmp_path / "beta_p1.txt").write_text("Hi there.", encoding="utf-8")
    return path


def validate(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_file_loads_and_resolves_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, VALID)
    t = load_tournament(path)
    assert t.responses[("p1", "beta")] == "Hi there."
    assert t.spec.ranking.threshold == "none"
    code, out, _ = validate(path, capsys)
    assert code == 0
    assert "2 contestants, 1 prompts, 1 judges (simulated), 2 planned judge calls" in out


def test_toml_syntax_error_is_one_line_with_file_line_col(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, VALID.replace('criterion = "helpfulness"', 'criterion = "helpfulness'))
    code, _, err = validate(path, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert re.fullmatch(rf"{re.escape(str(path))}:4:\d+: .+", lines[0])


def test_schema_errors_list_every_problem_with_key_path_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = VALID.replace(
        'provider = "simulated"', 'provider = "simulated"\nmax_concurrency = 0\ntimeout_s = -1'
    )
    path = write(tmp_path, text)
    code, _, err = validate(path, capsys)
    assert code == 2
    assert "2 problem(s)" in err
    assert f"{path}:21: judges[0].max_concurrency: must be ≥ 1" in err
    assert f"{path}:22: judges[0].timeout_s: must be > 0" in err


def test_unknown_key_suggests_the_closest_valid_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, VALID.replace('threshold = "none"', "treshold = 0.5"))
    code, _, err = validate(path, capsys)
    assert code == 2
    assert "ranking.treshold: unknown key 'treshold'; did you mean 'threshold'?" in err


def test_unknown_key_in_array_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, VALID.replace('label = "Beta model"', 'lable = "Beta model"'))
    code, _, err = validate(path, capsys)
    assert code == 2
    assert f"{path}:11: contestants[1].lable: unknown key 'lable'; did you mean 'label'?" in err


def test_bad_threshold_and_enum(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = VALID.replace('threshold = "none"', "threshold = 0.6").replace('"simulated"', '"simulatd"')
    path = write(tmp_path, text)
    code, _, err = validate(path, capsys)
    assert code == 2
    assert 'ranking.threshold: threshold must be one of 1.0, 0.9, 0.75, 0.5 or "none"' in err
    assert "judges[0].provider: must be one of" in err


def test_missing_response_file_names_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, VALID, beta=False)
    code, _, err = validate(path, capsys)
    assert code == 2
    assert f"prompts[0].responses.beta.file: {tmp_path / 'beta_p1.txt'} does not exist" in err
    assert f"{path}:16: prompts[0].responses.beta.file" in err


def test_undeclared_contestant_in_responses_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, VALID.replace('alpha = "Hello!",', 'alpha = "Hello!", gamma = "Yo",'))
    code, _, err = validate(path, capsys)
    assert code == 2
    assert "prompts[0].responses.gamma: contestant 'gamma' is not declared in [[contestants]]" in err


def test_duplicate_ids_and_missing_responses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = VALID.replace('id = "beta"', 'id = "alpha"')
    path = write(tmp_path, text)
    code, _, err = validate(path, capsys)
    assert code == 2
    assert "contestants[1].id: 'alpha' is used twice" in err


def test_required_key_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, VALID.replace('name = "Tiny"', ""))
    code, _, err = validate(path, capsys)
    assert code == 2
    assert "tournament.name: is required" in err


def test_text_or_file_with_wrong_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, VALID.replace('{ file = "beta_p1.txt" }', '{ path = "beta_p1.txt" }'))
    code, _, err = validate(path, capsys)
    assert code == 2
    assert 'prompts[0].responses.beta: expected text or { file = "relative/path" }' in err


def test_unset_api_key_env_warns_at_validate_and_fails_at_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    secret_var = "ELOTUI_TEST_KEY_NOT_SET"
    monkeypatch.delenv(secret_var, raising=False)
    text = (
        VALID
        + f'''
[[judges]]
id = "gpt"
provider = "openai"
model = "gpt-4o-mini"
api_key_env = "{secret_var}"
'''
    )
    path = write(tmp_path, text)
    code, _, err = validate(path, capsys)
    assert code == 0
    assert f"warning: judge 'gpt': environment variable {secret_var} is not set" in err
    t = load_tournament(path)
    with pytest.raises(UserError) as info:
        t.require_api_keys()
    assert secret_var in str(info.value)
    monkeypatch.setenv(secret_var, "sk-live-very-secret")
    t.require_api_keys()


def test_missing_file_and_non_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = validate(tmp_path / "nope.toml", capsys)
    assert code == 2 and "nope.toml: no such file" in err
    bad = tmp_path / "bin.toml"
    bad.write_bytes(b"\xff\xfe[tournament]")
    code, _, err = validate(bad, capsys)
    assert code == 2 and "not UTF-8" in err


def test_validate_lists_five_independent_mistakes_in_one_run(tmp_path: Path) -> None:
    """Schema errors in two tables, a missing file, an undeclared contestant and a bad reference: one run,
    sorted by line (a schema error no longer hides the cross-checks)."""
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "five mistakes"\n\n[ranking]\nthreshold = 0.6\n\n[comparison]\n'
        'examples_file = "missing-examples.jsonl"\n\n[[contestants]]\nid = "a"\n\n[[contestants]]\nid = "b"\n\n'
        '[[prompts]]\nid = "p1"\ntext = "hi"\n[prompts.responses]\na = "x"\nb = "y"\nc = "z"\n\n'
        '[[judges]]\nid = "j"\nprovider = "openai"\nmodel = "gpt-4o"\nmax_concurrency = 0\n\n'
        '[reference]\nranking = ["a", "nobody"]\n',
        encoding="utf-8",
    )
    with pytest.raises(UserError) as err:
        load_tournament(path)
    lines = [d.removeprefix(f"{path}:") for d in err.value.details]
    assert [line.split(": ", 2)[:2] for line in lines] == [
        ["5", "ranking.threshold"],
        ["8", "comparison.examples_file"],
        ["22", "prompts[0].responses.c"],
        ["28", "judges[0].max_concurrency"],
        ["31", "reference.ranking"],
    ]


def test_a_too_short_array_of_tables_names_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "x"\n[[contestants]]\nid = "a"\n[[prompts]]\nid = "p"\ntext = "t"\n'
        '[prompts.responses]\na = "r"\n[[judges]]\nid = "j"\nprovider = "simulated"\n'
        "[judges.simulation]\nqualities = { a = 1 }\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError) as err:
        load_tournament(path)
    assert f"{path}:3: contestants: needs at least 2 item(s)" in err.value.details


def test_a_mistyped_choice_suggests_the_closest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        VALID.replace('threshold = "none"', 'threshold = "none"\nstyle_control = ["lenght"]')
        + '\n[judge_prompt]\nscale = "grade"\n'
    )
    path = write(tmp_path, text)
    code, _, err = validate(path, capsys)
    assert code == 2
    assert (
        f"{path}:26: ranking.style_control[0]: must be one of 'length' or 'markdown' (got 'lenght'); "
        "did you mean 'length'?" in err
    )
    assert (
        f"{path}:29: judge_prompt.scale: must be one of 'binary' or 'graded' (got 'grade'); did you mean 'graded'?"
        in err
    )


def test_an_undeclared_anchor_names_its_line_and_the_closest_contestant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = VALID.replace(
        'threshold = "none"', 'threshold = "none"\nanchor = { contestant = "alpah", rating = 1000 }'
    )
    path = write(tmp_path, text)
    code, _, err = validate(path, capsys)
    assert code == 2
    assert (
        f"{path}:26: ranking.anchor.contestant: contestant 'alpah' is not declared in [[contestants]]; "
        "did you mean 'alpha'?" in err
    )
    path = write(tmp_path, text.replace('"alpah"', '"nobody"'))
    code, _, err = validate(path, capsys)
    assert code == 2
    assert err.rstrip().endswith(
        f"{path}:26: ranking.anchor.contestant: contestant 'nobody' is not declared in [[contestants]]"
    )


def test_the_new_ranking_numbers_are_not_read_from_text_or_booleans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`strong_weight = "3"` and `strong_weight = true` are mistakes (not 3, not 1), as is a quoted anchor rating."""
    for value, shown in (('"3"', "str '3'"), ("true", "bool True")):
        path = write(
            tmp_path, VALID.replace('threshold = "none"', f'threshold = "none"\nstrong_weight = {value}')
        )
        code, _, err = validate(path, capsys)
        assert code == 2
        assert f"{path}:26: ranking.strong_weight: expected an integer, got {shown}" in err
    anchored = 'threshold = "none"\nanchor = { contestant = "alpha", rating = "1000" }'
    path = write(tmp_path, VALID.replace('threshold = "none"', anchored))
    code, _, err = validate(path, capsys)
    assert code == 2
    assert f"{path}:26: ranking.anchor.rating: expected a number, got str '1000'" in err
    path = write(tmp_path, VALID.replace('threshold = "none"', anchored.replace('"1000"', "1000")))
    assert validate(path, capsys)[0] == 0  # an integer rating is a number
