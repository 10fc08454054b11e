"""Turn elotui theme files (`elotui.themes`) into Textual themes and register them on an app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import Theme

from elotui.themes import APP_VARIABLE_DEFAULTS, DEFAULT_THEME, ThemeError, ThemeSpec, load_themes


def to_textual(spec: ThemeSpec) -> Theme:
    """A Textual theme; raises ThemeError if a colour does not parse."""
    for key, value in {**spec.colors, **spec.variables}.items():
        try:
            Color.parse(value)
        except ColorParseError:
            where = spec.source or spec.name
            raise ThemeError(f"{where}: {key} = {value!r} is not a colour") from None
    c = spec.colors  # keys are among themes.BASE_COLORS; primary is required (checked when the file was read)
    return Theme(
        name=spec.name,
        dark=spec.dark,
        variables=spec.app_variables(),
        primary=c["primary"],
        secondary=c.get("secondary"),
        warning=c.get("warning"),
        error=c.get("error"),
        success=c.get("success"),
        accent=c.get("accent"),
        foreground=c.get("foreground"),
        background=c.get("background"),
        surface=c.get("surface"),
        panel=c.get("panel"),
        boost=c.get("boost"),
    )


def register_themes(app: App[Any], user_dir: Path | None) -> tuple[list[str], list[str]]:
    """Register bundled and user themes. Returns (theme names, problems to report)."""
    specs, problems = load_themes(user_dir)
    names: list[str] = []
    for spec in specs.values():
        try:
            app.register_theme(to_textual(spec))
        except ThemeError as exc:
            problems.append(str(exc))
            continue
        names.append(spec.name)
    return names, problems


def variable_defaults() -> dict[str, str]:
    return dict(APP_VARIABLE_DEFAULTS)


__all__ = ["DEFAULT_THEME", "register_themes", "to_textual", "variable_defaults"]
