"""The judge prompt on the graded scale: the five grades and what `>>` means in the system and user messages (of
a single answer and of a conversation), a worked example's answer on the scale asked, and the binary prompt
unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.errors import UserError
from elotui.plan.fewshot import Example, load_examples
from elotui.plan.prompts import PromptBuilder, package_template
from elotui.tournament.model import load_tournament

GRADES = '"A>>B" | "A>B" | "A=B" | "B>A" | "B>>A"'


def tournament(tmp_path: Path, scale: str | None) -> PromptBuilder:
    table = f'[judge_prompt]\nscale = "{scale}"\n' if scale else ""
    path = tmp_path / f"t-{scale}.toml"
    path.write_text(
        '[tournament]\nname = "t"\n[[contestants]]\nid = "x"\n[[contestants]]\nid = "y"\n'
        '[[prompts]]\nid = "p"\ntext = "Q?"\nresponses = { x = "one", y = "two" }\n'
        '[[judges]]\nid = "s"\nprovider = "simulated"\nsimulation = { qualities = { x = 0, y = 0 } }\n'
        + table,
        encoding="utf-8",
    )
    return PromptBuilder(load_tournament(path))


def render(builder: PromptBuilder, example: Example | None = None) -> tuple[str, str]:
    r = builder.render(prompt_id="p", prompt_text="Q?", first_text="one", second_text="two", example=example)
    return r.system, r.user


def test_the_graded_prompt_asks_for_the_five_grades_and_says_what_strong_means(tmp_path: Path) -> None:
    system, user = render(tournament(tmp_path, "graded"))
    assert GRADES in system and GRADES in user
    assert '"A>>B" means Response A is significantly better: a strong, clear-cut preference' in system
    assert '">>": a strong, clear-cut preference' in user
    assert '"better": "A" | "B" | "tie"' not in system + user


def test_the_binary_prompt_is_the_default_and_unchanged(tmp_path: Path) -> None:
    default, binary = tournament(tmp_path, None), tournament(tmp_path, "binary")
    assert render(default) == render(binary)
    assert default.system_template == package_template("system.txt")
    assert default.user_template == package_template("user.txt")
    system, user = render(default)
    assert '"better": "A" | "B" | "tie"' in system and "A>>B" not in system + user


def test_a_conversation_is_asked_on_the_graded_scale_too(tmp_path: Path) -> None:
    builder = tournament(tmp_path, "graded")
    assert GRADES in builder.conversation_system and GRADES in builder.conversation_user
    assert "Assistant A's answer is significantly better" in builder.conversation_system
    # the binary templates differ from the graded ones only in the answer's format
    for name in ("system", "user", "system_conversation", "user_conversation"):
        binary, graded = package_template(f"{name}.txt"), package_template(f"{name}_graded.txt")
        common = [line for line in binary.splitlines() if line in graded.splitlines()]
        assert len(common) >= len(binary.splitlines()) - 2, name


@pytest.mark.parametrize(
    ("given", "binary", "graded"),
    [("A", "A", "A>B"), ("B", "B", "B>A"), ("tie", "tie", "A=B"), ("A>>B", "A", "A>>B"), ("B>A", "B", "B>A")],
)
def test_a_worked_example_answers_on_the_scale_asked(
    tmp_path: Path, given: str, binary: str, graded: str
) -> None:
    path = tmp_path / "examples.jsonl"
    row = {"prompt": "P", "response_a": "RA", "response_b": "RB", "better": given.lower(), "reasoning": "R"}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (example,) = load_examples(path)
    for scale, want in (("binary", binary), ("graded", graded)):
        _, user = render(tournament(tmp_path, scale), example)
        assert json.dumps({"reasoning": "R", "better": want}) in user, (scale, user)


def test_an_unknown_example_answer_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "examples.jsonl"
    path.write_text(
        json.dumps({"prompt": "P", "response_a": "a", "response_b": "b", "better": "A>>>B"}) + "\n"
    )
    with pytest.raises(UserError, match=r"examples.jsonl:1: better must be .*A>>B"):
        load_examples(path)


def test_an_unknown_scale_is_a_file_error_with_line_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from elotui.cli import main

    tournament(tmp_path, "graded")
    path = tmp_path / "t-graded.toml"
    path.write_text(path.read_text().replace('scale = "graded"', 'scale = "strong"'), encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    line = path.read_text().splitlines().index('scale = "strong"') + 1
    assert (
        f"{path}:{line}: judge_prompt.scale: must be one of 'binary' or 'graded' (got 'strong')"
        in capsys.readouterr().err
    )
