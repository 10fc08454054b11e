"""Native Elo kernels for `elotui.rating.elo`, compiled at run time from LLVM IR with llvmlite.

Why not numba: for the `elotui export` process the kernel itself takes ~0.1 s for 100 orders of 100k games, but
numba costs ~0.5 s before it runs anything (importing numba, which imports scipy.linalg, then initialising its
CPU target even when the machine code comes from its on-disk cache). llvmlite (numba's own LLVM binding) needs
~0.04 s to import and ~0.01 s to compile the IR below, with no on-disk cache to go stale. The IR is small and
does exactly what the earlier numba kernel did (same splitmix64 shuffle, same floating-point operations in the same
order, exp from the C library through `llvm.exp.f64`, no fast-math), so both give bit-identical ratings.

Functions (C ABI, called through ctypes, which releases the GIL during the call):
- `elo_play(a, b, s, keys, n_orders, n_games, n, k, init, out, scratch)`: for each stream key p, a Fisher–Yates
  shuffle of the games driven by splitmix64 (draw i = mix(key_p + i * golden), j = ((draw >> 32) * (i + 1)) >> 32,
  the orders `elo.permutation_orders` draws), then Elo over the games in that order into row p of `out`
  (n_orders x n, float64). `a`, `b`: int32 contestant codes; `s`: float64 score of `a`; `keys`: uint64;
  `scratch`: int64, n_games long.
- `elo_online(a, b, s, n_games, n, k, init, out)`: Elo once over the games in the given order into `out` (n).

One update: d = k * (s - 1 / (1 + exp(C * (r[b] - r[a])))), r[a] += d, r[b] -= d, with C = ln(10) / 400.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import os
import struct
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

GOLDEN = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB
C = math.log(10.0) / 400.0
PARALLEL_MIN_UPDATES = 1_000_000  # below this many game updates per thread, one thread is faster


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _i64(value: int) -> str:
    """An unsigned 64-bit constant as LLVM's signed decimal literal."""
    return str(value - (1 << 64) if value >= 1 << 63 else value)


def _f64(value: float) -> str:
    """A double as LLVM's exact hexadecimal literal."""
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


