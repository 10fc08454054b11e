"""Call keys are the SHA-256 of one canonical JSON document; keying from message parts must give exactly the
same bytes, or every cached verdict would be paid for again."""

from __future__ import annotations

import hashlib
import itertools
import json
import random

import pytest

from elotui.plan.keys import Escaper, call_key, canonical_json, key_of_parts

AWKWARD = [
    "",
    "plain",
    'quotes " and \\ backslashes',
    "control \x00\x01\x1f\x7f and \t\n\r",
    "unicode é ß 漢字 🙂 \u2028\u2029 \ufeff",
    "{{response_a}} literal",
    "</s> <<<RESPONSE A>>>",
]


def _reference(
    identity: dict[str, object], system: str, user: str, sample: int, kind: str, context: object
) -> str:
    """The definition (elotui 0.1): canonical JSON of the whole payload."""
    payload = {
        "identity": identity,
        "system": system,
        "user": user,
        "sample": sample,
        "kind": kind,
        "context": context or {},
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _split(text: str, rng: random.Random) -> tuple[str, ...]:
    cuts = sorted(rng.sample(range(len(text) + 1), k=min(3, len(text) + 1)))
    bounds = [0, *cuts, len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(bounds))


@pytest.mark.parametrize("seed", range(20))
def test_keys_from_parts_equal_the_canonical_payload_hash(seed: int) -> None:
    rng = random.Random(seed)
    identity = {
        "provider": "openai",
        "model": "gpt-4o",
        "temperature": 0.0,
        "nested": {"b": 1, "a": [1, "x"]},
    }
    system = "".join(rng.choice(AWKWARD) for _ in range(3))
    user = "".join(rng.choice(AWKWARD) for _ in range(6))
    context = rng.choice([None, {"prompt": "q1", "first": "a", "second": "b", "condition": "clean"}])
    sample = rng.randrange(3)
    want = _reference(identity, system, user, sample, "verdict", context)
    assert call_key(identity, system, user, sample=sample, context=context) == want
    escaper = Escaper()
    for _ in range(3):  # any split of the messages, the memo warm or cold
        got = key_of_parts(
            canonical_json(identity),
            _split(system, rng),
            _split(user, rng),
            sample=sample,
            context=context,
            escaper=escaper,
        )
        assert got == want


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError):
        call_key({}, "s", "u", kind="other")


@pytest.mark.parametrize("text", AWKWARD)
def test_the_written_out_presentation_context_is_canonical_json(text: str) -> None:
    from elotui.judges.base import Presentation
    from elotui.plan.calls import key_context
    from elotui.plan.keys import presentation_json

    class Replay:
        kind = "replay"

    p = Presentation(f"q{text}", f"a{text}", f"b{text}", "clean", 0)
    want = canonical_json(key_context(Replay(), p))  # type: ignore[arg-type]
    assert presentation_json(p.prompt, p.first, p.second, p.condition) == want
    assert presentation_json(p.prompt, p.first, p.second, p.condition, Escaper()) == want
