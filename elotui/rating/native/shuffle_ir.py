"""The LLVM IR of the Elo kernels' shuffle (`elotui.rating.native.elo_ir` puts it in the kernels' module): the
splitmix64 draws of a Fisher–Yates shuffle, alone and a vector of them at a time, and `@shuffle{W}`, which
shuffles an order's words in place with them. The draws are those `elotui.rating.elo.permutation_orders` makes
(draw i = mix(key + i * golden), j = ((draw >> 32) * (i + 1)) >> 32), so the orders are the same."""

from __future__ import annotations

from elotui.rating.native.exp_ir import splat

GOLDEN = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB
# A Fisher–Yates load is prefetched this many swaps before it is needed (a power of 2). 64 was too short for
# orders of 10^7 games, whose scratch words do not fit in the cache (~20 % slower there).
PREFETCH_AHEAD = 256
# A block of the shuffle: this many draws made at once in a vector (`@draw_j_vec`; AVX-512 does eight 64-bit
# multiplies in one instruction: 1M-game orders ~17-23 % faster than drawing one at a time, ~11 % with AVX2).
DRAWS = 8


def _i64(value: int) -> str:
    """An unsigned 64-bit constant as LLVM's signed decimal literal."""
    return str(value - (1 << 64) if value >= 1 << 63 else value)


def draws_ir() -> str:
    """`@draw_j(key, i)` (swap i's partner) and `@draw_j_vec(key, <DRAWS x i64> i)` (the same for each lane), both
    from `_draw_ir`: the same integer operations; multiplies and shifts wrap alike in a vector."""
    return _draw_ir(1) + _draw_ir(DRAWS)


def _draw_ir(lanes: int) -> str:
    """`@draw_j` (one lane) or `@draw_j_vec` (a vector of `lanes`): j = ((mix(key + i * golden) >> 32) * (i + 1))
    >> 32, splitmix64's mix written out."""
    t = "i64" if lanes == 1 else f"<{lanes} x i64>"
    name = "draw_j" if lanes == 1 else "draw_j_vec"

    def c(value: int) -> str:
        return splat(lanes, "i64", _i64(value))

    key = (
        "  %k = add i64 %key, 0\n"
        if lanes == 1
        else f"  %k0 = insertelement {t} undef, i64 %key, i64 0\n"
        f"  %k = shufflevector {t} %k0, {t} undef, <{lanes} x i32> zeroinitializer\n"
    )
    return (
        f"define internal {t} @{name}(i64 %key, {t} %i) #0 {{\n" + key + f"  %gi = mul {t} %i, {c(GOLDEN)}\n"
        f"  %z = add {t} %k, %gi\n"
        f"  %a1 = lshr {t} %z, {c(30)}\n  %a2 = xor {t} %z, %a1\n  %a3 = mul {t} %a2, {c(M1)}\n"
        f"  %b1 = lshr {t} %a3, {c(27)}\n  %b2 = xor {t} %a3, %b1\n  %b3 = mul {t} %b2, {c(M2)}\n"
        f"  %c1 = lshr {t} %b3, {c(31)}\n  %draw = xor {t} %b3, %c1\n"
        f"  %hi = lshr {t} %draw, {c(32)}\n"
        f"  %ip1 = add {t} %i, {c(1)}\n"
        f"  %prod = mul {t} %hi, %ip1\n"
        f"  %j = lshr {t} %prod, {c(32)}\n"
        f"  ret {t} %j\n}}\n\n"
    )


def shuffle_ir(width: int) -> str:
    """`@shuffle{width}(w, n_games, key)`: the words of `width` bits at w shuffled in place by the stream `key`."""
    return _SHUFFLE_IR.format(
        W=width,
        AHEAD=PREFETCH_AHEAD,
        MASK=PREFETCH_AHEAD - 1,
        DRAWS=DRAWS,
        DRAWS_MASK=DRAWS - 1,
        BLOCK=_block_ir(width),
    )