IR = f"""
declare double @llvm.exp.f64(double)

define internal i64 @mix(i64 %z) #0 {{
  %a1 = lshr i64 %z, 30
  %a2 = xor i64 %z, %a1
  %a3 = mul i64 %a2, {_i64(M1)}
  %b1 = lshr i64 %a3, 27
  %b2 = xor i64 %a3, %b1
  %b3 = mul i64 %b2, {_i64(M2)}
  %c1 = lshr i64 %b3, 31
  %c2 = xor i64 %b3, %c1
  ret i64 %c2
}}

define internal void @fill(ptr %r, i64 %n, double %v) #0 {{
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %p = getelementptr inbounds double, ptr %r, i64 %i
  store double %v, ptr %p
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}

define internal void @step(ptr %a, ptr %b, ptr %s, i64 %g, double %k, ptr %r) #0 {{
  %pa = getelementptr inbounds i32, ptr %a, i64 %g
  %xa = load i32, ptr %pa
  %x = sext i32 %xa to i64
  %pb = getelementptr inbounds i32, ptr %b, i64 %g
  %yb = load i32, ptr %pb
  %y = sext i32 %yb to i64
  %ps = getelementptr inbounds double, ptr %s, i64 %g
  %sg = load double, ptr %ps
  %prx = getelementptr inbounds double, ptr %r, i64 %x
  %pry = getelementptr inbounds double, ptr %r, i64 %y
  %rx = load double, ptr %prx
  %ry = load double, ptr %pry
  %diff = fsub double %ry, %rx
  %arg = fmul double {_f64(C)}, %diff
  %e = call double @llvm.exp.f64(double %arg)
  %den = fadd double 1.0, %e
  %expect = fdiv double 1.0, %den
  %t = fsub double %sg, %expect
  %d = fmul double %k, %t
  %rx2 = load double, ptr %prx
  %nx = fadd double %rx2, %d
  store double %nx, ptr %prx
  %ry2 = load double, ptr %pry
  %ny = fsub double %ry2, %d
  store double %ny, ptr %pry
  ret void
}}

define void @elo_online(ptr %a, ptr %b, ptr %s, i64 %n_games, i64 %n, double %k, double %init, ptr %r) {{
entry:
  call void @fill(ptr %r, i64 %n, double %init)
  %empty = icmp sle i64 %n_games, 0
  br i1 %empty, label %done, label %loop
loop:
  %g = phi i64 [0, %entry], [%g1, %loop]
  call void @step(ptr %a, ptr %b, ptr %s, i64 %g, double %k, ptr %r)
  %g1 = add i64 %g, 1
  %more = icmp slt i64 %g1, %n_games
  br i1 %more, label %loop, label %done
done:
  ret void
}}

define void @elo_play(ptr %a, ptr %b, ptr %s, ptr %keys, i64 %n_orders, i64 %n_games, i64 %n, double %k,
                      double %init, ptr %out, ptr %order) {{
entry:
  %none = icmp sle i64 %n_orders, 0
  br i1 %none, label %done, label %order_loop
order_loop:
  %p = phi i64 [0, %entry], [%p1, %order_end]
  %roff = mul i64 %p, %n
  %r = getelementptr inbounds double, ptr %out, i64 %roff
  call void @fill(ptr %r, i64 %n, double %init)
  %has = icmp sgt i64 %n_games, 0
  br i1 %has, label %id_loop, label %order_end
id_loop:
  %t = phi i64 [0, %order_loop], [%t1, %id_loop]
  %pt = getelementptr inbounds i64, ptr %order, i64 %t
  store i64 %t, ptr %pt
  %t1 = add i64 %t, 1
  %idmore = icmp slt i64 %t1, %n_games
  br i1 %idmore, label %id_loop, label %shuffle_head
shuffle_head:
  %pk = getelementptr inbounds i64, ptr %keys, i64 %p
  %key = load i64, ptr %pk
  %last = sub i64 %n_games, 1
  %any = icmp sgt i64 %last, 0
  br i1 %any, label %shuffle, label %play_loop
shuffle:
  %i = phi i64 [%last, %shuffle_head], [%i1, %shuffle]
  %gi = mul i64 %i, {_i64(GOLDEN)}
  %z = add i64 %key, %gi
  %draw = call i64 @mix(i64 %z)
  %hi = lshr i64 %draw, 32
  %ip1 = add i64 %i, 1
  %prod = mul i64 %hi, %ip1
  %j = lshr i64 %prod, 32
  %pi = getelementptr inbounds i64, ptr %order, i64 %i
  %pj = getelementptr inbounds i64, ptr %order, i64 %j
  %held = load i64, ptr %pi
  %oj = load i64, ptr %pj
  store i64 %oj, ptr %pi
  store i64 %held, ptr %pj
  %i1 = sub i64 %i, 1
  %smore = icmp sgt i64 %i1, 0
  br i1 %smore, label %shuffle, label %play_loop
play_loop:
  %u = phi i64 [0, %shuffle_head], [0, %shuffle], [%u1, %play_loop]
  %pu = getelementptr inbounds i64, ptr %order, i64 %u
  %g = load i64, ptr %pu
  call void @step(ptr %a, ptr %b, ptr %s, i64 %g, double %k, ptr %r)
  %u1 = add i64 %u, 1
  %pmore = icmp slt i64 %u1, %n_games
  br i1 %pmore, label %play_loop, label %order_end
order_end:
  %p1 = add i64 %p, 1
  %omore = icmp slt i64 %p1, %n_orders
  br i1 %omore, label %order_loop, label %done
done:
  ret void
}}

attributes #0 = {{ alwaysinline }}
"""

_P = ctypes.c_void_p
_I = ctypes.c_int64
_D = ctypes.c_double


