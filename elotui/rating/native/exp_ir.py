"""`@fexp`, exp(x) in LLVM IR for the Elo kernels: the C library's own algorithm inlined into the update loop.

The Elo update spends half its time in the call to exp. glibc's exp (since 2.28; the algorithm of ARM's
optimized-routines, Szabolcs Nagy) is a table of 2^(k/128) and a degree-5 polynomial: written out here, the same
operations in the same order, so that the result is the library's. x86-64 glibc runs a variant built with FMA on
processors that have it (the compiler fuses each a*b+c of the source); `fexp_ir(fma=True)` fuses the same ones,
`fma=False` none. Arguments outside 2^-54 <= |x| < 512 (tiny, huge, infinite, NaN) go to the library itself, as
the library's own special-case branch would. `tests/rating/test_exp_ir.py` checks it against the library.
"""

from __future__ import annotations

import functools
import struct
from decimal import Decimal, localcontext

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


@functools.cache
def table() -> tuple[int, ...]:
    """T[2k] = the bits of the tail, T[2k+1] = the bits of 2^(k/N) less k << 45 (as the library's table holds
    them): 2^(k/N) = H (1 + tail) with H its nearest double, computed once in 60-digit decimal arithmetic."""
    out: list[int] = []
    with localcontext() as context:  # the caller's decimal context is left as it was
        context.prec = 60
        ln2 = Decimal(2).ln()
        for k in range(N):
            exact = (ln2 * k / N).exp()
            nearest = float(exact)
            tail = float((exact - Decimal(nearest)) / Decimal(nearest))
            out += [_bits(tail), (_bits(nearest) - (k << 45)) % (1 << 64)]
    return tuple(out)


LANES = 4  # `@fexp4`: four arguments at once, in <4 x double> (the Elo kernels' four orders side by side)


def _type(lanes: int, element: str) -> str:
    """The IR type of `lanes` values of `element` (the element itself for one)."""
    return element if lanes == 1 else f"<{lanes} x {element}>"


def splat(lanes: int, element: str, literal: str) -> str:
    """A constant of every lane (a vector splat; the scalar itself for one lane)."""
    if lanes == 1:
        return literal
    return "<" + ", ".join([f"{element} {literal}"] * lanes) + ">"


def vector_of(name: str, element: str, values: list[str]) -> str:
    """`%name`: the vector whose lanes are `values` (IR operands), built an element at a time."""
    t, out, prev = _type(len(values), element), "", "undef"
    for lane, value in enumerate(values):
        built = f"%{name}" if lane == len(values) - 1 else f"%{name}.i{lane}"
        out += f"  {built} = insertelement {t} {prev}, {element} {value}, i64 {lane}\n"
        prev = built
    return out


def _madd(fma: bool, name: str, a: str, b: str, c: str, lanes: int = 1) -> str:
    """`name = a * b + c`, fused or as the separate multiply and add (each lane on its own in a vector)."""
    t = _type(lanes, "double")
    if fma:
        intrinsic = "llvm.fma.f64" if lanes == 1 else f"llvm.fma.v{lanes}f64"
        return f"  %{name} = call {t} @{intrinsic}({t} {a}, {t} {b}, {t} {c})\n"
    return f"  %{name}.m = fmul {t} {a}, {b}\n  %{name} = fadd {t} %{name}.m, {c}\n"


def _table_loads(lanes: int) -> str:
    """`%tailbits`, `%sbits0`: the table entries 2k and 2k+1 (`%idx`, `%idx1`), a lane at a time in a vector."""
    if lanes == 1:
        return (
            "  %ptail = getelementptr inbounds [256 x i64], ptr @exp_tab, i64 0, i64 %idx\n"
            "  %pscale = getelementptr inbounds [256 x i64], ptr @exp_tab, i64 0, i64 %idx1\n"
            "  %tailbits = load i64, ptr %ptail\n"
            "  %sbits0 = load i64, ptr %pscale\n"
        )
    t = _type(lanes, "i64")
    out = ""
    for name, index in (("tailbits", "idx"), ("sbits0", "idx1")):
        for lane in range(lanes):
            out += (
                f"  %{index}.{lane} = extractelement {t} %{index}, i64 {lane}\n"
                f"  %{name}.p{lane} = getelementptr inbounds [256 x i64], ptr @exp_tab, i64 0, i64 %{index}.{lane}\n"
                f"  %{name}.v{lane} = load i64, ptr %{name}.p{lane}\n"
            )
        out += vector_of(name, "i64", [f"%{name}.v{lane}" for lane in range(lanes)])
    return out


