"""Checking a JSON body against an official SDK's request TypedDict, strictly: every key must be one the type
declares (a misspelled or dropped parameter fails), every required key present, every value of the declared type,
recursively through nested TypedDicts, unions, literals and lists."""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

import typing_extensions

_WRAPPERS = {typing_extensions.Required, typing_extensions.NotRequired, typing_extensions.ReadOnly}


def _unwrap(tp: Any) -> Any:
    while True:
        origin = typing.get_origin(tp)
        if origin in _WRAPPERS or origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        else:
            return tp


def _is_typeddict(tp: Any) -> bool:
    return typing_extensions.is_typeddict(tp)


def problems(value: Any, tp: Any, path: str = "body") -> list[str]:
    """Every way `value` does not fit `tp` (empty: it fits)."""
    tp = _unwrap(tp)
    if tp is Any or tp is object:
        return []
    if tp is None or tp is type(None):
        return [] if value is None else [f"{path}: expected null, got {value!r}"]
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        branches = [problems(value, arm, path) for arm in typing.get_args(tp)]
        if any(not b for b in branches):
            return []
        return [f"{path}: fits no member of {tp}: " + " | ".join("; ".join(b) for b in branches)][:1]
    if origin is typing.Literal or origin is typing_extensions.Literal:
        return [] if value in typing.get_args(tp) else [f"{path}: {value!r} not in {typing.get_args(tp)}"]
    if _is_typeddict(tp):
        return _typeddict(value, tp, path)
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence, typing.List):  # noqa: UP006
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {type(value).__name__}"]
        (item,) = typing.get_args(tp) or (Any,)
        return [p for i, v in enumerate(value) for p in problems(v, item, f"{path}[{i}]")]
    if origin in (dict, collections.abc.Mapping, typing.Dict):  # noqa: UP006
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        _, item = typing.get_args(tp) or (str, Any)
        return [p for k, v in value.items() for p in problems(v, item, f"{path}.{k}")]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected a number, got {value!r}"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected an integer, got {value!r}"]
    if isinstance(tp, type):
        return [] if isinstance(value, tp) else [f"{path}: expected {tp.__name__}, got {value!r}"]
    return [f"{path}: cannot check against {tp!r}"]


def _typeddict(value: Any, tp: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({tp.__name__}), got {type(value).__name__}"]
    hints = typing.get_type_hints(tp, include_extras=True)
    out = [f"{path}.{k}: not a parameter of {tp.__name__}" for k in value if k not in hints]
    out += [f"{path}.{k}: required by {tp.__name__}" for k in _required(tp, hints) if k not in value]
    for k, v in value.items():
        if k in hints:
            out += problems(v, hints[k], f"{path}.{k}")
    return out


def _required(tp: Any, hints: dict[str, Any]) -> set[str]:
    """The required keys, from the evaluated annotations (`__required_keys__` misses `Required[...]` written as a
    string under `from __future__ import annotations`)."""
    out = set(getattr(tp, "__required_keys__", ()))
    for key, hint in hints.items():
        origin = typing.get_origin(hint)
        if origin is typing_extensions.Required or (getattr(tp, "__total__", True) and origin is None):
            out.add(key)
        elif origin is typing_extensions.NotRequired:
            out.discard(key)
    return out
