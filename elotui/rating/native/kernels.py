"""Native Elo kernels for `elotui.rating.elo`, compiled at run time from LLVM IR with llvmlite.

Why not numba: for the `elotui export` process the kernel itself takes ~0.1 s for 100 orders of 100k games, but
numba costs ~0.5 s before it runs anything (importing numba, which imports scipy.linalg, then initialising its CPU
target even when the machine code comes from its on-disk cache). llvmlite (numba's own LLVM binding) needs ~0.03 s
to import and ~0.2 s to optimise and compile the IR below for one word width (exp inlined; a width is compiled
when first needed; the export has the 16-bit one compiled in the background where it is not on disk yet,
`native.warm_kernels`). The object code is kept on disk under a name that is the hash of everything it is made
from (`elotui.rating.native.kernel_cache`): it cannot go stale, and later processes load it in ~3 ms. The IR is small
and does exactly what the earlier numba kernel did (same splitmix64 shuffle, same floating-point operations in
the same order, no fast-math), so both give bit-identical ratings. exp is the C library's own algorithm inlined
(`elotui.rating.native.exp_ir`, bit for bit the library's: half the update's time was the call; ~20 % faster).

Games are packed one per word (contestant codes in two fields of `cbits` bits, then the index of the score in a
small table of the distinct scores; in the narrowest of 16, 32 or 64 bits they fit), so an order moves one word
per game: the words are copied into a scratch array (from blocks of a source array, which is how a bootstrap round
lists its resampled prompts), shuffled in place (each Fisher–Yates draw is made PREFETCH_AHEAD swaps ahead, its
load prefetched then and the draw kept in a small ring until its swap: the draws do not depend on the data; they
are made eight at a time in a vector, `shuffle_ir.DRAWS`: 1M-game orders ~17-23 % faster with AVX-512, ~11 % with
AVX2 alone) and played front to back. Playing the shuffled words is playing the games in the shuffled order of their indices, so
the ratings are those of the index-order kernel this replaced, bit for bit.

Functions (C ABI, called through ctypes, which releases the GIL during the call):
- `elo_order16` / `elo_order32` / `elo_order64(src, starts, lengths, n_blocks, table, key, n_games, n, cbits, k,
  init, r, w)` (words of 16 / 32 / 64 bits): w = the words src[starts[i] : starts[i] + lengths[i]] for each block
  i (n_games in all), a Fisher–Yates shuffle of w driven by splitmix64 with stream key `key` (draw i = mix(key + i
  * golden), j = ((draw >> 32) * (i + 1)) >> 32, the orders `elo.permutation_orders` draws), then Elo over w into
  `r` (n float64).
- `elo_pair16` / `elo_pair32` / `elo_pair64(src, starts, lengths, n_blocks, table, key, key2, n_games, n, cbits,
  k, init, r, r2, w, w2)`: two orders of the same blocks (keys `key`, `key2`, into `r`, `r2`) played side by side,
  which keeps twice the independent updates in flight (~7 % faster an update; each order's operations are those
  of elo_order, so the ratings are the same bit for bit).
- `elo_lanes16` / `elo_lanes32` / `elo_lanes64(src, table, lanes, n, cbits, k, init)`: four orders, each with
  its own blocks, key, length, ratings row and scratch words (`lanes`: four rows of `elo_ir.LANE_FIELDS`), played
  side by side with their arithmetic in 4-wide vectors (exp too: `exp_ir.fexp_ir(lanes=4)`). A lone order's
  update waits ~75 cycles on its chain of floating-point operations, and the processor's floating-point queue
  holds only a few updates' worth: in vectors it holds four times as many (~1.25x an update, measured against
  elo_pair). Each lane's operations are those of elo_order, so the ratings are the same bit for bit.
  `Kernels.play_packed` plays four orders at a time this way, the rest in pairs or alone.
- `elo_online(a, b, s, n_games, n, k, init, out)`: Elo once over the games in the given order into `out` (n).

One update: d = k * (s - 1 / (1 + exp(C * (r[b] - r[a])))), r[a] += d, r[b] -= d, with C = ln(10) / 400.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.native.elo_ir import LANE_FIELDS, WORD_BITS, module_ir
from elotui.rating.native.exp_ir import LANES
from elotui.rating.native.kernel_cache import cached_object, is_cached
from elotui.rating.radix import dense_codes

PARALLEL_MIN_UPDATES = 1_000_000  # below this many game updates per thread, one thread is faster


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_WORDS: dict[int, type[np.unsignedinteger[Any]]] = {16: np.uint16, 32: np.uint32, 64: np.uint64}
_P = ctypes.c_void_p
_I = ctypes.c_int64
_D = ctypes.c_double
_ORDER = ctypes.CFUNCTYPE(None, _P, _P, _P, _I, _P, _I, _I, _I, _I, _D, _D, _P, _P)
_PAIR = ctypes.CFUNCTYPE(None, _P, _P, _P, _I, _P, _I, _I, _I, _I, _I, _D, _D, _P, _P, _P, _P)
_LANES = ctypes.CFUNCTYPE(None, _P, _P, _P, _I, _I, _D, _D)
_TAIL = ctypes.CFUNCTYPE(None, _P, _P, _P, _I, _P, _I, _I, _I, _I, _D, _D, _I, _P, _P, _P, _P)


@dataclass(frozen=True)
class Packed:
    """Games as words: a | b << cbits | (index of the score in `table`) << 2 cbits, in the narrowest width
    they fit: 16 bits up to 128 contestants with 4 distinct scores, 32 up to 2^15, else 64."""

    words: NDArray[np.uint16] | NDArray[np.uint32] | NDArray[np.uint64]
    table: NDArray[np.float64]
    cbits: int


def pack(a: NDArray[np.integer], b: NDArray[np.integer], s: NDArray[np.floating], n: int) -> Packed:
    """The games packed for `Kernels.play_packed` (codes checked: the kernel indexes the ratings with them).
    ValueError when they do not fit in 64 bits (more than ~10^6 contestants with ~10^7 distinct scores)."""
    a32, b32, s64 = _games_arrays(a, b, s, n)
    cbits = max(1, (n - 1).bit_length())
    table, index = dense_codes(s64)
    bits = cbits * 2 + max(1, (len(table) - 1).bit_length())
    if bits > 64:
        raise ValueError(f"{n} contestants with {len(table)} distinct scores do not fit in 64-bit words")
    word = _WORDS[next(w for w in WORD_BITS if bits <= w)]  # the narrowest: the less memory the shuffles move
    words: NDArray[Any] = a32.astype(word)
    words |= b32.astype(word) << word(cbits)
    words |= index.reshape(-1).astype(word) << word(2 * cbits)
    return Packed(words, np.ascontiguousarray(table, dtype=np.float64), cbits)


@dataclass(frozen=True)
class Order:
    """One order to play: the games src[starts[i] : starts[i] + lengths[i]] (all blocks, in turn), shuffled by
    the splitmix64 stream `key`."""

    starts: NDArray[np.int64]
    lengths: NDArray[np.int64]
    key: int


def whole(n_games: int, keys: NDArray[np.uint64]) -> list[Order]:
    """One order of all the source games per stream key."""
    starts, lengths = np.zeros(1, dtype=np.int64), np.full(1, n_games, dtype=np.int64)
    return [Order(starts, lengths, int(key)) for key in keys]


class Kernels:
    """The compiled functions: `elo_online` at once, the order functions of a word width when first needed (a
    module per width: ~0.1 s of LLVM each). The execution engines own the machine code: kept with the kernels."""

    def __init__(self) -> None:
        self._fma = host_fma()
        self._engines: list[Any] = []
        self._compiling = threading.Lock()
        self._orders: dict[np.dtype[Any], tuple[Callable[..., None], ...]] = {}
        self._online: Callable[..., None] = ctypes.CFUNCTYPE(None, _P, _P, _P, _I, _I, _D, _D, _P)(
            self._compile(()).get_function_address("elo_online")
        )

    def _compile(self, widths: tuple[int, ...]) -> Any:
        engine = compile_ir(module_ir(fma=self._fma, widths=widths))
        self._engines.append(engine)
        return engine

    def order_functions(self, dtype: np.dtype[Any]) -> tuple[Callable[..., None], ...]:
        """(elo_order, elo_pair, elo_lanes, elo_tail) for packed words of this dtype, compiled on first use."""
        with self._compiling:
            found = self._orders.get(dtype)
            if found is None:
                width = next((w for w in WORD_BITS if np.dtype(_WORDS[w]) == dtype), None)
                if width is None:
                    raise ValueError(f"packed words must be uint16, uint32 or uint64, not {dtype}")
                address = self._compile((width,)).get_function_address
                found = self._orders[dtype] = (
                    _ORDER(address(f"elo_order{width}")),
                    _PAIR(address(f"elo_pair{width}")),
                    _LANES(address(f"elo_lanes{width}")),
                    _TAIL(address(f"elo_tail{width}")),
                )
            return found

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
        """Final ratings of every order of all the games: shape (len(keys), n)."""
        return self.play_packed(
            pack(a, b, s, n), whole(len(a), np.asarray(keys, dtype=np.uint64)), n, k, init
        )

    def play_packed(
        self, src: Packed, orders: list[Order], n: int, k: float, init: float
    ) -> NDArray[np.float64]:
        """Final ratings of each order (a row each): shape (len(orders), n)."""
        words = np.ascontiguousarray(src.words)
        single, pair, lanes, _ = self.order_functions(words.dtype)
        sizes = [_checked_size(order, len(words)) for order in orders]
        out = np.empty((len(orders), n), dtype=np.float64)
        table = src.table.ctypes.data
        rules = (n, src.cbits, float(k), float(init))

        def run(lo: int, hi: int) -> None:  # orders lo..hi-1 into out[lo:hi]; ctypes drops the GIL meanwhile
            size = max(max(sizes[lo:hi], default=0), 1)
            scratch = [np.empty(size, dtype=words.dtype) for _ in range(min(LANES, hi - lo) or 1)]
            i = lo
            while i < hi:
                x = orders[i]
                if i + LANES <= hi:  # LANES orders side by side, in vectors
                    fields = [
                        (y.starts.ctypes.data, y.lengths.ctypes.data, len(y.starts), _signed(y.key), sizes[j])
                        + (out[j].ctypes.data, scratch[j - i].ctypes.data)
                        for j, y in enumerate(orders[i : i + LANES], start=i)
                    ]
                    rows = np.array(fields, dtype=np.int64).reshape(LANES, len(LANE_FIELDS))
                    lanes(words.ctypes.data, table, rows.ctypes.data, *rules)
                    i += LANES
                    continue
                blocks = (words.ctypes.data, x.starts.ctypes.data, x.lengths.ctypes.data, len(x.starts))
                if i + 1 < hi and _same_blocks(x, orders[i + 1]):  # two orders of the same games together
                    y, ry, wy = orders[i + 1].key, out[i + 1].ctypes.data, scratch[1].ctypes.data
                    pair(
                        *blocks,
                        table,
                        x.key,
                        y,
                        sizes[i],
                        *rules,
                        out[i].ctypes.data,
                        ry,
                        scratch[0].ctypes.data,
                        wy,
                    )
                    i += 2
                else:
                    single(
                        *blocks, table, x.key, sizes[i], *rules, out[i].ctypes.data, scratch[0].ctypes.data
                    )
                    i += 1

        _in_threads(run, len(orders), sum(sizes))
        return out

    def play_tail(
        self, src: Packed, orders: list[Order], n: int, k: float, init: float
    ) -> NDArray[np.float64]:
        """Each order's ratings averaged over the second half of its games (after each of its games from
        len // 2 on; a row each, shape (len(orders), n)): played one at a time by `elo_tail`."""
        words = np.ascontiguousarray(src.words)
        tail = self.order_functions(words.dtype)[3]
        sizes = [_checked_size(order, len(words)) for order in orders]
        out = np.empty((len(orders), n), dtype=np.float64)
        rules = (n, src.cbits, float(k), float(init))

        def run(lo: int, hi: int) -> None:
            scratch = np.empty(max(max(sizes[lo:hi], default=0), 1), dtype=words.dtype)
            r, last = np.empty(n), np.empty(n)
            for i in range(lo, hi):
                x, size = orders[i], sizes[i]
                blocks = (words.ctypes.data, x.starts.ctypes.data, x.lengths.ctypes.data, len(x.starts))
                sums, held = out[i].ctypes.data, last.ctypes.data  # the sums and each rating's last change
                tail(
                    *blocks,
                    src.table.ctypes.data,
                    _signed(x.key),
                    size,
                    *rules,
                    size // 2,
                    r.ctypes.data,
                    scratch.ctypes.data,
                    sums,
                    held,
                )
                out[i] = (out[i] + r * (size - last)) / (size - size // 2) if size else r

        _in_threads(run, len(orders), sum(sizes))
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


def _binding() -> Any:
    """llvmlite's binding, initialised for this processor."""
    import llvmlite.binding as llvm

    try:
        llvm.initialize()  # needed by llvmlite < 0.45; later versions initialise themselves and refuse it
    except RuntimeError:
        pass
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def compile_ir(ir: str) -> Any:
    """An execution engine holding `ir` compiled for this processor's instructions (fma is one, where it has it)
    through LLVM's -O2 pipeline; it owns the machine code, so it must outlive the functions taken from it. The
    object code is kept on disk by what it is made from (`elotui.rating.native.kernel_cache`): compiled once a
    machine, loaded in ~3 ms after that."""
    llvm, machine, made_from = _target(ir)

    def make() -> bytes:
        module = llvm.parse_assembly(ir)
        module.verify()
        _optimise(llvm, module, machine)
        return bytes(machine.emit_object(module))

    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
    engine.add_object_file(llvm.ObjectFileRef.from_data(cached_object(made_from, make)))
    engine.finalize_object()
    return engine


def compiled_before(widths: tuple[int, ...] = (16,)) -> bool:
    """Whether this machine has compiled the kernels before: the object code of `elo_online`'s module and of the
    order functions for words of `widths` bits is in the cache (`elotui.rating.native.kernel_cache`), so that loading
    them takes llvmlite's import and ~3 ms a module, and no compile."""
    fma = host_fma()
    return all(is_cached(_target(module_ir(fma=fma, widths=w))[2]) for w in ((), *((w,) for w in widths)))


def _target(ir: str) -> tuple[Any, Any, str]:
    """llvmlite's binding, a target machine for this processor, and everything the object code of `ir` is made
    from (its name in the cache: llvmlite's and LLVM's versions, the target, the processor and its features, the
    IR)."""
    import llvmlite

    llvm = _binding()
    cpu, features, _ = _host(llvm)
    target = llvm.Target.from_default_triple()
    machine = target.create_target_machine(cpu=cpu, features=features, opt=2)
    made_from = "\0".join(
        (llvmlite.__version__, ".".join(map(str, llvm.llvm_version_info)), target.triple, cpu, features, ir)
    )
    return llvm, machine, made_from


def host_fma() -> bool:
    """Whether this processor fuses multiply-adds (the exp variant the kernels compile: elotui.rating.native.exp_ir)."""
    return _host(_binding())[2]


def _host(llvm: Any) -> tuple[str, str, bool]:
    """This processor's name and features for the code generator, and whether it fuses multiply-adds (a generic
    target without FMA where llvmlite cannot tell)."""
    try:
        features = llvm.get_host_cpu_features()
        return str(llvm.get_host_cpu_name()), str(features.flatten()), bool(features.get("fma"))
    except RuntimeError:
        return "", "", False


def _optimise(llvm: Any, module: Any, machine: Any) -> None:
    """LLVM's -O2 pipeline over the module (inlining, loop optimisation; no fast-math flags are set, so the
    floating-point operations stay as written), where this llvmlite has the new pass builder (0.44+)."""
    create = getattr(llvm, "create_pass_builder", None)
    tuning = getattr(llvm, "create_pipeline_tuning_options", None)
    if create is None or tuning is None:
        return
    builder = create(machine, tuning(speed_level=2))
    builder.getModulePassManager().run(module, builder)


def _in_threads(run: Callable[[int, int], None], count: int, updates: int) -> None:
    """`run(lo, hi)` over `count` independent orders split among the cores this process may use (each order
    played by one thread, whole, so the result does not depend on the split); ctypes drops the GIL meanwhile."""
    parts = min(_cores(), count, max(1, updates // PARALLEL_MIN_UPDATES))
    bounds = _split(count, parts)
    threads = [threading.Thread(target=run, args=(lo, hi)) for lo, hi in itertools.pairwise(bounds[1:])]
    for thread in threads:
        thread.start()
    run(bounds[0], bounds[1])
    for thread in threads:
        thread.join()


def _split(count: int, parts: int) -> list[int]:
    """Bounds of `parts` runs of `count` orders, as even as can be; [0, 0] for no parts. A run plays its orders
    LANES at a time and the rest in a pair or alone, ~1.25x an order's time in lanes: 100 orders in two runs of
    50 (12 groups and a pair each) take 50.5 lane-orders' time, against 52 in runs of whole groups (48 and 52;
    the permutations 4 % faster, measured)."""
    if parts <= 0:
        return [0, 0]
    return [count * i // parts for i in range(parts + 1)]


def _signed(key: int) -> int:
    """A stream key (0 .. 2^64 - 1) as the int64 the kernel reads it as (the same 64 bits)."""
    return key - (1 << 64) if key >= 1 << 63 else key


def _same_blocks(x: Order, y: Order) -> bool:
    """Whether two orders play the same games (a permutation's orders, the two orders of a bootstrap round)."""
    return (x.starts is y.starts or np.array_equal(x.starts, y.starts)) and (
        x.lengths is y.lengths or np.array_equal(x.lengths, y.lengths)
    )


def _checked_size(order: Order, n_words: int) -> int:
    """The games of an order, with its blocks checked to lie inside the source (the kernel copies them)."""
    starts, lengths = order.starts, order.lengths
    if not (starts.dtype == lengths.dtype == np.int64 and starts.shape == lengths.shape and starts.ndim == 1):
        raise ValueError("block starts and lengths must be 1-d int64 arrays of the same length")
    if not (starts.flags.c_contiguous and lengths.flags.c_contiguous):
        raise ValueError("block starts and lengths must be contiguous")
    if len(starts) and (
        int(starts.min()) < 0 or int(lengths.min()) < 0 or int((starts + lengths).max()) > n_words
    ):
        raise ValueError("an order's blocks must lie inside the source games")
    return int(lengths.sum())


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
