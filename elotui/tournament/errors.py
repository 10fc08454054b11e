"""Turn TOML and pydantic errors into messages that name the file, the line and the key path."""

from __future__ import annotations

import difflib
import re
import tomllib
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

_TOML_AT = re.compile(r"^(?P<msg>.*?)\s*\(at line (?P<line>\d+), column (?P<col>\d+)\)\s*$")
_TOML_EOF = re.compile(r"^(?P<msg>.*?)\s*\(at end of document\)\s*$")


def toml_syntax_error(path: Path, source: str, exc: tomllib.TOMLDecodeError) -> str:
    """One line: `FILE:LINE:COL: message`."""
    text = str(exc)
    m = _TOML_AT.match(text)
    if m:
        return f"{path}:{m['line']}:{m['col']}: {m['msg']}"
    m = _TOML_EOF.match(text)
    lines = source.splitlines() or [""]
    if m:
        return f"{path}:{len(lines)}:{len(lines[-1]) + 1}: {m['msg']}"
    return f"{path}:1:1: {text}"


# --- key paths ---------------------------------------------------------------------------------------


def render_loc(loc: tuple[Any, ...], data: Any) -> str:
    """Render a pydantic location as `judges[1].max_concurrency`, skipping union-member tags."""
    out = ""
    node = data
    for part in loc:
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            out += f"[{part}]"
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict) and part in node:
            out += f".{part}" if out else part
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict) and not _is_tag(part):
            # a missing key: still part of the path
            out += f".{part}" if out else part
            node = None
        # else: a union tag such as 'str' or 'FileRef' or 'function-after[...]': not a key
    return out


def _is_tag(part: str) -> bool:
    return (
        part in {"str", "int", "float", "bool", "FileRef", "none"}
        or "[" in part
        or part.startswith("function")
    )


_TABLE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_ARRAY = re.compile(r"^\s*\[\[\s*([^\[\]]+?)\s*\]\]\s*(#.*)?$")
_KEY = re.compile(
    r"^\s*((?:[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*'))*)\s*="
)


def _split_dotted(name: str) -> list[str]:
    parts = re.findall(r"\"[^\"]*\"|'[^']*'|[^.\s]+", name)
    return [p[1:-1] if p[:1] in "\"'" else p for p in parts]


def locate(source: str, keypath: str) -> int | None:
    """The line of a TOML document that best matches a key path (longest matching prefix)."""
    counts: dict[str, int] = {}
    table: str = ""
    best_line: int | None = None
    best_len = -1
    in_multiline: str | None = None

    def consider(path: str, lineno: int) -> None:
        nonlocal best_line, best_len
        if not path:
            return
        matches = keypath == path or (keypath.startswith(path) and keypath[len(path)] in ".[")
        if matches and len(path) > best_len:
            best_line, best_len = lineno, len(path)

    for lineno, line in enumerate(source.splitlines(), start=1):
        if in_multiline:
            if line.count(in_multiline) % 2 == 1:
                in_multiline = None
            continue
        m = _ARRAY.match(line)
        if m:
            parts = _split_dotted(m[1])
            name = ".".join(parts)
            counts[name] = counts.get(name, 0) + 1
            table = _render_table(parts, counts)
            consider(table, lineno)
            continue
        m = _TABLE.match(line)
        if m:
            table = _render_table(_split_dotted(m[1]), counts)
            consider(table, lineno)
            continue
        m = _KEY.match(line)
        if m:
            key = ".".join(_split_dotted(m[1]))
            consider(f"{table}.{key}" if table else key, lineno)
            rest = line[m.end() :]
            for quote in ('"""', "'''"):
                if rest.count(quote) % 2 == 1:
                    in_multiline = quote
    return best_line


def _render_table(parts: list[str], counts: dict[str, int]) -> str:
    out = ""
    prefix: list[str] = []
    for part in parts:
        prefix.append(part)
        out += f".{part}" if out else part
        n = counts.get(".".join(prefix))
        if n:
            out += f"[{n - 1}]"
    return out


# --- valid keys, for suggestions ------------------------------------------------------------------------


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, list, typing.Annotated):
        for arg in typing.get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    if origin is dict:
        args = typing.get_args(annotation)
        return _model_in(args[1]) if len(args) == 2 else None
    return None


