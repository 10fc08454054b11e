"""The native Elo kernels of this process (`elotui.rating.native.kernels`): loaded once, on first use, or compiled
ahead in a background thread where this machine has not compiled them yet (`warm_kernels`)."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from elotui.rating.native.kernels import Kernels

_KERNELS: dict[str, Any] = {}
_COMPILING = threading.Lock()


def jit_kernels() -> Kernels | None:
    """The native kernels (loaded once per process, on first use; a caller that comes meanwhile waits for them),
    or None: without llvmlite, when the compilation fails, or with ELOTUI_NO_JIT=1 (forcing the numpy path)."""
    if "state" in _KERNELS:
        return _KERNELS.get("kernels")
    with _COMPILING:
        if "state" in _KERNELS:
            return _KERNELS.get("kernels")
        if os.environ.get("ELOTUI_NO_JIT"):
            _KERNELS["state"] = "off"
            return None
        try:
            from elotui.rating.native.kernels import Kernels as Compiled

            _KERNELS["kernels"] = Compiled()
            _KERNELS["state"] = "ok"
        except (ImportError, OSError, RuntimeError):  # no llvmlite, or it cannot compile here: numpy path
            _KERNELS["state"] = "unavailable"
    return _KERNELS.get("kernels")


def warm_kernels() -> None:
    """Have the native kernels ready before a command that rates by Elo needs them. Where this machine has not
    compiled them yet, a background thread compiles them (~0.2 s, mostly in LLVM, without the GIL) while the command
    reads its store; their first user waits for it (jit_kernels). Where they are on disk (`compiled_before`),
    their first user loads them (~3 ms a module): a thread importing llvmlite meanwhile would only take turns with
    the reading at the GIL (~0.05 s later to the first kernel at 10^6 verdicts). Not a daemon: a process that ends
    sooner waits for the compile instead of unloading LLVM under it (which crashes the process)."""
    if "state" in _KERNELS or os.environ.get("ELOTUI_NO_JIT"):
        return
    # without llvmlite, or where it cannot compile, jit_kernels finds out on first use
    try:
        from elotui.rating.native.kernels import compiled_before

        if compiled_before():
            return
    except (ImportError, OSError, RuntimeError):
        return
    threading.Thread(target=_compile_narrowest, name="elotui-elo-compile").start()


def _compile_narrowest() -> None:
    """The kernels, with the 16-bit words most tournaments' games fit (a wider width compiles on first use)."""
    kernels = jit_kernels()
    if kernels is not None:
        kernels.order_functions(np.dtype(np.uint16))
