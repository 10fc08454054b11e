"""One pair in full: the prompt, both responses side by side, the AB/BA grid and every verdict with its whole
reasoning (untrusted text shown literally: rich `Text`, never markup). A conversation is shown turn by turn: each
earlier user turn, then both contestants' answers to it side by side, then the judged (last) user turn and the two
judged answers. The words of the current search are highlighted; `next_match` / `previous_match` (n / N) scroll
from one part holding a match to the next."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from elotui.plan.context_blocks import Exchange
from elotui.rating.pair_summary import PairSummary
from elotui.records import PairDetail
from elotui.tui.colours import theme_colour
from elotui.tui.sanitize import clean, one_line
from elotui.tui.widgets.abba_grid import AbbaGrid
from elotui.tui.widgets.note import Note
from elotui.vocab import grade_label


def response_shown(response: str | None) -> str:
    """A response as shown: cleaned; an empty one (`allow_empty = true`) says so, as does one not produced yet."""
    if response is None:
        return "(no response recorded yet)"
    shown = clean(response)
    return shown if shown.strip() else "(empty response)"


def turn_text(heading: str, text: str | None) -> Text:
    """One turn of a conversation: `── heading ──` then the text, cleaned (an answer not given says so)."""
    out = Text()
    out.append(f"── {heading} ──\n", style="bold")
    out.append(response_shown(text) if text is not None else "(no answer in the data)")
    return out


class PairDetailView(VerticalScroll):
    DEFAULT_CSS = """
    PairDetailView .verdict { height: auto; }
    PairDetailView .current-match { background: $boost; }
    PairDetailView #conversation { height: auto; }
    PairDetailView .turn-user, PairDetailView #last-turn { height: auto; margin-top: 1; }
    PairDetailView .turn-answers { height: auto; max-height: 12; }
    PairDetailView .turn-answers .response { max-height: 12; }
    """

    def __init__(
        self, judges: Sequence[str], kinds: Mapping[str, str], kinds_label: str, **kwargs: object
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._judges = list(judges)
        self._kinds, self._kinds_label = kinds, kinds_label
        self._words: tuple[str, ...] = ()
        self._match_widgets: list[Widget] = []
        self._current = -1

    def compose(self) -> ComposeResult:
        yield Note("Select a pair to see both responses and every verdict.", id="pair-title")
        yield Note(id="pair-votes")
        for part in (
            Vertical(id="conversation"),
            Note(id="last-turn"),
        ):  # a conversation's turns (shown by show())
            part.display = False
            yield part
        with Horizontal(id="responses"):
            with VerticalScroll(classes="response"):
                yield Note(id="resp-a")
            with VerticalScroll(classes="response"):
                yield Note(id="resp-b")
        yield AbbaGrid(id="abba")
        yield Vertical(id="verdicts")

    def _mark(self, text: Text) -> Text:
        if self._words:
            text.highlight_words(
                self._words, style=f"reverse {theme_colour(self.app, 'verdict-tie')}", case_sensitive=False
            )
        return text

    def show(
        self,
        s: PairSummary,
        details: list[PairDetail],
        texts: Mapping[str, str | None],
        prompt_text: str,
        category: str | None,
        words: tuple[str, ...],
        earlier: Sequence[Exchange] = (),
    ) -> None:
        """`texts`: each contestant's (last) response; `earlier`: a conversation's turns before the judged one."""
        self._words = words
        title = self._title(s, prompt_text, category, len(earlier) + 1 if earlier else 0)
        if details:  # they sit below the responses: say where, and how to get there
            title.append(
                f"\n{len(details)} verdict(s) and their reasoning below (Tab into this pane, then ↓ or End)",
                style="dim",
            )
        shown: list[tuple[Widget, Text]] = [(self.query_one("#pair-title", Static), title)]
        made = self._show_conversation(s, earlier, prompt_text)
        if earlier:
            last_turn = turn_text(f"user, turn {len(earlier) + 1} (judged)", prompt_text)
            shown.append((self.query_one("#last-turn", Static), last_turn))
        last = f", turn {len(earlier) + 1} (judged)" if earlier else ""
        for widget_id, who in (("#resp-a", s.a), ("#resp-b", s.b)):
            text = Text()
            text.append(f"{one_line(who, 40)}{last}\n", style="bold underline")
            text.append(response_shown(texts.get(who)))
            shown.append((self.query_one(widget_id, Static), text))
        for widget, text in shown:
            widget.update(self._mark(text))  # type: ignore[attr-defined]
        self.query_one("#abba", AbbaGrid).show(s.a, s.b, details, self._judges)
        verdicts = self._show_verdicts(self._verdict_texts(s, details))
        self._match_widgets = [
            w
            for w, t in [*shown, *made, *verdicts]
            if self._words and any(x in t.plain.lower() for x in self._words)
        ]
        self._current = -1

    def _show_conversation(
        self, s: PairSummary, earlier: Sequence[Exchange], prompt_text: str
    ) -> list[tuple[Widget, Text]]:
        """The earlier turns, each user turn then the two answers to it side by side (widgets made with their text,
        the search's words marked); hidden, with the judged turn's line, for a single-turn prompt. Returns the
        (widget, text) pairs made, for the search's matches."""
        box = self.query_one("#conversation", Vertical)
        box.display = self.query_one("#last-turn", Static).display = bool(earlier)
        box.remove_children()
        made: list[tuple[Widget, Text]] = []

        def part(text: Text, classes: str = "") -> Static:
            widget = Static(self._mark(text), classes=classes)
            made.append((widget, text))
            return widget

        rows: list[Widget] = []
        for n, exchange in enumerate(earlier, start=1):
            answers = [
                VerticalScroll(
                    part(turn_text(f"{one_line(who, 40)}, turn {n}", exchange.answers.get(who))),
                    classes="response",
                )
                for who in (s.a, s.b)
            ]
            rows += [
                part(turn_text(f"user, turn {n}", exchange.user), "turn-user"),
                Horizontal(*answers, classes="turn-answers"),
            ]
        if rows:
            box.mount_all(rows)
        return made

    def show_votes(self, line: str) -> None:
        """The human votes on the pair (elotui.tui.voting), shown literally."""
        self.query_one("#pair-votes", Static).update(Text(clean(line), style="italic"))

    @property
    def match_count(self) -> int:
        return len(self._match_widgets)

    def next_match(self, step: int = 1) -> int:
        """Scroll to the next (step 1) or previous (step -1) part holding a match; its index, or -1 if none."""
        if not self._match_widgets:
            return -1
        if 0 <= self._current < len(self._match_widgets):
            self._match_widgets[self._current].remove_class("current-match")
        self._current = (self._current + step) % len(self._match_widgets)
        widget = self._match_widgets[self._current]
        widget.add_class("current-match")
        widget.scroll_visible(animate=False)
        return self._current

    def _show_verdicts(self, texts: list[Text]) -> list[tuple[Widget, Text]]:
        """One Static per verdict, reused from pair to pair (mounting widgets is what costs; updating is cheap)."""
        box = self.query_one("#verdicts", Vertical)
        pool = list(box.query(".verdict").results(Static))
        if len(pool) < len(texts):
            extra = [Note(classes="verdict") for _ in range(len(texts) - len(pool))]
            box.mount_all(extra)
            pool += extra
        for n, widget in enumerate(pool):
            widget.display = n < len(texts)
            if n < len(texts):
                widget.update(self._mark(texts[n]))
        return list(zip(pool, texts, strict=False))

    def _title(self, s: PairSummary, prompt_text: str, category: str | None, turns: int = 0) -> Text:
        """`turns`: a conversation's number of turns (its user turns are shown below; 0: a single-turn prompt)."""
        title = Text()
        title.append("prompt ")
        title.append(one_line(s.prompt, 40), style="bold")
        if category is not None:
            title.append(f" [{one_line(category, 30)}]", style="italic")
        if turns:
            title.append(f" · a conversation of {turns} turns (the last judged)")
        else:
            title.append(": ")
            title.append(clean(prompt_text))
        title.append(f"\nstability: {s.klass}", style="bold")
        if s.units:
            title.append(f" · units consistent·position bias·inconclusive {s.counts}")
        if s.flipped:
            title.append(f" · flipped: {', '.join(one_line(j, 20) for j in sorted(s.flipped))}")
        if s.agreement is not None:
            title.append(f" · judges agreeing {round(s.agreement * s.judges_voting)}/{s.judges_voting}")
        if s.dissenter is not None:
            title.append(f" · {one_line(s.dissenter, 20)} against the rest")
        if self._kinds_label:
            title.append(f" · {self._kinds_label}", style="italic")
        return title

    def _verdict_texts(self, s: PairSummary, details: list[PairDetail]) -> list[Text]:
        app = self.app
        colours = {
            "first": theme_colour(app, "verdict-first"),
            "second": theme_colour(app, "verdict-second"),
            "tie": theme_colour(app, "verdict-tie"),
            "invalid": theme_colour(app, "verdict-invalid"),
        }
        judge_order = {j: i for i, j in enumerate(self._judges)}
        ordered = sorted(
            details, key=lambda d: (judge_order.get(d.judge, 99), d.condition, d.sample, d.first != s.a)
        )
        out = []
        for d in ordered:
            text = Text()
            text.append(one_line(d.judge, 30), style="bold")
            kind = self._kinds.get(d.judge, "live")
            if kind != "live":
                text.append(
                    f" [{kind}]", style="italic"
                )  # a literal label, not markup: Text.append never parses
            text.append(
                f" · {'AB' if d.first == s.a else 'BA'} ({one_line(d.first, 20)} first) · "
                f"{one_line(d.condition, 16)}"
            )
            if d.sample:
                text.append(f" · sample {d.sample}")
            text.append(" → ")
            append_outcome(text, d, colours)
            if d.latency_ms:
                text.append(f"  {d.latency_ms:.0f} ms", style="dim")
            if d.reasoning:
                text.append("\n")
                text.append(clean(d.reasoning))
            out.append(text)
        return out


def append_outcome(text: Text, d: PairDetail, colours: dict[str, str]) -> None:
    """What one verdict decided: the winner (and its slot, and a graded verdict's grade: `A>>B (strong)`, `B>A`),
    invalid, failed (with the error) or not judged yet."""
    if d.status == "ok":
        winner = d.winner
        who = d.first if winner == "first" else d.second if winner == "second" else "tie"
        text.append(f"{one_line(who, 30)}", style=f"bold {colours.get(winner or '', '')}")
        if winner in ("first", "second"):
            text.append(f" ({winner} slot)")
        grade = grade_label(winner, d.strength)
        if grade is not None:  # a graded verdict: the grade as the judge gave it (A the response shown first)
            text.append(f" · {grade}", style="bold" if d.strength == 2 else "")
    elif d.status == "invalid":
        text.append("invalid reply (press r to read it)", style=f"bold {colours['invalid']}")
    elif d.status == "error":
        text.append("failed: ", style=f"bold {colours['invalid']}")
        text.append(one_line(d.error or "", 200))
    else:
        text.append("not judged yet", style="dim")
