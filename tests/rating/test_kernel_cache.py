"""The Elo kernels' machine code is kept on disk by what it is made from (elotui.rating.native.kernel_cache): made once,
read after that, never stale, and a damaged or unwritable cache only costs a compile."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from elotui.rating.elo import _stream_keys
from elotui.rating.native.kernel_cache import cached_object, is_cached

pytest.importorskip("llvmlite")
from elotui.rating.native.kernels import Kernels, compiled_before, pack, whole


def _files(home: Path) -> list[Path]:
    folder = home / "cache" / "kernels"
    return sorted(folder.glob("*.o")) if folder.exists() else []


def test_made_once_then_read(tmp_path: Path) -> None:
    made: list[str] = []

    def make(text: str) -> bytes:
        made.append(text)
        return text.encode() * 3

    assert cached_object("recipe A", lambda: make("a")) == b"aaa"
    assert cached_object("recipe A", lambda: make("x")) == b"aaa"  # read, not made again
    assert cached_object("recipe B", lambda: make("b")) == b"bbb"  # another recipe, another file
    assert made == ["a", "b"]
    assert len(_files(Path(os.environ["ELOTUI_HOME"]))) == 2
    assert not list(
        (Path(os.environ["ELOTUI_HOME"]) / "cache" / "kernels").glob(".made-*")
    )  # no scratch left


def test_a_damaged_file_is_made_again_and_written_over() -> None:
    home = Path(os.environ["ELOTUI_HOME"])
    assert cached_object("recipe", lambda: b"machine code") == b"machine code"
    (path,) = _files(home)
    for damage in (path.read_bytes()[:-3], path.read_bytes()[:10], b"", b"\0" * 32 + b"machine codf"):
        path.write_bytes(damage)
        assert cached_object("recipe", lambda: b"machine code") == b"machine code"
        assert cached_object("recipe", lambda: b"not made again") == b"machine code"  # written whole again


def test_is_cached_is_whether_cached_object_would_read_the_file() -> None:
    home = Path(os.environ["ELOTUI_HOME"])
    assert not is_cached("recipe")
    cached_object("recipe", lambda: b"machine code")
    assert is_cached("recipe") and not is_cached("another recipe")
    (path,) = _files(home)
    path.write_bytes(path.read_bytes()[:-1])  # damaged: it would be made again
    assert not is_cached("recipe")


def test_an_unwritable_cache_only_means_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ELOTUI_HOME", str(blocker / "home"))  # cannot be created: ENOTDIR
    assert cached_object("recipe", lambda: b"one") == b"one"
    assert cached_object("recipe", lambda: b"two") == b"two"  # nothing kept, made every time


def test_kernels_read_from_the_cache_play_exactly_as_compiled_ones() -> None:
    home = Path(os.environ["ELOTUI_HOME"])
    rng = np.random.default_rng(2)
    n = 12
    a = rng.integers(0, n, 3_000)
    b = (a + rng.integers(1, n, 3_000)) % n
    p = pack(a, b, rng.choice([0.0, 0.5, 1.0], 3_000), n)
    orders = whole(3_000, _stream_keys(6, 9))
    compiled = Kernels()
    fresh = compiled.play_packed(p, orders, n, 16.0, 1000.0)
    files = _files(home)
    assert len(files) == 2  # the online function's module, and the 16-bit order functions
    stamps = [f.stat().st_mtime_ns for f in files]
    read = Kernels().play_packed(p, orders, n, 16.0, 1000.0)
    assert np.array_equal(fresh, read)
    assert [f.stat().st_mtime_ns for f in _files(home)] == stamps  # read, not written again


def test_compiled_before_once_both_modules_are_on_disk() -> None:
    home = Path(os.environ["ELOTUI_HOME"])
    assert not compiled_before()
    kernels = Kernels()  # the online function's module only
    assert not compiled_before()
    kernels.order_functions(np.dtype(np.uint16))
    assert compiled_before() and not compiled_before((16, 32))
    for f in _files(home):
        f.write_bytes(b"")
        assert not compiled_before()
        f.unlink()


def test_warm_kernels_compiles_in_the_background_only_what_is_not_on_disk(tmp_path: Path) -> None:
    # A first Elo export on this machine compiles in a thread while it loads its input; later ones load the
    # kernels when they rate, with no thread taking turns at the GIL with the loading.
    import subprocess
    import sys

    code = (
        "import threading; from elotui.rating.native import warm_kernels; warm_kernels(); "
        "print(sorted(t.name for t in threading.enumerate()))"
    )
    env = {**os.environ, "ELOTUI_HOME": str(tmp_path)}
    threads = [
        subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
        ).stdout
        for _ in range(2)
    ]
    assert threads == ["['MainThread', 'elotui-elo-compile']\n", "['MainThread']\n"]
    assert len(_files(tmp_path)) == 2  # the first process waited for its compile, and kept it
