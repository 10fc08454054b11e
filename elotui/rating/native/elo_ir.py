"""The LLVM IR of the native Elo kernels (`elotui.rating.native.kernels` compiles it): see that module for what the
functions do. Only integer and IEEE double operations in the order the numpy reference performs them, exp as the
C library computes it (`elotui.rating.native.exp_ir`, inlined), no fast-math flags."""

from __future__ import annotations

import math
import struct

from elotui.rating.native.exp_ir import LANES, fexp_ir, splat, vector_of
from elotui.rating.native.shuffle_ir import draws_ir, shuffle_ir

C = math.log(10.0) / 400.0
WORD_BITS = (16, 32, 64)  # packed games: `elo_order16`, `elo_order32`, `elo_order64` play words of each width


def _f64(value: float) -> str:
    """A double as LLVM's exact hexadecimal literal."""
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def module_ir(*, fma: bool, widths: tuple[int, ...] = WORD_BITS) -> str:
    """The kernels' module: `elo_online`, and the order functions for words of each of `widths` bits; `fma`: the
    processor fuses multiply-adds (exp then fuses them as the C library's variant for such processors does)."""
    # elo_order: one order; elo_pair: two orders of the same blocks side by side, twice the independent work in
    # flight for the processor (an update waits ~75 cycles for the last one of its contestants)
    orders = "".join(
        _ORDER_IR.format(W=width, WIDEN=_widen(width))
        + _TAIL_IR.format(W=width, WIDEN=_widen(width))
        + shuffle_ir(width)
        + _player_ir(width, "elo_order", ("",))
        + _player_ir(width, "elo_pair", ("", "2"))
        + _lanes_ir(width)
        for width in widths
    )
    exps = fexp_ir(fma=fma) + "\n" + fexp_ir(fma=fma, lanes=LANES)
    return _IR.replace("; @fexp\n", exps) + draws_ir() + orders + _ATTRIBUTES


def _player_ir(width: int, name: str, orders: tuple[str, ...]) -> str:
    """`@{name}{width}`: the orders with these key suffixes (`%key`, `%r`, `%w` + suffix each) prepared, then
    played side by side, a game of each per step (each order's operations exactly those of a lone order)."""
    keys = "".join(f"i64 %key{o}, " for o in orders)
    outs = ", ".join(f"ptr %r{o}" for o in orders) + ", " + ", ".join(f"ptr %w{o}" for o in orders)
    head = (
        f"define void @{name}{width}(ptr %src, ptr %starts, ptr %lengths, i64 %n_blocks, ptr %table, {keys}"
        f"i64 %n_games, i64 %n, i64 %cbits, double %k, double %init, {outs}) {{\nentry:\n"
    )
    prepare = "".join(
        f"  call void @prepare{width}(ptr %src, ptr %starts, ptr %lengths, i64 %n_blocks, i64 %key{o}, "
        f"i64 %n_games, i64 %n, double %init, ptr %r{o}, ptr %w{o})\n"
        for o in orders
    )
    steps = "".join(
        f"  call void @packed_step{width}(ptr %w{o}, i64 %u, ptr %table, i64 %cbits, double %k, ptr %r{o})\n"
        for o in orders
    )
    return (
        head
        + prepare
        + "  %has = icmp sgt i64 %n_games, 0\n  br i1 %has, label %loop, label %done\nloop:\n"
        + "  %u = phi i64 [0, %entry], [%u1, %loop]\n"
        + steps
        + "  %u1 = add i64 %u, 1\n  %more = icmp slt i64 %u1, %n_games\n"
        + "  br i1 %more, label %loop, label %done\ndone:\n  ret void\n}\n\n"
    )


# A lane of `@elo_lanes`: seven i64 fields (pointers as integers) of the array it is given.
LANE_FIELDS = ("starts", "lengths", "n_blocks", "key", "n_games", "r", "w")