def valid_keys(root: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the model accepts at the parent of `loc` (loc's last element is the offending key)."""
    model: type[BaseModel] | None = root
    dict_value_expected = False
    for part in loc[:-1]:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        if dict_value_expected:
            dict_value_expected = False
            continue
        field = model.model_fields.get(part)
        if field is None:
            continue  # union tag
        dict_value_expected = typing.get_origin(field.annotation) is dict
        model = _model_in(field.annotation)
    return sorted(model.model_fields) if model is not None else []


# --- messages ---------------------------------------------------------------------------------------------

_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "a table",
    "list_type": "an array",
    "model_type": "a table",
    "model_attributes_type": "a table",
}


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _closest_literal(err: ErrorDetails) -> str:
    """`; did you mean 'graded'?` for a mistyped choice (`scale = "grade"`), or nothing."""
    given = err.get("input")
    if not isinstance(given, str):
        return ""
    choices = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
    close = difflib.get_close_matches(given, choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


# a whole-file check's message that starts with the key it concerns (`ranking.anchor.contestant: ...`)
_KEY_FIRST = re.compile(r"([A-Za-z_][\w.\[\]]*): (.+)", re.DOTALL)


def _message(err: ErrorDetails, root: type[BaseModel]) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        key = str(err["loc"][-1])
        close = difflib.get_close_matches(key, valid_keys(root, tuple(err["loc"])), n=1, cutoff=0.5)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return f"unknown key '{key}'{hint}"
    if kind == "greater_than_equal":
        return f"must be ≥ {_num(ctx.get('ge'))}"
    if kind == "greater_than":
        return f"must be > {_num(ctx.get('gt'))}"
    if kind == "less_than_equal":
        return f"must be ≤ {_num(ctx.get('le'))}"
    if kind == "less_than":
        return f"must be < {_num(ctx.get('lt'))}"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')} (got {err.get('input')!r}){_closest_literal(err)}"
    if kind in ("too_short", "string_too_short"):
        if kind == "string_too_short":
            return "must not be empty"
        return f"needs at least {ctx.get('min_length')} item(s)"
    if kind in _TYPE_NAMES:
        return f"expected {_TYPE_NAMES[kind]}, got {type(err.get('input')).__name__} {err.get('input')!r}"[
            :200
        ]
    if kind == "value_error":
        msg = str(err.get("msg", ""))
        return msg.removeprefix("Value error, ")
    return str(err.get("msg", kind))


def _items(
    err: ErrorDetails, data: Any, root: type[BaseModel], union_paths: set[str]
) -> list[tuple[str, str]]:
    """(key path, message) pairs for one pydantic error (a cross-check error may carry several lines)."""
    loc = tuple(err["loc"])
    key = render_loc(loc, data)
    if any(p == "FileRef" or p == "str" for p in loc if isinstance(p, str)):
        # a text-or-file value with the wrong shape: one message for both union members
        if key in union_paths:
            return []
        union_paths.add(key)
        if err["type"] == "extra_forbidden":
            key = render_loc(loc[:-1], data)
        return [(key, 'expected text or { file = "relative/path" }')]
    msg = _message(err, root)
    if err["type"] == "value_error" and not key and "\n" not in msg:
        # a whole-file check naming its key: found at that key's line
        keyed = _KEY_FIRST.fullmatch(msg)
        return [(keyed[1], keyed[2]) if keyed else (key, msg)]
    if err["type"] != "value_error" or "\n" not in msg:
        return [(key, msg)]
    items = []
    for line in msg.splitlines():
        sub, _, rest = line.partition(": ")
        items.append((sub, rest) if rest else (key, line))
    return items


def format_validation_errors(
    exc: ValidationError, source: str, data: Any, root: type[BaseModel], path: Path | None = None
) -> list[str]:
    """Every problem as `line N: key.path: what was expected` (`root`: the file's model), deduplicated, in file
    order."""
    seen: set[str] = set()
    out: list[tuple[int, str]] = []
    union_paths: set[str] = set()
    for err in exc.errors():
        for k, m in _items(err, data, root, union_paths):
            text = f"{k}: {m}" if k else m
            if text not in seen:
                seen.add(text)
                # an array of tables (`contestants: needs at least 2`) is found at its first [[table]]
                line = (locate(source, k) or locate(source, f"{k}[0]")) if k else None
                out.append((line or 0, text))
    out.sort(key=lambda x: x[0])
    prefix = f"{path}:" if path else "line "
    return [
        f"{prefix}{line}: {text}" if line else (f"{path}: {text}" if path else text) for line, text in out
    ]
