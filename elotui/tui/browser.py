"""The TUI served to browsers by textual-serve (`elotui serve`, elotui.commands.serve): its Server with a token
check in front of every request when a token is set."""

from __future__ import annotations

import secrets
from typing import Any

from aiohttp import web
from textual_serve.server import Server

COOKIE = "elotui_token"


def token_server() -> Any:
    """textual-serve's Server, with a token check in front of every request when a token is set."""

    class TokenServer(Server):  # type: ignore[misc]
        token: str | None = None

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            if self.token:
                app.middlewares.append(self._check)
            return app

        @web.middleware
        async def _check(self, request: web.Request, handler: Any) -> web.StreamResponse:
            given = request.query.get("token")
            if secrets.compare_digest(given or request.cookies.get(COOKIE, ""), self.token or ""):
                response = await handler(request)
                if given:
                    response.set_cookie(COOKIE, given, httponly=True, samesite="Strict")
                return response
            return web.Response(status=403, text="elotui serve: this page needs its token (?token=...)\n")

    return TokenServer
