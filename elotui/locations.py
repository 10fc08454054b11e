"""Where elotui keeps its files. `ELOTUI_HOME` relocates every directory (for tests and for users)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from elotui.errors import UserError

APP_NAME = "elotui"


def _home() -> Path | None:
    value = os.environ.get("ELOTUI_HOME")
    return Path(value).expanduser() if value else None


def _ensure(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"{path}: cannot create elotui's folder ({exc.strerror}); set ELOTUI_HOME to a writable folder"
        ) from None
    return path


def data_dir() -> Path:
    """Verdict stores live here, one SQLite database per tournament."""
    home = _home()
    return _ensure(home / "data" if home else Path(platformdirs.user_data_dir(APP_NAME)))


def config_dir() -> Path:
    """User configuration and user themes (`themes/` below it)."""
    home = _home()
    return _ensure(home / "config" if home else Path(platformdirs.user_config_dir(APP_NAME)))


def cache_dir() -> Path:
    home = _home()
    return _ensure(home / "cache" if home else Path(platformdirs.user_cache_dir(APP_NAME)))


def user_themes_dir() -> Path:
    return _ensure(config_dir() / "themes")


def stores_dir() -> Path:
    return _ensure(data_dir() / "stores")
