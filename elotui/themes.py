"""Colour themes as plain data: bundled theme files (`themes/*.toml` in the source tree, `elotui/_themes` in a
wheel) and user theme files (`<config dir>/themes/*.toml` or `*.json`).

A theme file:

    name = "elotui-dark"
    dark = true
    [colors]            # Textual's base colours: primary (required), secondary, accent, foreground,
    primary = "#7aa2f7" # background, surface, panel, boost, warning, error, success
    [variables]         # elotui's own colours, used as $band-tied ... in the TUI's stylesheet
    band-tied = "#9aa5ce"

Only `elotui.tui` turns a `ThemeSpec` into a Textual theme; this module imports nothing from Textual.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import elotui
from elotui.errors import UserError
from elotui.tournament.user_files import lone_surrogate, may_hold_surrogate, read_text_file, surrogate_message

DEFAULT_THEME = "elotui-dark"
MAX_THEME_BYTES = 1 << 20  # a theme is a few hundred bytes
BASE_COLORS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "warning",
    "error",
    "success",
)
# elotui's app variables: every theme gets a value for each (missing ones fall back to APP_VARIABLE_DEFAULTS).
APP_VARIABLE_DEFAULTS: dict[str, str] = {
    "band-tied": "#8a8a8a",
    "band-moderate": "#d7a13b",
    "band-strong": "#4caf50",
    "verdict-first": "#5fa8d3",
    "verdict-second": "#e39b5b",
    "verdict-tie": "#a0a0a0",
    "verdict-invalid": "#d75f5f",
    "verdict-missing": "#606060",
    "heat-low": "#c0504d",
    "heat-mid": "#808080",
    "heat-high": "#4f9a5b",
    "label-simulated": "#c678dd",
    "label-replay": "#56b6c2",
}
_COLOR = re.compile(
    r"^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s]+\)|[a-z_]+( \d{1,3}%)?)$"
)


class ThemeError(ValueError):
    """A theme file that cannot be used (the message names the file and the problem)."""


@dataclass(frozen=True)
class ThemeSpec:
    name: str
    dark: bool
    colors: dict[str, str]
    variables: dict[str, str] = field(default_factory=dict)
    source: Path | None = None

    def app_variables(self) -> dict[str, str]:
        """Every app variable, with defaults for the ones the file leaves out."""
        return {**APP_VARIABLE_DEFAULTS, **self.variables}


def bundled_themes_dir() -> Path | None:
    """The bundled theme folder: `elotui/_themes` in an installed wheel, else `<repo>/themes`."""
    package = Path(elotui.__file__).resolve().parent
    for candidate in (package / "_themes", package.parent / "themes"):
        if candidate.is_dir():
            return candidate
    return None


def _check_colours(where: str, section: str, table: Any, allowed: Sequence[str]) -> None:
    if not isinstance(table, dict):
        raise ThemeError(f"{where}: [{section}] must be a table")
    what = "a theme colour" if section == "colors" else "an elotui variable"
    for key, value in table.items():
        if key not in allowed:
            raise ThemeError(f"{where}: {section}.{key} is not {what} (use one of {', '.join(allowed)})")
        if not isinstance(value, str) or not _COLOR.match(value.strip()):
            raise ThemeError(f"{where}: {section}.{key} = {value!r} is not a colour")


def parse_theme(data: Any, source: Path | None = None) -> ThemeSpec:
    where = str(source) if source else "theme"
    if not isinstance(data, dict):
        raise ThemeError(f"{where}: expected a table of settings")
    unknown = sorted(set(data) - {"name", "dark", "colors", "variables"})
    if unknown:
        raise ThemeError(
            f"{where}: unknown key(s) {', '.join(unknown)} (expected name, dark, colors, variables)"
        )
    name = data.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise ThemeError(f"{where}: `name` must be a word of letters, digits, '-', '_' or '.'")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"{where}: `dark` must be true or false")
    colors = data.get("colors", {})
    variables = data.get("variables", {})
    _check_colours(where, "colors", colors, BASE_COLORS)
    _check_colours(where, "variables", variables, list(APP_VARIABLE_DEFAULTS))
    if "primary" not in colors:
        raise ThemeError(f"{where}: colors.primary is required")
    return ThemeSpec(
        name=name,
        dark=dark,
        colors={k: v.strip() for k, v in colors.items()},
        variables={k: v.strip() for k, v in variables.items()},
        source=source,
    )


def load_theme_file(path: Path) -> ThemeSpec:
    """Read one `.toml` or `.json` theme file. Raises ThemeError naming the file."""
    try:
        text = read_text_file(path, MAX_THEME_BYTES)
    except UserError as exc:
        raise ThemeError(str(exc)) from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ThemeError(
            f"{path}: not valid {'JSON' if path.suffix == '.json' else 'TOML'} ({exc})"
        ) from None
    except RecursionError:
        raise ThemeError(f"{path}: nested too deeply to be a theme") from None
    if may_hold_surrogate(text) and (escape := lone_surrogate(data)) is not None:
        raise ThemeError(f"{path}: {surrogate_message(escape)}")
    return parse_theme(data, path)


def theme_files(folder: Path | None) -> list[Path]:
    if folder is None or not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in (".toml", ".json") and p.is_file())


def load_themes(user_dir: Path | None = None) -> tuple[dict[str, ThemeSpec], list[str]]:
    """Bundled themes, then user themes (a user theme may replace a bundled one of the same name).

    Returns the themes by name and one message per file that could not be used.
    """
    themes: dict[str, ThemeSpec] = {}
    problems: list[str] = []
    for folder in (bundled_themes_dir(), user_dir):
        for path in theme_files(folder):
            try:
                spec = load_theme_file(path)
            except ThemeError as exc:
                problems.append(str(exc))
                continue
            themes[spec.name] = spec
    return themes, problems
