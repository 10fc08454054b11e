"""`@fexp`, exp(x) in LLVM IR for the Elo kernels: the C library's own algorithm inlined into the update loop.

The Elo update spends half its time in the call to exp. glibc's exp (since 2.28; the algorithm of ARM's
optimized-routines, Szabolcs Nagy) is a table of 2^(k/128) and a degree-5 polynomial: written out here, the same
operations in the same order, so that the result is the library's. x86-64 glibc runs a variant built with FMA on
processors that have it (the compiler fuses each a*b+c of the source); `fexp_ir(fma=True)` fuses the same ones,
`fma=False` none. Arguments outside 2^-54 <= |x| < 512 (tiny, huge, infinite, NaN) go to the library itself, as
the library's own special-case branch would. `tests/rating/test_exp_ir.py` checks it against the library.
"""

from __future__ import annotations

import struct
from decimal import Decimal, getcontext

N = 128  # table entries: 2^(k/N)
INV_LN2_N = float.fromhex("0x1.71547652b82fep0") * N
SHIFT = float.fromhex("0x1.8p52")  # adding it rounds to an integer (kept in the low bits)
NEG_LN2_HI_N = float.fromhex("-0x1.62e42fefa0000p-8")
NEG_LN2_LO_N = float.fromhex("-0x1.cf79abc9e3b3ap-47")
POLY = tuple(
    float.fromhex(c)
    for c in ("0x1.ffffffffffdbdp-2", "0x1.555555555543cp-3", "0x1.55555cf172b91p-5", "0x1.1111167a4d017p-7")
)
TOP_TINY = 0x3C9  # the top 12 bits of 2^-54
TOP_RANGE = 0x408 - 0x3C9  # ... up to those of 512


def _bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def _f64(value: float) -> str:
    return f"0x{_bits(value):016X}"


def table() -> list[int]:
    """T[2k] = the bits of the tail, T[2k+1] = the bits of 2^(k/N) less k << 45 (as the library's table holds
    them): 2^(k/N) = H (1 + tail) with H its nearest double, computed in 60-digit decimal arithmetic."""
    getcontext().prec = 60
    ln2 = Decimal(2).ln()
    out: list[int] = []
    for k in range(N):
        exact = (ln2 * k / N).exp()
        nearest = float(exact)
        tail = float((exact - Decimal(nearest)) / Decimal(nearest))
        out += [_bits(tail), (_bits(nearest) - (k << 45)) % (1 << 64)]
    return out


def _madd(fma: bool, name: str, a: str, b: str, c: str) -> str:
    """`name = a * b + c`, fused or as the separate multiply and add."""
    if fma:
        return f"  %{name} = call double @llvm.fma.f64(double {a}, double {b}, double {c})\n"
    return f"  %{name}.m = fmul double {a}, {b}\n  %{name} = fadd double %{name}.m, {c}\n"


def fexp_ir(*, fma: bool) -> str:
    """The IR of `double @fexp(double)` (internal, inlined) and its table; it declares nothing itself (the
    module declares llvm.exp.f64 and, with `fma`, llvm.fma.f64)."""
    entries = ", ".join(f"i64 {v - (1 << 64) if v >= 1 << 63 else v}" for v in table())
    c2, c3, c4, c5 = (_f64(c) for c in POLY)
    shift = _f64(SHIFT)
    return (
        f"@exp_tab = internal constant [{2 * N} x i64] [{entries}]\n\n"
        "define internal double @fexp(double %x) #0 {\n"
        "entry:\n"
        "  %bits = bitcast double %x to i64\n"
        "  %top = lshr i64 %bits, 52\n"
        "  %abstop = and i64 %top, 2047\n"
        f"  %off = sub i64 %abstop, {TOP_TINY}\n"
        f"  %inside = icmp ult i64 %off, {TOP_RANGE}\n"
        "  br i1 %inside, label %main, label %library\n"
        "library:\n"
        "  %lib = call double @llvm.exp.f64(double %x)\n"
        "  ret double %lib\n"
        "main:\n" + _madd(fma, "kd0", _f64(INV_LN2_N), "%x", shift) + "  %ki = bitcast double %kd0 to i64\n"
        f"  %kd = fsub double %kd0, {shift}\n"
        + _madd(fma, "r0", "%kd", _f64(NEG_LN2_HI_N), "%x")
        + _madd(fma, "r", "%kd", _f64(NEG_LN2_LO_N), "%r0")
        + f"  %k = and i64 %ki, {N - 1}\n"
        "  %idx = shl i64 %k, 1\n"
        "  %idx1 = add i64 %idx, 1\n"
        "  %sh = shl i64 %ki, 45\n"
        "  %ptail = getelementptr inbounds [256 x i64], ptr @exp_tab, i64 0, i64 %idx\n"
        "  %pscale = getelementptr inbounds [256 x i64], ptr @exp_tab, i64 0, i64 %idx1\n"
        "  %tailbits = load i64, ptr %ptail\n"
        "  %tail = bitcast i64 %tailbits to double\n"
        "  %sbits0 = load i64, ptr %pscale\n"
        "  %sbits = add i64 %sbits0, %sh\n"
        "  %scale = bitcast i64 %sbits to double\n"
        "  %r2 = fmul double %r, %r\n"
        "  %tr = fadd double %tail, %r\n"
        + _madd(fma, "p1", "%r", c3, c2)
        + _madd(fma, "q1", "%r2", "%p1", "%tr")
        + "  %r4 = fmul double %r2, %r2\n"
        + _madd(fma, "p2", "%r", c5, c4)
        + _madd(fma, "tmp", "%r4", "%p2", "%q1")
        + _madd(fma, "y", "%scale", "%tmp", "%scale")
        + "  ret double %y\n"
        "}\n"
    )
