"""A tournament's data files are merged once and read back after that (elotui.tournament.data_cache), and never stale: an
edited, removed or moved data file, a damaged cache file or a merge with problems means merging again."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from elotui.errors import UserError
from elotui.tournament import data_cache
from elotui.tournament.model import load_tournament
from tests.foundation.test_data_files import MODELS, _mt_bench, _mt_toml


def _kept(home: Path) -> list[Path]:
    folder = home / "cache" / "data"
    return sorted(folder.glob("*.marshal")) if folder.exists() else []


def test_merged_once_then_read_back_the_same(tmp_path: Path, merges: list[Path]) -> None:
    _mt_bench(tmp_path)
    toml = _mt_toml(tmp_path)
    first, second = load_tournament(toml), load_tournament(toml)
    assert merges == [tmp_path]  # the second load read the merge back
    assert len(_kept(Path(os.environ["ELOTUI_HOME"]))) == 1
    assert second.spec == first.spec and second.data == first.data
    assert second.responses == first.responses and len(second.responses) == 9


def test_an_edited_data_file_is_merged_again(tmp_path: Path, merges: list[Path]) -> None:
    _mt_bench(tmp_path)
    toml = _mt_toml(tmp_path)
    load_tournament(toml)
    answers = tmp_path / "model_answer" / "gpt-4.jsonl"
    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    rows[0]["choices"][0]["turns"][0] = "an edited answer"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load_tournament(toml).responses[("81", "gpt-4")] == "an edited answer"
    assert load_tournament(toml).responses[("81", "gpt-4")] == "an edited answer"
    assert len(merges) == 2  # merged again once, then read back


def test_a_removed_data_file_is_reported_as_without_the_cache(tmp_path: Path, merges: list[Path]) -> None:
    _mt_bench(tmp_path)
    toml = _mt_toml(tmp_path)
    load_tournament(toml)
    (tmp_path / "model_answer" / "llama-13b.jsonl").unlink()
    for _ in range(2):  # a merge with problems is never kept: reported from the files each time
        with pytest.raises(UserError) as err:
            load_tournament(toml)
        assert "llama-13b.jsonl does not exist" in "\n".join(err.value.details)
    assert len(merges) == 3


def test_a_merge_with_problems_is_not_kept(tmp_path: Path, merges: list[Path]) -> None:
    _mt_bench(tmp_path, skip={(82, "gpt-4")})
    toml = _mt_toml(tmp_path)
    for _ in range(2):
        with pytest.raises(UserError):
            load_tournament(toml)
    assert len(merges) == 2 and not _kept(Path(os.environ["ELOTUI_HOME"]))


def test_a_damaged_cache_file_is_merged_again_and_written_over(tmp_path: Path, merges: list[Path]) -> None:
    _mt_bench(tmp_path)
    toml = _mt_toml(tmp_path)
    want = load_tournament(toml).responses
    (kept,) = _kept(Path(os.environ["ELOTUI_HOME"]))
    for damage in (kept.read_bytes()[:-5], b"", kept.read_bytes()[:32] + b"\0" * 40):
        kept.write_bytes(damage)
        assert load_tournament(toml).responses == want
        assert load_tournament(toml).responses == want
    assert len(merges) == 4  # once, then once after each damage


def test_a_moved_tournament_is_merged_from_its_new_folder(tmp_path: Path, merges: list[Path]) -> None:
    _mt_bench(tmp_path / "a")
    _mt_toml(tmp_path / "a")
    load_tournament(tmp_path / "a" / "tournament.toml")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    (tmp_path / "b" / "model_answer" / "vicuna-13b.jsonl").write_text("")  # only the copy lost its answers
    with pytest.raises(UserError) as err:
        load_tournament(tmp_path / "b" / "tournament.toml")
    assert "vicuna-13b" in "\n".join(err.value.details)
    assert merges == [tmp_path / "a", tmp_path / "b"]
    assert set(load_tournament(tmp_path / "a" / "tournament.toml").contestant_ids) == set(MODELS)


def test_an_edit_of_what_the_merge_does_not_read_reads_it_back(tmp_path: Path, merges: list[Path]) -> None:
    """The merge is named by the tables it reads ([data], [[contestants]], [comparison], [[prompts]]): a comment, a
    new `[ranking] bootstrap = 0` or name leave it as it was."""
    _mt_bench(tmp_path)
    toml = _mt_toml(tmp_path)
    want = load_tournament(toml)
    text = toml.read_text(encoding="utf-8").replace('name = "mt"', 'name = "renamed"')
    toml.write_text(text + "\n# a comment\n[ranking]\nbootstrap = 0\n", encoding="utf-8")
    t = load_tournament(toml)
    assert merges == [tmp_path] and len(_kept(Path(os.environ["ELOTUI_HOME"]))) == 1
    assert t.spec.prompts == want.spec.prompts and t.responses == want.responses and t.data == want.data
    assert t.spec.ranking.bootstrap == 0 and t.name == "renamed" and t.content_hash != want.content_hash
    toml.write_text(
        text.replace('prompts = "question.jsonl"', 'prompts = "question.jsonl"\nmissing = "error"')
    )
    load_tournament(toml)  # [data] edited (to what it was by default): merged again
    assert merges == [tmp_path, tmp_path]


def test_the_folder_keeps_the_merges_used_last_up_to_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, merges: list[Path]
) -> None:
    # Every edit of what the merge reads makes a new merge; the folder keeps those used last within KEEP_BYTES.
    _mt_bench(tmp_path)
    toml = _mt_toml(tmp_path)
    home = Path(os.environ["ELOTUI_HOME"])
    original = toml.read_text()
    load_tournament(toml)
    (first,) = _kept(home)
    monkeypatch.setattr(data_cache, "KEEP_BYTES", 2 * first.stat().st_size + 100)  # room for two merges

    def load(text: str) -> Path:
        time.sleep(0.02)  # a later modification time than the last file's, whatever the clock's grain
        toml.write_text(text)
        load_tournament(toml)
        return max(_kept(home), key=lambda p: p.stat().st_mtime_ns)  # the one used last

    def edited(key: str) -> str:  # a [data] key given its default value: the same merge, but another [data]
        return original.replace('prompts = "question.jsonl"', f'prompts = "question.jsonl"\n{key}')

    edit0, edit1 = load(edited('missing = "error"')), load(edited("allow_empty = false"))
    assert set(_kept(home)) == {edit0, edit1}  # the first merge, used longest ago, went
    assert load(edited('missing = "error"')) == edit0  # read back, and so used last
    load(original)  # merged again (it had gone); edit 1 is now the one used longest ago
    assert set(_kept(home)) == {edit0, first} and len(merges) == 4