def _lanes_ir(width: int) -> str:
    """`@elo_lanes{width}(src, table, lanes, n, cbits, k, init)`: LANES orders, each with its own blocks, key,
    ratings and scratch words (`lanes`: LANES rows of LANE_FIELDS), prepared one by one, then played side by
    side: at each step a game of every order, the ratings read lane by lane, the expectation computed for all
    the lanes at once in vectors (`@fexp4`, one division), the updates written lane by lane. Past the shortest
    order, each longer one finishes alone (`@finish`). Each lane's operations are those of a lone order, so
    the ratings are the same bit for bit; the vectors keep four times the updates in flight for the processor's
    floating-point queue, which is what bounds a lone order."""
    lanes, fields = range(LANES), len(LANE_FIELDS)
    read = "".join(
        f"  %{name}.p{lane} = getelementptr inbounds i64, ptr %lanes, i64 {lane * fields + f}\n"
        f"  %{name}.{lane} = load i64, ptr %{name}.p{lane}\n"
        for lane in lanes
        for f, name in enumerate(LANE_FIELDS)
    )
    ptrs = "".join(
        f"  %{name}{lane} = inttoptr i64 %{name}.{lane} to ptr\n"
        for lane in lanes
        for name in ("starts", "lengths", "r", "w")
    )
    prepare = "".join(
        f"  call void @prepare{width}(ptr %src, ptr %starts{lane}, ptr %lengths{lane}, i64 %n_blocks.{lane}, "
        f"i64 %key.{lane}, i64 %n_games.{lane}, i64 %n, double %init, ptr %r{lane}, ptr %w{lane})\n"
        for lane in lanes
    )
    shortest = "  %m0 = add i64 %n_games.0, 0\n" + "".join(
        f"  %lt{lane} = icmp slt i64 %n_games.{lane}, %m{lane - 1}\n"
        f"  %m{lane} = select i1 %lt{lane}, i64 %n_games.{lane}, i64 %m{lane - 1}\n"
        for lane in lanes
        if lane
    )
    steps = ", ".join(f"ptr %w{lane}" for lane in lanes) + ", " + ", ".join(f"ptr %r{lane}" for lane in lanes)
    rest = "".join(
        f"  call void @finish{width}(ptr %w{lane}, i64 %m, i64 %n_games.{lane}, ptr %table, i64 %cbits, "
        f"double %k, ptr %r{lane})\n"
        for lane in lanes
    )
    return (
        f"define void @elo_lanes{width}(ptr %src, ptr %table, ptr %lanes, i64 %n, i64 %cbits, double %k, "
        f"double %init) {{\nentry:\n"
        + read
        + ptrs
        + prepare
        + shortest
        + f"  %m = add i64 %m{LANES - 1}, 0\n"
        + "  %has = icmp sgt i64 %m, 0\n  br i1 %has, label %loop, label %done\nloop:\n"
        + "  %u = phi i64 [0, %entry], [%u1, %loop]\n"
        + f"  call void @lanes_step{width}({steps}, i64 %u, ptr %table, i64 %cbits, double %k)\n"
        + "  %u1 = add i64 %u, 1\n  %again = icmp slt i64 %u1, %m\n"
        + "  br i1 %again, label %loop, label %done\ndone:\n"
        + rest
        + "  ret void\n}\n\n"
        + _lanes_step_ir(width)
    )


