"""`elotui serve T`: textual-serve's page on 127.0.0.1, its token check, and the refusal to listen on another
address without a token."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from elotui.cli import main
from tests.report.conftest import TOURNAMENT

pytest.importorskip("textual_serve", reason="elotui serve needs textual-serve (pip install 'elotui[serve]')")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "example.org"])
def test_other_addresses_need_a_token(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", str(TOURNAMENT), "--host", host]) == 2
    err = capsys.readouterr().err
    assert "not a loopback address" in err and "--token" in err


async def session_output(port: int, cookie: str | None) -> bytes:
    """What a browser session's websocket receives until the leaderboard's contestants show (or it closes)."""
    import aiohttp

    headers = {"Cookie": f"elotui_token={cookie}"} if cookie else {}
    got = b""
    async with (
        aiohttp.ClientSession() as client,
        client.ws_connect(f"http://127.0.0.1:{port}/ws?width=120&height=40", headers=headers) as ws,
    ):
        for _ in range(400):  # messages; each waits at most 30 s
            message = await asyncio.wait_for(ws.receive(), 30)
            if message.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                break
            got += message.data if isinstance(message.data, bytes) else message.data.encode("utf-8")
            if b"vicuna-13b" in got and b"gpt-3.5" in got:
                break
    return got


def test_serve_answers_the_page_with_its_token(vicuna_store: Path) -> None:
    port = free_port()
    store = vicuna_store
    argv = [sys.executable, "-m", "elotui.cli", "serve", str(TOURNAMENT), "--store", str(store)]
    proc = subprocess.Popen(
        [*argv, "--port", str(port), "--token", "s3cret"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(100):  # up to ~20 s for the server to listen
            try:
                status, _ = get(base)
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        else:
            pytest.fail("elotui serve did not listen")
        assert status == 403  # no token
        status, page = get(base + "?token=wrong")
        assert status == 403
        status, page = get(base + "?token=s3cret")
        assert status == 200
        assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
        # a browser session: the read-only TUI on the store, its leaderboard streamed to the page
        assert b"vicuna-13b" in asyncio.run(session_output(port, "s3cret"))
        import aiohttp

        with pytest.raises(aiohttp.WSServerHandshakeError):
            asyncio.run(session_output(port, None))
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert f"open {base}?token=s3cret (read-only, as elotui watch)" in err.decode("utf-8")
