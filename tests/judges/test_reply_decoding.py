"""Reply bodies are decoded within max_reply_bytes at every stage: each Content-Encoding (gzip, deflate, br, zstd,
stacked as `gzip, gzip`), checked against the standard library's and the packages' own one-shot decoders, and
bombs refused before their output is kept, in a process whose peak memory is measured."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from elotui.judges.decoding import CHUNK, BoundedBody, ReplyTooLarge, UndecodableReply, accept_encoding
from tests.judges.conftest import request
from tests.servers.fake_llm import FakeLLMServer, RawBody

brotli = pytest.importorskip("brotli")
try:
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:
    zstd = pytest.importorskip("backports.zstd")

MiB = 1024 * 1024


def deflate_raw(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,  # zlib-wrapped, as RFC 9110 says
    "br": brotli.compress,
    "zstd": zstd.compress,
}


def encode(data: bytes, encodings: list[str]) -> bytes:
    for name in encodings:  # in the order the header lists them: the first was applied first
        data = ENCODERS[name](data)
    return data


def decode(raw: bytes, encodings: list[str], limit: int = 64 * MiB, piece: int | None = None) -> bytes:
    body = BoundedBody(encodings, limit)
    step = piece or len(raw) or 1
    for at in range(0, len(raw), step):
        body.feed(raw[at : at + step])
    return body.body()


def sample(n: int, seed: int = 7) -> bytes:
    """Text-like bytes that compress (a reply), from a seeded generator."""
    rng = random.Random(seed)
    words = [bytes(rng.choice(b'abcdefghij \n{}":,') for _ in range(rng.randint(1, 9))) for _ in range(300)]
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words)
    return bytes(out[:n])


@pytest.mark.parametrize(
    "encodings",
    [[], ["identity"], ["gzip"], ["x-gzip"], ["deflate"], ["br"], ["zstd"], ["gzip", "gzip"], ["br", "gzip"]]
    + [["zstd", "deflate", "gzip"]],
)
@pytest.mark.parametrize("piece", [None, 1, 777])
def test_every_encoding_and_stack_decodes_to_the_original(encodings: list[str], piece: int | None) -> None:
    data = sample(120_000)
    assert decode(encode(data, [e for e in encodings if e != "identity"]), encodings, piece=piece) == data


def test_raw_deflate_is_read_as_httpx_reads_it() -> None:
    data = sample(50_000, seed=3)
    assert decode(deflate_raw(data), ["deflate"]) == data
    assert decode(deflate_raw(data), ["deflate"], piece=1) == data


def test_header_names_are_read_as_http_says_case_and_spaces_aside() -> None:
    data = sample(10_000)
    assert decode(gzip.compress(gzip.compress(data)), [" GZIP", "gzip "]) == data


@pytest.mark.parametrize(
    ("encodings", "bomb"),
    [
        (["gzip"], gzip.compress(b"\0" * (64 * MiB), 9)),
        (["gzip", "gzip"], gzip.compress(gzip.compress(b"\0" * (64 * MiB), 9), 9)),
        (["deflate"], zlib.compress(b"\0" * (64 * MiB), 9)),
        (["br"], brotli.compress(b"\0" * (64 * MiB), quality=5)),
        (["zstd"], zstd.compress(b"\0" * (64 * MiB))),
    ],
)
def test_a_bomb_stops_at_the_cap_with_no_more_kept(encodings: list[str], bomb: bytes) -> None:
    limit = 1 * MiB
    body = BoundedBody(encodings, limit)
    with pytest.raises(ReplyTooLarge, match=r"larger than max_reply_bytes = 1,048,576 bytes \(decompressed"):
        body.feed(bomb)
    assert len(body._body) <= limit  # nothing past the cap was kept


def test_every_layer_counts_not_only_the_last() -> None:
    # The outer gzip holds a small inner gzip stream followed by 8 MiB of zeros that the inner decoder ignores
    # (bytes after the end of its stream): the decoded body is small, the outer layer's output is not.
    inner = gzip.compress(b"{}")
    bomb = gzip.compress(inner + b"\0" * (8 * MiB), 9)
    with pytest.raises(ReplyTooLarge, match=r"after the gzip layer"):
        decode(bomb, ["gzip", "gzip"], limit=1 * MiB)
    assert decode(gzip.compress(inner + b"\0" * 1000), ["gzip", "gzip"], limit=1 * MiB) == b"{}"


def test_the_bytes_on_the_wire_count_too() -> None:
    with pytest.raises(ReplyTooLarge, match=r"larger than max_reply_bytes = 1,024 bytes: not read"):
        decode(b"x" * 1025, [], limit=1024)
    with pytest.raises(ReplyTooLarge, match=r"\(on the wire\)"):
        decode(bytes(random.Random(1).randbytes(4096)), ["gzip"], limit=1024)


def test_unknown_corrupt_and_stacked_too_deep_are_refused_clearly() -> None:
    with pytest.raises(
        UndecodableReply, match=r"encoded as 'compress' \(Content-Encoding\).*it asked for gzip"
    ):
        BoundedBody(["compress"], MiB)
    with pytest.raises(UndecodableReply, match=r"the gzip data is corrupt"):
        decode(b"\x1f\x8b\x08\x00garbage-garbage", ["gzip"])
    with pytest.raises(UndecodableReply, match=r"the br data is corrupt"):
        decode(b"\xff" * 64, ["br"])
    with pytest.raises(UndecodableReply, match="5 stacked Content-Encodings"):
        BoundedBody(["gzip"] * 5, MiB)


def test_a_zstd_window_over_8_mib_is_refused() -> None:
    # A streamed frame (no content size) declares its window: 64 MiB here, which the decoder would allocate for
    # each reply being read. The same data with an 8 MiB window decodes.
    def streamed(window_log: int) -> bytes:
        c = zstd.ZstdCompressor(options={zstd.CompressionParameter.window_log: window_log})
        return c.compress(sample(50_000), mode=zstd.ZstdCompressor.CONTINUE) + c.flush()

    with pytest.raises(UndecodableReply, match="window over 8 MiB"):
        decode(streamed(26), ["zstd"])
    assert decode(streamed(23), ["zstd"]) == sample(50_000)


def test_requests_ask_only_for_what_is_decoded() -> None:
    assert accept_encoding() == "gzip, deflate, br, zstd"  # both packages are test dependencies


async def test_a_stacked_reply_is_judged_and_a_stacked_bomb_is_refused(
    make_judge, fake_llm: FakeLLMServer
) -> None:
    judge, _ = make_judge("openai", max_reply_bytes=1 * MiB, max_retries=0)
    verdict = '{"reasoning": "ok", "better": "B"}'
    good = json.dumps({"choices": [{"message": {"role": "assistant", "content": verdict}}]})
    gz2 = {"Content-Encoding": "gzip, gzip"}
    fake_llm.script(
        RawBody(gzip.compress(gzip.compress(good.encode())), content_type="application/json", headers=gz2),
        RawBody(
            gzip.compress(gzip.compress(b"\0" * (256 * MiB), 9), 9),
            content_type="application/json",
            headers=gz2,
        ),
        RawBody(good.encode(), content_type="application/json", headers={"Content-Encoding": "x-unknown"}),
    )
    ok, bomb, unknown = [await judge.judge(request(f"k{i}")) for i in range(3)]
    assert (ok.status, ok.winner) == ("ok", "second")
    assert bomb.status == "error" and "larger than max_reply_bytes = 1,048,576 bytes (decompressed)" in (
        bomb.error or ""
    )
    assert unknown.status == "error" and "encoded as 'x-unknown'" in (unknown.error or "")
    assert fake_llm.requests[0].headers["accept-encoding"] == accept_encoding()
    await judge.aclose()


# --- memory: a judge reading bombs at once, in a process of its own ------------------------------------------

CAP = 2 * MiB
CONCURRENCY = 8
# The documented bound: a reply being read holds at most max_reply_bytes of decoded body, one CHUNK per layer and
# its decoders' windows (32 KiB for gzip/deflate, up to 16 MiB for br, 8 MiB for zstd); a judge reads at most
# max_concurrency replies at once.
WINDOW = {"gzip, gzip": 2 * 32 * 1024, "deflate": 32 * 1024, "br": 16 * MiB, "zstd": 8 * MiB}


def _zeros_compressed(compress: Callable[[bytes], bytes], finish: Callable[[], bytes], total: int) -> bytes:
    block = b"\0" * MiB
    return b"".join(compress(block) for _ in range(total // MiB)) + finish()


def _bomb(encoding: str, total: int = 64 * MiB) -> bytes:
    if encoding == "br":
        c = brotli.Compressor(quality=5, lgwin=24)  # the largest window a brotli stream may ask for
        return _zeros_compressed(c.process, c.finish, total)
    if encoding == "zstd":
        z = zstd.ZstdCompressor(options={zstd.CompressionParameter.window_log: 23})
        return _zeros_compressed(z.compress, lambda: z.flush(), total)
    wbits = 31 if encoding.startswith("gzip") else 15
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    inner = _zeros_compressed(c.compress, c.flush, total)
    return gzip.compress(inner, 9) if encoding == "gzip, gzip" else inner


@pytest.mark.parametrize("encoding", ["gzip, gzip", "deflate", "br", "zstd"])
def test_bombs_read_at_once_stay_within_the_documented_memory_bound(tmp_path: Path, encoding: str) -> None:
    bomb = tmp_path / "bomb"
    bomb.write_bytes(_bomb(encoding))
    out = subprocess.run(
        [sys.executable, "-m", "tests.judges.reply_memory", str(bomb), encoding, str(CAP), str(CONCURRENCY)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)
    assert result["warm"] == "ok" and result["statuses"] == ["error"], result
    assert result["errors"] == [
        "judge j1: the reply is larger than max_reply_bytes = 2,097,152 bytes (decompressed): not read"
    ]
    assert result["max_in_flight"] == CONCURRENCY  # every bomb was being read at the same time
    layers = encoding.count(",") + 1
    bound = CONCURRENCY * (CAP + layers * CHUNK + WINDOW[encoding])
    grown = result["peak"] - result["before"]
    assert grown <= 2 * bound, (encoding, grown / MiB, bound / MiB)


def test_without_the_packages_br_and_zstd_are_neither_asked_for_nor_decoded(monkeypatch) -> None:
    from elotui.judges import decoding

    monkeypatch.setattr(decoding, "_optional", lambda name: None)  # as on an installation without them
    decoding.accept_encoding.cache_clear()
    try:
        assert decoding.accept_encoding() == "gzip, deflate"
        with pytest.raises(UndecodableReply, match=r"encoded as 'br' .*it asked for gzip, deflate$"):
            BoundedBody(["br"], MiB)
        with pytest.raises(UndecodableReply, match=r"encoded as 'zstd'"):
            BoundedBody(["gzip", "zstd"], MiB)
    finally:
        monkeypatch.undo()
        decoding.accept_encoding.cache_clear()
    assert decoding.accept_encoding() == "gzip, deflate, br, zstd"