def _lanes_step_ir(width: int) -> str:
    """`@lanes_step{width}`: game u of each lane's words, as `@update` plays it, the lanes' arithmetic in
    vectors (`fsub`, `fmul`, `@fexp4`, `fadd`, `fdiv`, `fsub`, `fmul`: the same IEEE operations lane by lane)."""
    lanes = range(LANES)
    v = f"<{LANES} x double>"

    args = ", ".join(f"ptr %w{lane}" for lane in lanes) + ", " + ", ".join(f"ptr %r{lane}" for lane in lanes)
    decode = "".join(
        f"  %pw{lane} = getelementptr inbounds i{width}, ptr %w{lane}, i64 %u\n"
        f"  %word0.{lane} = load i{width}, ptr %pw{lane}\n"
        + _widen(width, f"%word0.{lane}", f"%word{lane}")
        + f"  %x{lane} = and i64 %word{lane}, %mask\n"
        f"  %y0.{lane} = lshr i64 %word{lane}, %cbits\n"
        f"  %y{lane} = and i64 %y0.{lane}, %mask\n"
        f"  %si{lane} = lshr i64 %word{lane}, %cb2\n"
        f"  %ps{lane} = getelementptr inbounds double, ptr %table, i64 %si{lane}\n"
        f"  %sg{lane} = load double, ptr %ps{lane}\n"
        f"  %prx{lane} = getelementptr inbounds double, ptr %r{lane}, i64 %x{lane}\n"
        f"  %pry{lane} = getelementptr inbounds double, ptr %r{lane}, i64 %y{lane}\n"
        f"  %rx{lane} = load double, ptr %prx{lane}\n"
        f"  %ry{lane} = load double, ptr %pry{lane}\n"
        for lane in lanes
    )
    write = "".join(
        f"  %d{lane} = extractelement {v} %d, i64 {lane}\n"
        f"  %rx2.{lane} = load double, ptr %prx{lane}\n"
        f"  %nx{lane} = fadd double %rx2.{lane}, %d{lane}\n"
        f"  store double %nx{lane}, ptr %prx{lane}\n"
        f"  %ry2.{lane} = load double, ptr %pry{lane}\n"
        f"  %ny{lane} = fsub double %ry2.{lane}, %d{lane}\n"
        f"  store double %ny{lane}, ptr %pry{lane}\n"
        for lane in lanes
    )
    return (
        f"define internal void @lanes_step{width}({args}, i64 %u, ptr %table, i64 %cbits, double %k) #0 {{\n"
        "  %one = shl i64 1, %cbits\n  %mask = sub i64 %one, 1\n  %cb2 = add i64 %cbits, %cbits\n"
        + decode
        + "".join(
            vector_of(name, "double", [f"%{name}{lane}" for lane in lanes]) for name in ("rx", "ry", "sg")
        )
        + f"  %diff = fsub {v} %ry, %rx\n"
        f"  %arg = fmul {v} {splat(LANES, 'double', _f64(C))}, %diff\n"
        f"  %e = call {v} @fexp{LANES}({v} %arg)\n"
        f"  %den = fadd {v} {splat(LANES, 'double', '1.0')}, %e\n"
        f"  %expect = fdiv {v} {splat(LANES, 'double', '1.0')}, %den\n"
        f"  %t = fsub {v} %sg, %expect\n"
        f"  %k.0 = insertelement {v} undef, double %k, i64 0\n"
        f"  %kv = shufflevector {v} %k.0, {v} undef, <{LANES} x i32> zeroinitializer\n"
        f"  %d = fmul {v} %kv, %t\n" + write + "  ret void\n}\n\n"
    )


def _widen(width: int, word: str = "%word0", into: str = "%word") -> str:
    """`into`: the loaded word `word` as an i64."""
    if width == 64:
        return f"  {into} = add i64 {word}, 0\n"
    return f"  {into} = zext i{width} {word} to i64\n"


