"""From the plan to concrete model calls: the texts each presentation shows, its rendered prompt, its key.

Texts:
- base responses: from the tournament file, or produced by the contestant's generator (a `generation` call,
  whose output is also stored as a text of kind "generation");
- `lexical`: both responses perturbed (elotui.plan.perturb, seeded by `comparison.perturbation_seed`, salted
  with prompt and contestant), stored as texts of kind "perturbed" whose `base_key` is the base response;
- `paraphrase`: the prompt rewritten once per prompt by `[comparison.paraphraser]` (a `paraphrase` call),
  stored as a text of kind "paraphrase" whose `base_key` is the prompt text's key.

A presentation whose generated response or paraphrase is not available yet is *blocked*: its plan row gets the
key of the missing prerequisite call, so the store reports it as missing (or as error, if that call failed).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from elotui.judges.base import Judge, Presentation
from elotui.plan.keys import call_key, text_key
from elotui.plan.perturb import perturb
from elotui.plan.presentations import Comparison, Plan
from elotui.plan.prompts import MessageParts, PromptBuilder, RenderedFields, RenderedPrompt
from elotui.records import TextRow
from elotui.store import Store
from elotui.tournament.model import EndpointConfig, Tournament
from elotui.tournament.sections import price_factor
from elotui.vocab import CallKind, cost_of, tokens_in_text

PARAPHRASER_ID = "paraphraser"
OUTPUT_TOKENS_ESTIMATE = 512  # expected reply size used for estimates: min(max_tokens, this)


def generator_id(contestant: str) -> str:
    return f"gen:{contestant}"


@dataclass(slots=True)
class Call(MessageParts):
    """One distinct model call."""

    key: str
    kind: CallKind
    judge: str  # judge id, "gen:<contestant>" or "paraphraser"
    system_parts: tuple[str, ...]  # the messages as pieces (joined when sent: see RenderedPrompt)
    user_parts: tuple[str, ...]
    presentation: Presentation | None = None
    first_text: str = ""
    second_text: str = ""
    prompt: str | None = None  # generation/paraphrase: the prompt id
    contestant: str | None = None  # generation: the contestant
    rows: int = 1  # plan rows answered by this call

    def estimated_input_tokens(self) -> int:
        return tokens_in_text(self.chars)

    def describe(self) -> str:
        if self.presentation is not None:
            p = self.presentation
            return f"{self.judge}: {p.prompt} {p.first} vs {p.second} [{p.condition}, sample {p.sample}]"
        if self.kind == "generation":
            return f"{self.judge}: generate the response of {self.contestant} to prompt {self.prompt}"
        return f"{self.judge}: paraphrase prompt {self.prompt}"


def estimated_output_tokens(config: EndpointConfig) -> int:
    return min(config.max_tokens, OUTPUT_TOKENS_ESTIMATE)


def estimated_cost(config: EndpointConfig, input_tokens: int, output_tokens: int) -> float:
    prices = config.price_per_million_input, config.price_per_million_output
    return cost_of(input_tokens, output_tokens, *prices) * price_factor(config)


def estimated_call_cost(config: EndpointConfig, call: Call) -> float:
    """What sending `call` to this endpoint is expected to cost (nothing, without counting its characters, when
    the endpoint has no prices: replay and simulated judges, local models)."""
    if not (config.price_per_million_input or config.price_per_million_output):
        return 0.0
    return estimated_cost(config, call.estimated_input_tokens(), estimated_output_tokens(config))


def endpoints(tournament: Tournament) -> dict[str, EndpointConfig]:
    """Every endpoint the tournament may call, by id: judges, generators ("gen:<c>"), the paraphraser."""
    out: dict[str, EndpointConfig] = {j.id: j for j in tournament.spec.judges}
    for c in tournament.spec.contestants:
        if c.generator is not None:
            out[generator_id(c.id)] = c.generator
    if tournament.spec.comparison.paraphraser is not None:
        out[PARAPHRASER_ID] = tournament.spec.comparison.paraphraser
    return out


def key_context(judge: Judge, presentation: Presentation | None) -> dict[str, object] | None:
    """Replay and simulated judges answer by who is compared, so the presentation is part of their key."""
    if judge.kind == "live" or presentation is None:
        return None
    return {
        "prompt": presentation.prompt,
        "first": presentation.first,
        "second": presentation.second,
        "condition": presentation.condition,
    }


def prerequisite_calls(
    tournament: Tournament, plan: Plan, builder: PromptBuilder, judges: Mapping[str, Judge]
) -> list[Call]:
    """The generation and paraphrase calls the plan needs (whether cached or not)."""
    out: list[Call] = []
    for g in plan.generations:
        jid = generator_id(g.contestant)
        judge = judges[jid]
        system = judge.config.system or ""
        user = tournament.prompt_texts[g.prompt]
        key = call_key(judge.identity(), system, user, kind="generation")
        out.append(Call(key, "generation", jid, (system,), (user,), prompt=g.prompt, contestant=g.contestant))
    for pid in plan.paraphrases:
        judge = judges[PARAPHRASER_ID]
        system, user = builder.paraphrase_request(pid, tournament.prompt_texts[pid])
        key = call_key(judge.identity(), system, user, kind="paraphrase")
        out.append(Call(key, "paraphrase", PARAPHRASER_ID, (system,), (user,), prompt=pid))
    return out


@dataclass
class Texts:
    """The texts presentations show, with the keys of the prerequisite calls that produce missing ones."""

    tournament: Tournament
    generated: dict[tuple[str, str], str] = field(default_factory=dict)
    paraphrased: dict[str, str] = field(default_factory=dict)
    generation_keys: dict[tuple[str, str], str] = field(default_factory=dict)
    paraphrase_keys: dict[str, str] = field(default_factory=dict)
    placeholders: bool = False  # dry run: stand-in texts of the expected length for what is not produced yet
    labels: bool = False  # with placeholders: a readable label instead of a text of the expected length
    _keys: dict[tuple[str, ...], str] = field(default_factory=dict, repr=False)  # text keys, computed once
    _perturbed: dict[tuple[str, ...], str] = field(default_factory=dict, repr=False)  # lexical variants, once

    @classmethod
    def load(
        cls, tournament: Tournament, store: Store, prereqs: list[Call], *, placeholders: bool = False
    ) -> Texts:
        texts = cls(tournament, placeholders=placeholders)
        for call in prereqs:
            record = store.get_call(call.key)
            value = record.output_text if record is not None and record.status == "ok" else None
            assert call.prompt is not None
            if call.kind == "generation":
                assert call.contestant is not None
                texts.generation_keys[(call.prompt, call.contestant)] = call.key
                if value is not None:
                    texts.generated[(call.prompt, call.contestant)] = value
            else:
                texts.paraphrase_keys[call.prompt] = call.key
                if value is not None:
                    texts.paraphrased[call.prompt] = value
        return texts

    def produced(self, prompt: str, contestant: str) -> bool:
        """Whether a real response (given or generated) is available, not a placeholder."""
        return (prompt, contestant) in self.tournament.responses or (prompt, contestant) in self.generated

    def base_response(self, prompt: str, contestant: str) -> str | None:
        given = self.tournament.responses.get((prompt, contestant))
        if given is not None:
            return given
        produced = self.generated.get((prompt, contestant))
        if produced is None and self.placeholders and self.labels:
            return f"[the response of {contestant}, generated at run time]"
        if produced is None and self.placeholders:
            generator = next(c.generator for c in self.tournament.spec.contestants if c.id == contestant)
            assert generator is not None
            return "x" * (4 * estimated_output_tokens(generator))
        return produced

    def base_key(self, prompt: str, contestant: str) -> str:
        """The texts-table key of a base response (a generation's call key for generated responses)."""
        given = self.tournament.responses.get((prompt, contestant))
        if given is None:
            return self.generation_keys[(prompt, contestant)]
        memo = ("response", prompt, contestant)
        found = self._keys.get(memo)
        if found is None:
            found = self._keys[memo] = text_key("response", prompt, contestant, given)
        return found

    def shown_response(self, prompt: str, contestant: str, condition: str) -> str | None:
        base = self.base_response(prompt, contestant)
        if base is None or condition != "lexical":
            return base
        memo = ("perturbed", prompt, contestant)
        found = self._perturbed.get(memo)
        if found is None:  # perturbed once per response, not once per presentation
            seed = self.tournament.spec.comparison.perturbation_seed
            found = self._perturbed[memo] = perturb(base, seed=seed, salt=f"{prompt}\x00{contestant}")
        return found

    def shown_prompt(self, prompt: str, condition: str) -> str | None:
        text = self.tournament.prompt_texts[prompt]
        if condition != "paraphrase":
            return text
        paraphrase = self.paraphrased.get(prompt)
        if paraphrase is None and self.placeholders:
            return text
        return paraphrase

    def shown_response_key(self, prompt: str, contestant: str, condition: str) -> str:
        """The texts-table key of the response as shown under `condition` (its perturbed variant under lexical)."""
        base_key = self.base_key(prompt, contestant)
        if condition != "lexical":
            return base_key
        memo = ("perturbed", prompt, contestant)
        found = self._keys.get(memo)
        if found is None:
            variant = self.shown_response(prompt, contestant, condition)
            seed = self.tournament.spec.comparison.perturbation_seed
            found = self._keys[memo] = text_key("perturbed", base_key, seed, variant)
        return found

    def shown_prompt_key(self, prompt: str, condition: str) -> str:
        """The texts-table key of the prompt as shown (the paraphrase's call key under paraphrase)."""
        if condition == "paraphrase":
            return self.paraphrase_keys[prompt]
        memo = ("prompt", prompt)
        found = self._keys.get(memo)
        if found is None:
            found = self._keys[memo] = text_key("prompt", prompt, self.tournament.prompt_texts[prompt])
        return found

    def missing_key(self, c: Comparison) -> str | None:
        """The key of a prerequisite call this comparison still waits for, if any (none without generators or
        paraphrases: every text is in the file, which the file's checks ensure)."""
        if not (self.generation_keys or self.paraphrase_keys):
            return None
        for contestant in (c.first, c.second):
            if self.base_response(c.prompt, contestant) is None:
                return self.generation_keys[(c.prompt, contestant)]
        if self.shown_prompt(c.prompt, c.condition) is None:
            return self.paraphrase_keys[c.prompt]
        return None

    def store_derived(self, store: Store, plan: Plan) -> None:
        """Base responses, prompts and their variants into the texts table (only those not stored yet), in one
        transaction (10^4 texts: one commit, not one each)."""
        t = self.tournament
        lexical = "lexical" in t.spec.comparison.conditions
        now = time.time()
        rows: list[TextRow] = []
        for pid in t.prompt_ids:
            prompt_key = text_key("prompt", pid, t.prompt_texts[pid])
            rows.append(TextRow(prompt_key, "prompt", pid, None, None, None, t.prompt_texts[pid], now))
            if pid in self.paraphrased:
                paraphrase = self.paraphrased[pid]
                key = self.paraphrase_keys[pid]
                rows.append(TextRow(key, "paraphrase", pid, None, "paraphrase", prompt_key, paraphrase, now))
            for cid in t.contestant_ids:
                base = t.responses.get((pid, cid), self.generated.get((pid, cid)))
                if base is None:
                    continue
                base_key = self.base_key(pid, cid)
                kind = "response" if (pid, cid) in t.responses else "generation"
                rows.append(TextRow(base_key, kind, pid, cid, None, None, base, now))
                if lexical:
                    variant = self.shown_response(pid, cid, "lexical")
                    assert variant is not None
                    key = self.shown_response_key(pid, cid, "lexical")
                    rows.append(TextRow(key, "perturbed", pid, cid, "lexical", base_key, variant, now))
        store.add_texts(rows)


def render_comparison(builder: PromptBuilder, texts: Texts, c: Comparison) -> RenderedPrompt | None:
    """The rendered judge prompt of one planned comparison, or None while a prerequisite is missing."""
    fields = comparison_fields(builder, texts, c)
    return None if fields is None else RenderedPrompt(*fields)


def comparison_fields(builder: PromptBuilder, texts: Texts, c: Comparison) -> RenderedFields | None:
    """`render_comparison`'s fields as a tuple (`PromptBuilder.render_parts`)."""
    prompt_text = texts.shown_prompt(c.prompt, c.condition)
    first = texts.shown_response(c.prompt, c.first, c.condition)
    second = texts.shown_response(c.prompt, c.second, c.condition)
    if prompt_text is None or first is None or second is None:
        return None
    example = None
    original = texts.tournament.prompt_texts[c.prompt]
    if builder.index is not None:
        clean_a = texts.base_response(c.prompt, c.first) or ""
        clean_b = texts.base_response(c.prompt, c.second) or ""
        example = builder.example_for(original, clean_a, clean_b)
    return builder.render_parts(
        c.prompt, prompt_text, first, second, c.condition, example, original, c.first, c.second
    )
