"""`elotui serve T`: the TUI in a browser, through textual-serve (`pip install 'elotui[serve]'`). Each browser
session runs its own `elotui watch T` (read-only: it sends no call), or with `--control` its own `elotui run T`.

It listens on 127.0.0.1 unless `--host` says otherwise; any address that is not loopback needs `--token` (a
browser then opens `http://HOST:PORT/?token=TOKEN` once, and a cookie carries the token for the session's
requests; a request without it gets 403), because whoever reaches the page reads the tournament's texts."""

from __future__ import annotations

import argparse
import ipaddress
import secrets
import shlex
import socket
import sys
from pathlib import Path

from elotui.commands.common import add_store_arg, add_tournament_arg
from elotui.errors import UserError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="serve the TUI to browsers (textual-serve); read-only unless --control")
    add_tournament_arg(p)
    add_store_arg(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument(
        "--token",
        nargs="?",
        const="",
        metavar="TOKEN",
        help="require this token (none given: a random one, printed); needed on any address but loopback",
    )
    p.add_argument("--public-url", metavar="URL", help="the address browsers use (default: http://HOST:PORT)")
    p.add_argument("--control", action="store_true", help="browser sessions run the tournament (elotui run)")
    p.add_argument("--theme", metavar="NAME", help="TUI theme")
    p.set_defaults(handler=run)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def session_command(args: argparse.Namespace) -> str:
    """The command each browser session runs (textual-serve starts it through the shell)."""
    argv = [
        sys.executable,
        "-m",
        "elotui.cli",
        "run" if args.control else "watch",
        str(Path(args.tournament).resolve()),
    ]
    if args.store:
        argv += ["--store", str(Path(args.store).resolve())]
    if args.theme:
        argv += ["--theme", args.theme]
    return shlex.join(argv)


def _token(args: argparse.Namespace) -> str | None:
    if args.token is None:
        if not is_loopback(args.host):
            raise UserError(
                f"elotui serve: --host {args.host} is not a loopback address: anyone who reaches it would see the "
                "tournament; add --token (a random token is made) or --token TOKEN, or keep the default 127.0.0.1"
            )
        return None
    return args.token or secrets.token_urlsafe(16)


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UserError(f"elotui serve: --port must be 1-65535, not {args.port}")
    token = _token(args)
    if not Path(args.tournament).is_file():
        raise UserError(f"{args.tournament}: no such tournament file")
    try:
        from elotui.tui.browser import token_server
    except ImportError:
        raise UserError(
            "elotui serve needs textual-serve, which is not installed: pip install 'elotui[serve]'"
        ) from None
    host = args.host
    public = (
        args.public_url or f"http://{socket.gethostname() if host in ('0.0.0.0', '::') else host}:{args.port}"
    )
    server = token_server()(
        session_command(args), host=host, port=args.port, title="elotui", public_url=public.rstrip("/")
    )
    server.token = token
    if not is_loopback(host):
        print(f"elotui serve: warning: listening on {host}, not only this machine", file=sys.stderr)
    where = f"{public}/?token={token}" if token else public
    mode = "control: each session runs the tournament" if args.control else "read-only, as elotui watch"
    print(f"elotui serve: open {where} ({mode}); Ctrl-C stops", file=sys.stderr)
    server.serve()
    return 0
