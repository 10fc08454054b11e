"""Theme colours for renderables built in Python (table cells, grids): the active theme's app variables, with
elotui's defaults for themes that do not define them (e.g. Textual's built-in themes)."""

from __future__ import annotations

from textual.app import App

from elotui.themes import APP_VARIABLE_DEFAULTS


def theme_colour(app: App[object], name: str) -> str:
    value = app.current_theme.variables.get(name)
    return value or APP_VARIABLE_DEFAULTS[name]


def band_colour(app: App[object], band: str | None) -> str:
    return theme_colour(
        app, {"practically tied": "band-tied", "moderate": "band-moderate"}.get(band or "", "band-strong")
    )


def blend(low: str, high: str, share: float) -> str:
    """A hex colour between `low` (share 0) and `high` (share 1)."""
    from textual.color import Color

    share = min(max(share, 0.0), 1.0)
    return Color.parse(low).blend(Color.parse(high), share).hex