_IR = f"""
declare double @llvm.exp.f64(double)
declare double @llvm.fma.f64(double, double, double)
declare <4 x double> @llvm.fma.v4f64(<4 x double>, <4 x double>, <4 x double>)
declare i1 @llvm.vector.reduce.and.v4i1(<4 x i1>)
declare void @llvm.prefetch.p0(ptr, i32, i32, i32)

; @fexp

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

define internal void @update(i64 %x, i64 %y, double %sg, double %k, ptr %r) #0 {{
  %prx = getelementptr inbounds double, ptr %r, i64 %x
  %pry = getelementptr inbounds double, ptr %r, i64 %y
  %rx = load double, ptr %prx
  %ry = load double, ptr %pry
  %diff = fsub double %ry, %rx
  %arg = fmul double {_f64(C)}, %diff
  %e = call double @fexp(double %arg)
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

define internal void @step(ptr %a, ptr %b, ptr %s, i64 %g, double %k, ptr %r) #0 {{
  %pa = getelementptr inbounds i32, ptr %a, i64 %g
  %xa = load i32, ptr %pa
  %x = sext i32 %xa to i64
  %pb = getelementptr inbounds i32, ptr %b, i64 %g
  %yb = load i32, ptr %pb
  %y = sext i32 %yb to i64
  %ps = getelementptr inbounds double, ptr %s, i64 %g
  %sg = load double, ptr %ps
  call void @update(i64 %x, i64 %y, double %sg, double %k, ptr %r)
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

"""

_ORDER_IR = """define internal void @gather{W}(ptr %src, ptr %starts, ptr %lengths, i64 %n_blocks, ptr %w) #0 {{
entry:
  %any = icmp sgt i64 %n_blocks, 0
  br i1 %any, label %block, label %done
block:
  %bi = phi i64 [0, %entry], [%bi1, %block_end]
  %pos = phi i64 [0, %entry], [%pos1, %block_end]
  %pst = getelementptr inbounds i64, ptr %starts, i64 %bi
  %st = load i64, ptr %pst
  %pln = getelementptr inbounds i64, ptr %lengths, i64 %bi
  %ln = load i64, ptr %pln
  %pos1 = add i64 %pos, %ln
  %has = icmp sgt i64 %ln, 0
  br i1 %has, label %copy, label %block_end
copy:
  %t = phi i64 [0, %block], [%t1, %copy]
  %si = add i64 %st, %t
  %di = add i64 %pos, %t
  %ps = getelementptr inbounds i{W}, ptr %src, i64 %si
  %pd = getelementptr inbounds i{W}, ptr %w, i64 %di
  %word = load i{W}, ptr %ps
  store i{W} %word, ptr %pd
  %t1 = add i64 %t, 1
  %cmore = icmp slt i64 %t1, %ln
  br i1 %cmore, label %copy, label %block_end
block_end:
  %bi1 = add i64 %bi, 1
  %more = icmp slt i64 %bi1, %n_blocks
  br i1 %more, label %block, label %done
done:
  ret void
}}

define internal void @packed_step{W}(ptr %w, i64 %u, ptr %table, i64 %cbits, double %k, ptr %r) #0 {{
  %pw = getelementptr inbounds i{W}, ptr %w, i64 %u
  %word0 = load i{W}, ptr %pw
{WIDEN}  %one = shl i64 1, %cbits
  %mask = sub i64 %one, 1
  %x = and i64 %word, %mask
  %y0 = lshr i64 %word, %cbits
  %y = and i64 %y0, %mask
  %cb2 = add i64 %cbits, %cbits
  %si = lshr i64 %word, %cb2
  %ps = getelementptr inbounds double, ptr %table, i64 %si
  %sg = load double, ptr %ps
  call void @update(i64 %x, i64 %y, double %sg, double %k, ptr %r)
  ret void
}}

; An order's games from %from on, played alone (the lanes' longer orders, past the shortest).
define internal void @finish{W}(ptr %w, i64 %from, i64 %n_games, ptr %table, i64 %cbits, double %k, ptr %r) #1 {{
entry:
  %any = icmp slt i64 %from, %n_games
  br i1 %any, label %loop, label %done
loop:
  %u = phi i64 [%from, %entry], [%u1, %loop]
  call void @packed_step{W}(ptr %w, i64 %u, ptr %table, i64 %cbits, double %k, ptr %r)
  %u1 = add i64 %u, 1
  %more = icmp slt i64 %u1, %n_games
  br i1 %more, label %loop, label %done
done:
  ret void
}}

; An order's start: ratings at %init, the blocks' words copied into %w and shuffled by the stream %key.
define internal void @prepare{W}(ptr %src, ptr %starts, ptr %lengths, i64 %n_blocks, i64 %key, i64 %n_games,
                                 i64 %n, double %init, ptr %r, ptr %w) #1 {{
  call void @fill(ptr %r, i64 %n, double %init)
  call void @gather{W}(ptr %src, ptr %starts, ptr %lengths, i64 %n_blocks, ptr %w)
  call void @shuffle{W}(ptr %w, i64 %n_games, i64 %key)
  ret void
}}

"""