class Kernels:
    """The compiled functions (the execution engine must outlive them: it owns the machine code)."""

    def __init__(self) -> None:
        import llvmlite.binding as llvm

        try:
            llvm.initialize()  # needed by llvmlite < 0.45; later versions initialise themselves and refuse it
        except RuntimeError:
            pass
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        module = llvm.parse_assembly(IR)
        module.verify()
        machine = llvm.Target.from_default_triple().create_target_machine(opt=2)
        self._engine = llvm.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        address = self._engine.get_function_address
        self._play: Callable[..., None] = ctypes.CFUNCTYPE(None, _P, _P, _P, _P, _I, _I, _I, _D, _D, _P, _P)(
            address("elo_play")
        )
        self._online: Callable[..., None] = ctypes.CFUNCTYPE(None, _P, _P, _P, _I, _I, _D, _D, _P)(
            address("elo_online")
        )

    def play(
        self,
        a: NDArray[np.integer],
        b: NDArray[np.integer],
        s: NDArray[np.floating],
        keys: NDArray[np.uint64],
        n: int,
        k: float,
        init: float,
    ) -> NDArray[np.float64]:
        """Final ratings of every order: shape (len(keys), n)."""
        a32, b32, s64 = _games_arrays(a, b, s, n)
        keys64 = np.ascontiguousarray(keys, dtype=np.uint64)
        out = np.empty((len(keys64), n), dtype=np.float64)

        def run(lo: int, hi: int) -> None:  # orders lo..hi-1 into out[lo:hi]; ctypes drops the GIL meanwhile
            scratch = np.empty(max(len(a32), 1), dtype=np.int64)
            self._play(
                a32.ctypes.data,
                b32.ctypes.data,
                s64.ctypes.data,
                keys64[lo:hi].ctypes.data,
                hi - lo,
                len(a32),
                n,
                float(k),
                float(init),
                out[lo:hi].ctypes.data,
                scratch.ctypes.data,
            )

        # The orders are independent: split them over the cores this process may use (each order is played
        # by one thread, whole, so the result does not depend on the split).
        parts = min(_cores(), len(keys64), max(1, len(a32) * len(keys64) // PARALLEL_MIN_UPDATES))
        bounds = [len(keys64) * i // parts for i in range(parts + 1)]
        threads = [threading.Thread(target=run, args=(lo, hi)) for lo, hi in itertools.pairwise(bounds[1:])]
        for thread in threads:
            thread.start()
        run(bounds[0], bounds[1])
        for thread in threads:
            thread.join()
        return out

    def online(
        self,
        a: NDArray[np.integer],
        b: NDArray[np.integer],
        s: NDArray[np.floating],
        n: int,
        k: float,
        init: float,
    ) -> NDArray[np.float64]:
        """Final ratings after the games once, in the given order: shape (n,)."""
        a32, b32, s64 = _games_arrays(a, b, s, n)
        out = np.empty(n, dtype=np.float64)
        self._online(
            a32.ctypes.data,
            b32.ctypes.data,
            s64.ctypes.data,
            len(a32),
            n,
            float(k),
            float(init),
            out.ctypes.data,
        )
        return out

    def __getitem__(self, name: str) -> Any:  # kernels["play"] / kernels["online"], as before
        if name not in ("play", "online"):
            raise KeyError(name)
        return getattr(self, name)


def _games_arrays(
    a: NDArray[np.integer], b: NDArray[np.integer], s: NDArray[np.floating], n: int
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """Contiguous int32 / float64 copies (or views) of the games, with the codes checked: the kernel indexes
    the ratings with them, so an out-of-range code must never reach it."""
    a, b = np.asarray(a), np.asarray(b)
    if not (a.shape == b.shape == np.shape(s)) or a.ndim != 1:
        raise ValueError("a, b and s must be 1-d arrays of the same length")
    if len(a) and (min(int(a.min()), int(b.min())) < 0 or max(int(a.max()), int(b.max())) >= n):
        raise ValueError(f"contestant codes must lie in 0..{n - 1}")
    a32 = np.ascontiguousarray(a, dtype=np.int32)
    b32 = np.ascontiguousarray(b, dtype=np.int32)
    return a32, b32, np.ascontiguousarray(s, dtype=np.float64)
