"""The native Elo kernels' machine code, kept on disk by what it was made from (elotui.runtime.disk_cache, kind
`kernels`).

Compiling the kernels' IR for this processor takes LLVM ~0.2 s a module (the `online` function, then the order
functions of each word width), in every process that rates by Elo: a one-shot `elotui export` of a small
tournament is bound by it, and on a 2-core machine it competes with the store read of a large one. The object
code LLVM emits is a pure function of the IR, the processor's name and features, the target triple and the
LLVM and llvmlite versions, so it is kept in a file named by the SHA-256 of all of these: a file can never be
stale, only absent. Loading one takes ~3 ms. Loading it trusts the user's cache folder as the user's installed
packages are trusted.
"""

from __future__ import annotations

from collections.abc import Callable

from elotui.runtime import disk_cache

KIND = "kernels"


def cached_object(recipe: str, make: Callable[[], bytes]) -> bytes:
    """The object code for `recipe` (everything it is made from, as text): read from the cache, or made by
    `make` and kept there."""
    name = disk_cache.name_of(recipe, ".o")
    found = disk_cache.read(KIND, name)
    if found is not None:
        return found
    code = make()
    disk_cache.write(KIND, name, code)
    return code


def is_cached(recipe: str) -> bool:
    """Whether the object code for `recipe` is in the cache, whole (`cached_object` would read it, not make it)."""
    return disk_cache.read(KIND, disk_cache.name_of(recipe, ".o")) is not None
