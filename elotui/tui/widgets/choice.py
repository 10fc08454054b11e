"""A selector of one id among many (a prompt, a judge, a category, a condition): every option labelled
`<noun> <id>` with the id shown literally on one line, a blank choice meaning "all"."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import Select

from elotui.tui.sanitize import one_line


def choice_options(noun: str, values: Iterable[str], width: int = 40) -> list[tuple[str, str]]:
    return [(f"{noun} {one_line(v, width)}".lstrip(), v) for v in values]


def choice_select(
    noun: str, values: Iterable[str], *, blank: str, id: str, width: int = 40, compact: bool = False
) -> Select[str]:
    """`blank` is the prompt shown when nothing is chosen (the scope is then "all")."""
    return Select(choice_options(noun, values, width), prompt=blank, id=id, allow_blank=True, compact=compact)
