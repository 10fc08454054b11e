"""A selector of one id among many (a prompt, a judge, a category, a condition): every option labelled
`<noun> <id>` with the id shown literally on one line, a blank choice meaning "all". It lists at most MAX_LISTED
ids, the first ones (a 10^6-battle arena import has 10^6 prompts: two selectors of them took ~10 s to mount and
no one scrolls them); another is listed when it is chosen elsewhere (the command palette finds any)."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import Select

from elotui.tui.sanitize import one_line

MAX_LISTED = 1000


def choice_options(noun: str, values: Iterable[str], width: int = 40) -> list[tuple[str, str]]:
    return [(f"{noun} {one_line(v, width)}".lstrip(), v) for v in values]


class ChoiceSelect(Select[str]):
    """A Select of ids that knows which it lists (`choose` lists one more where need be)."""

    def __init__(
        self, noun: str, values: list[str], *, blank: str, id: str, width: int, compact: bool
    ) -> None:
        self.noun, self.width = noun, width
        self.listed = values[:MAX_LISTED]
        if len(values) > MAX_LISTED:
            blank = f"{blank} (^p: any)"  # the first MAX_LISTED listed; the palette finds any
        options = choice_options(noun, self.listed, width)
        super().__init__(options, prompt=blank, id=id, allow_blank=True, compact=compact)

    def choose(self, value: str | None) -> None:
        """Show `value` chosen (None: blank), listing it after the others where it was not listed."""
        if value is not None and value not in self.listed:
            self.listed = [*self.listed, value]
            self.set_options(choice_options(self.noun, self.listed, self.width))
        wanted = value if value is not None else Select.NULL
        if self.value != wanted:
            self.value = wanted


def choice_select(
    noun: str, values: Iterable[str], *, blank: str, id: str, width: int = 40, compact: bool = False
) -> ChoiceSelect:
    """`blank` is the prompt shown when nothing is chosen (the scope is then "all")."""
    return ChoiceSelect(noun, list(values), blank=blank, id=id, width=width, compact=compact)
