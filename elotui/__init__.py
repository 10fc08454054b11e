"""elotui: run and watch LLM-as-a-judge pairwise tournaments."""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """`elotui.__version__`, looked up on first use (importlib.metadata costs ~20 ms of every command's start)."""
    if name != "__version__":
        raise AttributeError(f"module 'elotui' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("elotui")
    except PackageNotFoundError:  # running from a source tree that is not installed
        found = "0.0.0+source"
    globals()["__version__"] = found
    return found
