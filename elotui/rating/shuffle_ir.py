"""The LLVM IR of the Elo kernels' shuffle (`elotui.rating.elo_ir` puts it in the kernels' module): the
splitmix64 draws of a Fisher–Yates shuffle, alone and a vector of them at a time, and `@shuffle{W}`, which
shuffles an order's words in place with them. The draws are those `elotui.rating.elo.permutation_orders` makes
(draw i = mix(key + i * golden), j = ((draw >> 32) * (i + 1)) >> 32), so the orders are the same."""

from __future__ import annotations

from elotui.rating.exp_ir import splat

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
    """`@mix`, `@draw_j(key, i)` (swap i's partner) and `@draw_j_vec(key, <DRAWS x i64> i)` (the same for each
    lane: the same integer operations lane by lane; multiplies and shifts wrap alike in a vector)."""
    v = f"<{DRAWS} x i64>"

    def c(value: int) -> str:
        return splat(DRAWS, "i64", _i64(value))

    scalar = f"""
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

define internal i64 @draw_j(i64 %key, i64 %i) #0 {{
  %gi = mul i64 %i, {_i64(GOLDEN)}
  %z = add i64 %key, %gi
  %draw = call i64 @mix(i64 %z)
  %hi = lshr i64 %draw, 32
  %ip1 = add i64 %i, 1
  %prod = mul i64 %hi, %ip1
  %j = lshr i64 %prod, 32
  ret i64 %j
}}

"""
    return scalar + (
        f"define internal {v} @draw_j_vec(i64 %key, {v} %i) #0 {{\n"
        f"  %k0 = insertelement {v} undef, i64 %key, i64 0\n"
        f"  %k = shufflevector {v} %k0, {v} undef, <{DRAWS} x i32> zeroinitializer\n"
        f"  %gi = mul {v} %i, {c(GOLDEN)}\n"
        f"  %z = add {v} %k, %gi\n"
        f"  %a1 = lshr {v} %z, {c(30)}\n  %a2 = xor {v} %z, %a1\n  %a3 = mul {v} %a2, {c(M1)}\n"
        f"  %b1 = lshr {v} %a3, {c(27)}\n  %b2 = xor {v} %a3, %b1\n  %b3 = mul {v} %b2, {c(M2)}\n"
        f"  %c1 = lshr {v} %b3, {c(31)}\n  %draw = xor {v} %b3, %c1\n"
        f"  %hi = lshr {v} %draw, {c(32)}\n"
        f"  %ip1 = add {v} %i, {c(1)}\n"
        f"  %prod = mul {v} %hi, %ip1\n"
        f"  %j = lshr {v} %prod, {c(32)}\n"
        f"  ret {v} %j\n}}\n\n"
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