# `elo_tail`: one order whose ratings are also summed over its games from %from on. The sum is kept lazily: a
# contestant's rating is added times the steps it held (the step now less %last, its last change), when it changes
# (the caller adds each rating times the steps from %last to the end, and divides).
_TAIL_IR = """define internal void @accrue{W}(i64 %x, double %uf, ptr %r, ptr %sum, ptr %last) #0 {{
  %pr = getelementptr inbounds double, ptr %r, i64 %x
  %rx = load double, ptr %pr
  %pl = getelementptr inbounds double, ptr %last, i64 %x
  %lx = load double, ptr %pl
  %held = fsub double %uf, %lx
  %part = fmul double %rx, %held
  %ps = getelementptr inbounds double, ptr %sum, i64 %x
  %sx = load double, ptr %ps
  %sx1 = fadd double %sx, %part
  store double %sx1, ptr %ps
  store double %uf, ptr %pl
  ret void
}}

define internal void @tail_step{W}(ptr %w, i64 %u, ptr %table, i64 %cbits, double %k, ptr %r, ptr %sum,
                                   ptr %last) #0 {{
  %pw = getelementptr inbounds i{W}, ptr %w, i64 %u
  %word0 = load i{W}, ptr %pw
{WIDEN}  %one = shl i64 1, %cbits
  %mask = sub i64 %one, 1
  %x = and i64 %word, %mask
  %y0 = lshr i64 %word, %cbits
  %y = and i64 %y0, %mask
  %cb2 = add i64 %cbits, %cbits
  %si = lshr i64 %word, %cb2
  %ps = getelementptr inbounds double, ptr %table, i64 %si
  %sg = load double, ptr %ps
  %uf = sitofp i64 %u to double
  call void @accrue{W}(i64 %x, double %uf, ptr %r, ptr %sum, ptr %last)
  call void @accrue{W}(i64 %y, double %uf, ptr %r, ptr %sum, ptr %last)
  call void @update(i64 %x, i64 %y, double %sg, double %k, ptr %r)
  ret void
}}

define void @elo_tail{W}(ptr %src, ptr %starts, ptr %lengths, i64 %n_blocks, ptr %table, i64 %key, i64 %n_games,
                         i64 %n, i64 %cbits, double %k, double %init, i64 %from, ptr %r, ptr %w, ptr %sum,
                         ptr %last) {{
entry:
  call void @prepare{W}(ptr %src, ptr %starts, ptr %lengths, i64 %n_blocks, i64 %key, i64 %n_games, i64 %n,
                        double %init, ptr %r, ptr %w)
  call void @finish{W}(ptr %w, i64 0, i64 %from, ptr %table, i64 %cbits, double %k, ptr %r)
  call void @fill(ptr %sum, i64 %n, double 0.0)
  %ff = sitofp i64 %from to double
  call void @fill(ptr %last, i64 %n, double %ff)
  %any = icmp slt i64 %from, %n_games
  br i1 %any, label %loop, label %done
loop:
  %u = phi i64 [%from, %entry], [%u1, %loop]
  call void @tail_step{W}(ptr %w, i64 %u, ptr %table, i64 %cbits, double %k, ptr %r, ptr %sum, ptr %last)
  %u1 = add i64 %u, 1
  %more = icmp slt i64 %u1, %n_games
  br i1 %more, label %loop, label %done
done:
  ret void
}}

"""

_ATTRIBUTES = "attributes #0 = { alwaysinline }\nattributes #1 = { noinline }\n"
