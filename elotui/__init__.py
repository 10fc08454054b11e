"""elotui: run and watch LLM-as-a-judge pairwise tournaments."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("elotui")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
