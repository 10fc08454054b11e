"""The Elo kernels' inlined exp (elotui.rating.native.exp_ir) is the C library's exp: bit for bit where the library is
glibc >= 2.28 (the same algorithm; the FMA variant on processors with FMA, as glibc picks), within one ulp
elsewhere; special arguments go to the library itself."""

from __future__ import annotations

import ctypes
import math
import platform

import numpy as np
import pytest

pytest.importorskip("llvmlite")
from elotui.rating.native.elo_ir import module_ir
from elotui.rating.native.exp_ir import fexp_ir, table
from elotui.rating.native.kernels import compile_ir, host_fma

BULK = """
define void @bulk(ptr %x, ptr %y, i64 %n) {
entry:
  %none = icmp sle i64 %n, 0
  br i1 %none, label %done, label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px
  %r = call double @fexp(double %v)
  %py = getelementptr inbounds double, ptr %y, i64 %i
  store double %r, ptr %py
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
attributes #0 = { alwaysinline }
"""
DECLARE = "declare double @llvm.exp.f64(double)\ndeclare double @llvm.fma.f64(double, double, double)\n"


def compiled(fma: bool):  # type: ignore[no-untyped-def]
    """(engine, bulk): fexp over an array, compiled as the kernels are (elo_kernels.compile_ir)."""
    engine = compile_ir(DECLARE + fexp_ir(fma=fma) + BULK)
    bulk = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(
        engine.get_function_address("bulk")
    )
    return engine, bulk


def arguments() -> np.ndarray:
    rng = np.random.default_rng(5)
    special = [
        0.0,
        -0.0,
        1e-300,
        -1e-300,
        2.0**-54,
        -(2.0**-54),
        2.0**-55,
        511.99,
        512.0,
        -512.0,
        709.7,
        710.0,
    ]
    special += [-745.0, -746.0, math.inf, -math.inf, math.nan, 1.0, -1.0, math.log(2) / 256]
    return np.concatenate(
        [
            rng.uniform(-12, 12, 150_000),
            rng.uniform(-0.01, 0.01, 20_000),
            rng.uniform(-700, 700, 20_000),
            special,
        ]
    )


def library(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    for i, v in enumerate(x.tolist()):
        try:
            out[i] = math.exp(v)
        except OverflowError:
            out[i] = math.inf
    return out


def test_the_table_is_the_librarys() -> None:
    t = table()  # first entries of glibc's __exp_data.tab (sysdeps/ieee754/dbl-64/e_exp_data.c)
    assert [hex(v) for v in t[:6]] == [
        "0x0",
        "0x3ff0000000000000",
        "0x3c9b3b4f1a88bf6e",
        "0x3feff63da9fb3335",
        "0xbc7160139cd8dc5d",
        "0x3fefec9a3e778061",
    ]


@pytest.mark.parametrize("fma", [True, False])
def test_both_variants_compile_into_the_kernels(fma: bool) -> None:
    assert compile_ir(module_ir(fma=fma)).get_function_address("elo_order64")


def test_fexp_is_the_library_exp() -> None:
    x = arguments()
    want = library(x)
    _engine, bulk = compiled(host_fma())  # the variant the kernels use on this processor
    got = np.empty_like(x)
    bulk(x.ctypes.data, got.ctypes.data, len(x))
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    ulps = np.abs(got[~nan].view(np.int64) - want[~nan].view(np.int64))
    libc, version = platform.libc_ver()
    if libc == "glibc" and tuple(int(p) for p in version.split(".")[:2]) >= (2, 28):
        assert int(ulps.max()) == 0  # bit for bit
    else:
        assert int(ulps.max()) <= 1


def test_the_table_leaves_the_callers_decimal_context_alone() -> None:
    import decimal

    table.cache_clear()
    before = decimal.getcontext().prec
    decimal.getcontext().prec = 12
    try:
        first = table()
        assert decimal.getcontext().prec == 12  # computed in a local 60-digit context
        assert table() is first  # computed once
    finally:
        decimal.getcontext().prec = before
