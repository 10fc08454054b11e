"""A small, independent reader for the Cypher the graph exporter writes: string literals (every escape the Cypher
manual lists), literal values (maps, lists, numbers, null, booleans) and a script split into statements.

It is written from the Cypher grammar, not from the exporter's code, so the tests can read the script back.
"""

from __future__ import annotations

import re
from typing import Any

_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
_NUMBER = re.compile(r"-?(?:\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CypherSyntaxError(ValueError):
    pass


class LiteralReader:
    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos

    def _skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def _peek(self) -> str:
        if self.pos >= len(self.text):
            raise CypherSyntaxError("unexpected end of input")
        return self.text[self.pos]

    def _expect(self, ch: str) -> None:
        self._skip_ws()
        if self._peek() != ch:
            raise CypherSyntaxError(f"expected {ch!r} at {self.pos}, found {self._peek()!r}")
        self.pos += 1

    def string(self) -> str:
        quote = self._peek()
        if quote not in "'\"":
            raise CypherSyntaxError(f"not a string at {self.pos}")
        self.pos += 1
        units: list[str] = []
        while True:
            ch = self._peek()
            if ch == quote:
                self.pos += 1
                break
            if ch in "\n\r":
                raise CypherSyntaxError("raw line break inside a string literal")
            if ch == "\\":
                esc = self.text[self.pos + 1 : self.pos + 2]
                if esc in _ESCAPES:
                    units.append(_ESCAPES[esc])
                    self.pos += 2
                elif esc in ("u", "U"):
                    width = 4 if esc == "u" else 8
                    digits = self.text[self.pos + 2 : self.pos + 2 + width]
                    if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                        raise CypherSyntaxError(f"bad \\{esc} escape at {self.pos}")
                    units.append(chr(int(digits, 16)))
                    self.pos += 2 + width
                else:
                    raise CypherSyntaxError(f"unknown escape \\{esc} at {self.pos}")
                continue
            units.append(ch)
            self.pos += 1
        # \uD83D\uDE00 (UTF-16 surrogate pairs) form one character, as in Neo4j's Java strings
        return "".join(units).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")

    def value(self) -> Any:
        self._skip_ws()
        ch = self._peek()
        if ch in "'\"":
            return self.string()
        if ch == "{":
            return self.map()
        if ch == "[":
            return self.list()
        m = _NUMBER.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            token = m.group()
            return float(token) if any(c in token for c in ".eE") else int(token)
        m = _IDENT.match(self.text, self.pos)
        if m and m.group() in ("null", "true", "false"):
            self.pos = m.end()
            return {"null": None, "true": True, "false": False}[m.group()]
        raise CypherSyntaxError(f"no literal at {self.pos}: {self.text[self.pos : self.pos + 20]!r}")

    def key(self) -> str:
        self._skip_ws()
        if self._peek() == "`":
            end = self.pos + 1
            out = []
            while True:
                if self.text[end] == "`":
                    if self.text[end + 1 : end + 2] == "`":
                        out.append("`")
                        end += 2
                        continue
                    break
                out.append(self.text[end])
                end += 1
            self.pos = end + 1
            return "".join(out)
        m = _IDENT.match(self.text, self.pos)
        if not m:
            raise CypherSyntaxError(f"no map key at {self.pos}")
        self.pos = m.end()
        return m.group()

    def map(self) -> dict[str, Any]:
        self._expect("{")
        out: dict[str, Any] = {}
        self._skip_ws()
        if self._peek() == "}":
            self.pos += 1
            return out
        while True:
            k = self.key()
            self._expect(":")
            out[k] = self.value()
            self._skip_ws()
            if self._peek() == ",":
                self.pos += 1
                continue
            self._expect("}")
            return out

    def list(self) -> list[Any]:
        self._expect("[")
        out: list[Any] = []
        self._skip_ws()
        if self._peek() == "]":
            self.pos += 1
            return out
        while True:
            out.append(self.value())
            self._skip_ws()
            if self._peek() == ",":
                self.pos += 1
                continue
            self._expect("]")
            return out


def read_string_literal(literal: str) -> str:
    reader = LiteralReader(literal)
    value = reader.string()
    if reader.pos != len(literal):
        raise CypherSyntaxError("text after the string literal")
    return value


def split_script(script: str) -> list[tuple[str, str]]:
    """Statements of a script as (statement text, its code with every string literal and comment blanked out)."""
    statements: list[tuple[str, str]] = []
    start = 0
    code: list[str] = []
    i = 0
    while i < len(script):
        ch = script[i]
        if ch in "'\"":
            reader = LiteralReader(script, i)
            reader.string()
            code.append("'…'")
            i = reader.pos
            continue
        if script.startswith("//", i):
            end = script.find("\n", i)
            i = len(script) if end < 0 else end
            continue
        if ch == ";":
            statements.append((script[start:i].strip(), "".join(code).strip()))
            start, code = i + 1, []
            i += 1
            continue
        code.append(ch)
        i += 1
    rest = script[start:].strip()
    leftover = "".join(code).strip()
    if rest and leftover:
        statements.append((rest, leftover))
    return statements