def _outside(lanes: int) -> str:
    """The branch to `library` where an argument (any lane's) is outside 2^-54 <= |x| < 512, else to `main`."""
    if lanes == 1:
        return "  br i1 %inside, label %main, label %library\n"
    return (
        f"  %all = call i1 @llvm.vector.reduce.and.v{lanes}i1(<{lanes} x i1> %inside)\n"
        "  br i1 %all, label %main, label %library\n"
    )


def _library(lanes: int) -> str:
    """The `library` block: the C library's exp (one lane at a time through `@fexp`, for a vector)."""
    if lanes == 1:
        return "library:\n  %lib = call double @llvm.exp.f64(double %x)\n  ret double %lib\n"
    t = _type(lanes, "double")
    calls = "".join(
        f"  %x.{lane} = extractelement {t} %x, i64 {lane}\n  %y.{lane} = call double @fexp(double %x.{lane})\n"
        for lane in range(lanes)
    )
    return (
        "library:\n"
        + calls
        + vector_of("lib", "double", [f"%y.{lane}" for lane in range(lanes)])
        + f"  ret {t} %lib\n"
    )


def fexp_ir(*, fma: bool, lanes: int = 1) -> str:
    """The IR of `double @fexp(double)` (internal, inlined) and its table (lanes 1), or of
    `<4 x double> @fexp4(<4 x double>)` (lanes 4: each lane the operations of `@fexp`, which it needs in the
    module for the lanes outside the main range); it declares nothing itself (the module declares llvm.exp.f64
    and, with `fma`, llvm.fma.f64 / llvm.fma.v4f64, and llvm.vector.reduce.and.v4i1)."""
    c2, c3, c4, c5 = (_f64(c) for c in POLY)
    d, i = _type(lanes, "double"), _type(lanes, "i64")

    def f(value: str) -> str:
        return splat(lanes, "double", value)

    def n(value: int) -> str:
        return splat(lanes, "i64", str(value))

    shift = f(_f64(SHIFT))
    name = "fexp" if lanes == 1 else f"fexp{lanes}"
    head = ""
    if lanes == 1:
        entries = ", ".join(f"i64 {v - (1 << 64) if v >= 1 << 63 else v}" for v in table())
        head = f"@exp_tab = internal constant [{2 * N} x i64] [{entries}]\n\n"
    return (
        head + f"define internal {d} @{name}({d} %x) #0 {{\n"
        "entry:\n"
        f"  %bits = bitcast {d} %x to {i}\n"
        f"  %top = lshr {i} %bits, {n(52)}\n"
        f"  %abstop = and {i} %top, {n(2047)}\n"
        f"  %off = sub {i} %abstop, {n(TOP_TINY)}\n"
        f"  %inside = icmp ult {i} %off, {n(TOP_RANGE)}\n"
        + _outside(lanes)
        + _library(lanes)
        + "main:\n"
        + _madd(fma, "kd0", f(_f64(INV_LN2_N)), "%x", shift, lanes)
        + f"  %ki = bitcast {d} %kd0 to {i}\n"
        f"  %kd = fsub {d} %kd0, {shift}\n"
        + _madd(fma, "r0", "%kd", f(_f64(NEG_LN2_HI_N)), "%x", lanes)
        + _madd(fma, "r", "%kd", f(_f64(NEG_LN2_LO_N)), "%r0", lanes)
        + f"  %k = and {i} %ki, {n(N - 1)}\n"
        f"  %idx = shl {i} %k, {n(1)}\n"
        f"  %idx1 = add {i} %idx, {n(1)}\n"
        f"  %sh = shl {i} %ki, {n(45)}\n" + _table_loads(lanes) + f"  %tail = bitcast {i} %tailbits to {d}\n"
        f"  %sbits = add {i} %sbits0, %sh\n"
        f"  %scale = bitcast {i} %sbits to {d}\n"
        f"  %r2 = fmul {d} %r, %r\n"
        f"  %tr = fadd {d} %tail, %r\n"
        + _madd(fma, "p1", "%r", f(c3), f(c2), lanes)
        + _madd(fma, "q1", "%r2", "%p1", "%tr", lanes)
        + f"  %r4 = fmul {d} %r2, %r2\n"
        + _madd(fma, "p2", "%r", f(c5), f(c4), lanes)
        + _madd(fma, "tmp", "%r4", "%p2", "%q1", lanes)
        + _madd(fma, "y", "%scale", "%tmp", "%scale", lanes)
        + f"  ret {d} %y\n"
        "}\n"
    )
