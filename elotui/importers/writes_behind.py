"""How an import's files are written while the import goes on (elotui.importers.common.write_tournament): one
after the other in a helper thread while the caller makes the store snapshot (`behind`), each large text written
while the next is made and encoded (`Writes`).

A file's write waits for the disk without Python's lock, so the ~0.5 GB of a 10^6-battle import's files are written
while Python makes the next texts and the snapshot on the other core. The files are written as they were without
the helper thread: in the same order, each whole into a temporary file that then replaces its path; the first that
cannot be written stops the others, and its error is raised in the caller's thread. An interruption stops the file
being written at its next text (`until`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import BinaryIO, Self


class Stopped(BaseException):
    """The files' writing was stopped (the caller was interrupted: `behind`)."""


def behind(
    work: Callable[[threading.Event], None], meanwhile: Callable[[Callable[[], None]], object]
) -> None:
    """`work` in a helper thread while this one runs `meanwhile(written)`, where `written()` waits for `work` and
    raises what it raised (`meanwhile` commits what must follow the files: the import's store snapshot). Once both
    are over, what `work` raised is raised (it would have come first: `work` was done before `meanwhile`), else what
    `meanwhile` raised. An interruption (Ctrl-C) sets the event `work` is given (it stops at its next text:
    `until`), and is raised once `work` has cleaned up."""
    failed: list[BaseException] = []
    stop = threading.Event()

    def run() -> None:
        try:
            work(stop)
        except BaseException as exc:  # noqa: BLE001 (raised in the caller's thread; `Stopped`: its own interruption)
            failed.append(exc)

    def written() -> None:
        _joined(helper, stop)
        if failed:
            raise failed[0]

    helper = threading.Thread(target=run, name="elotui-import-files")
    helper.start()
    try:
        meanwhile(written)
    except BaseException as exc:
        interrupted = not isinstance(exc, Exception)
        if interrupted:
            stop.set()
        _joined(helper, stop)
        if failed and not interrupted:
            raise failed[0] from None
        raise
    _joined(helper, stop)
    if failed:
        raise failed[0] from None


def _joined(helper: threading.Thread, stop: threading.Event) -> None:
    """Wait for the helper thread; interrupted while waiting, stop it, wait for its cleanup, and go on with the
    interruption."""
    try:
        helper.join()
    except BaseException:
        stop.set()
        helper.join()
        raise


def until(stop: threading.Event, texts: Iterable[str]) -> Iterator[str]:
    """The texts, until `stop` is set (then Stopped)."""
    for text in texts:
        if stop.is_set():
            raise Stopped
        yield text


class Writes:
    """A file's writes, each large one in a helper thread while the caller makes the next (one at a time, in order:
    `write` first waits for the one before, and raises what it raised; leaving the block waits for the last)."""

    BEHIND = 1 << 18  # a write of at least this many bytes is done behind (an arena import's texts: ~1 MB)

    def __init__(self, fh: BinaryIO) -> None:
        self._fh = fh
        self._pool: ThreadPoolExecutor | None = None
        self._pending: Future[int] | None = None

    def write(self, data: bytes) -> None:
        self._wait()
        if len(data) < self.BEHIND:
            self._fh.write(data)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="elotui-write")
        self._pending = self._pool.submit(self._fh.write, data)

    def _wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._wait()  # (also when the caller failed: the file is not closed under a write)
        finally:
            if self._pool is not None:
                self._pool.shutdown()