def _block_ir(width: int) -> str:
    """The body of a block of `@shuffle{width}` at %i (7 mod 8, at least DRAWS): the ring's DRAWS slots of
    %i - DRAWS + 1 .. %i (contiguous: AHEAD is a multiple of DRAWS) read as the block's draws, the draws of the
    same indices AHEAD lower made in a vector and stored there (their loads prefetched), then the swaps of %i
    down to %i - DRAWS + 1, each with its draw."""
    v, w = f"<{DRAWS} x i64>", f"i{width}"
    lanes = ", ".join(f"i64 {lane}" for lane in range(DRAWS))
    head = (
        f"  %base = sub i64 %i, {DRAWS - 1}\n"
        f"  %bslot = and i64 %base, {PREFETCH_AHEAD - 1}\n"
        f"  %bring = getelementptr inbounds [{PREFETCH_AHEAD} x i64], ptr %ring, i64 0, i64 %bslot\n"
        f"  %drawn = load {v}, ptr %bring, align 8\n"
        f"  %fbase = sub i64 %base, {PREFETCH_AHEAD}\n"
        f"  %fb0 = insertelement {v} undef, i64 %fbase, i64 0\n"
        f"  %fb = shufflevector {v} %fb0, {v} undef, <{DRAWS} x i32> zeroinitializer\n"
        f"  %fiv = add {v} %fb, <{lanes}>\n"
        f"  %fjv = call {v} @draw_j_vec(i64 %key, {v} %fiv)\n"
        f"  store {v} %fjv, ptr %bring, align 8\n"
    )
    swaps = "".join(
        f"  %fj.{lane} = extractelement {v} %fjv, i64 {lane}\n"
        f"  %pf.{lane} = getelementptr {w}, ptr %w, i64 %fj.{lane}\n"
        f"  call void @llvm.prefetch.p0(ptr %pf.{lane}, i32 1, i32 3, i32 1)\n"
        f"  %j.{lane} = extractelement {v} %drawn, i64 {lane}\n"
        f"  %x.{lane} = add i64 %base, {lane}\n"
        f"  %px.{lane} = getelementptr inbounds {w}, ptr %w, i64 %x.{lane}\n"
        f"  %pj.{lane} = getelementptr inbounds {w}, ptr %w, i64 %j.{lane}\n"
        f"  %held.{lane} = load {w}, ptr %px.{lane}\n"
        f"  %oj.{lane} = load {w}, ptr %pj.{lane}\n"
        f"  store {w} %oj.{lane}, ptr %px.{lane}\n"
        f"  store {w} %held.{lane}, ptr %pj.{lane}\n"
        for lane in reversed(range(DRAWS))
    )
    return head + swaps


_SHUFFLE_IR = """; Fisher-Yates from the last position down. The draw of swap i is made AHEAD swaps earlier, when the load it
; will need is prefetched, and kept in a ring of AHEAD slots (slot i mod AHEAD) until its swap. Where i is 7 mod 8
; (and at least 8), the next DRAWS swaps are made as a block: their draws taken from the ring as a vector, the
; draws AHEAD further on made in one vector (@draw_j_vec) and put in their place, then the swaps one by one in the
; same descending order. Otherwise a swap is made alone. Either way swap i exchanges w[i] and w[j(i)].
define internal void @shuffle{W}(ptr %w, i64 %n_games, i64 %key) #0 {{
entry:
  %ring = alloca [{AHEAD} x i64], align 64
  %last = sub i64 %n_games, 1
  %any = icmp sgt i64 %last, 0
  br i1 %any, label %fill, label %done
fill:
  %p = phi i64 [0, %entry], [%p1, %fill]
  %pi0 = sub i64 %last, %p
  %pj0 = call i64 @draw_j(i64 %key, i64 %pi0)
  %slot0 = and i64 %pi0, {MASK}
  %pr0 = getelementptr inbounds [{AHEAD} x i64], ptr %ring, i64 0, i64 %slot0
  store i64 %pj0, ptr %pr0
  %p1 = add i64 %p, 1
  %pmore = icmp slt i64 %p1, {AHEAD}
  br i1 %pmore, label %fill, label %head
head:
  %i = phi i64 [%last, %fill], [%i1, %loop], [%ib, %block]
  %low = and i64 %i, {DRAWS_MASK}
  %aligned = icmp eq i64 %low, {DRAWS_MASK}
  %big = icmp sge i64 %i, {DRAWS}
  %whole = and i1 %aligned, %big
  br i1 %whole, label %block, label %loop
loop:
  %slot = and i64 %i, {MASK}
  %pr = getelementptr inbounds [{AHEAD} x i64], ptr %ring, i64 0, i64 %slot
  %j = load i64, ptr %pr
  %fi = sub i64 %i, {AHEAD}
  %fj = call i64 @draw_j(i64 %key, i64 %fi)
  store i64 %fj, ptr %pr
  %pf = getelementptr i{W}, ptr %w, i64 %fj
  call void @llvm.prefetch.p0(ptr %pf, i32 1, i32 3, i32 1)
  %pi = getelementptr inbounds i{W}, ptr %w, i64 %i
  %pj = getelementptr inbounds i{W}, ptr %w, i64 %j
  %held = load i{W}, ptr %pi
  %oj = load i{W}, ptr %pj
  store i{W} %oj, ptr %pi
  store i{W} %held, ptr %pj
  %i1 = sub i64 %i, 1
  %more = icmp sgt i64 %i1, 0
  br i1 %more, label %head, label %done
block:
{BLOCK}  %ib = sub i64 %i, {DRAWS}
  br label %head
done:
  ret void
}}

"""
