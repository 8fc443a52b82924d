"""Who may read the page and act on it (docs/web.md, "Security").

``teamdeck web`` prints its address once with a random token (``/?token=…``, as Jupyter
does). Opening it exchanges the token for a session: an HttpOnly, SameSite=Strict cookie
(Secure over TLS) that names a session kept here, in memory, with its own CSRF token.
A script may instead send ``Authorization: Bearer <token>`` on each request. Anything
else is answered 401 with no data.

Every write is a POST that must carry its session's CSRF token (a form field) and, when
the browser says where it comes from, an ``Origin`` of this server: a page elsewhere can
neither read the token nor make a write that passes. Every response carries a strict
Content-Security-Policy (no inline script, nothing from another origin), forbids
framing and caching, and sends a referrer only to this server (the token, in the first
address only, never leaves in a header).
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from starlette.requests import Request

COOKIE = "teamdeck-session"
MAX_SESSIONS = 64
"""Sessions kept at once; opening the address once more drops the oldest (a phone and a
laptop, reopened for weeks, never fill the memory)."""
FLASH_LINES = 5

SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # no-referrer would make the browser send Origin: null with every form
    "cache-control": "no-store",
}
"""Sent with every response, the 401 included."""


@dataclass
class Session:
    """One browser that opened the address with the token.

    Attributes:
        csrf: the token its forms carry (none for a script's bearer request: a browser
            never sends that header by itself, so it cannot be forged cross-site).
        flash: how its last actions went, shown once on its next page.
    """

    csrf: str | None
    flash: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=FLASH_LINES))

    def tell(self, severity: str, text: str) -> None:
        """Show ``text`` on the next page (``severity``: ``done``, ``refused``, ``unknown``)."""
        self.flash.append((severity, text))

    def told(self) -> list[tuple[str, str]]:
        """What to show on this page, once."""
        lines = list(self.flash)
        self.flash.clear()
        return lines


class Access:
    """The token, the sessions it opened, and the checks of each request (see the module).

    Args:
        token: the secret the printed address carries.
        secure: served over TLS (the cookie is Secure).
    """

    def __init__(self, token: str, *, secure: bool) -> None:
        self._token = token
        self.secure = secure
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def token_matches(self, given: str) -> bool:
        """Whether ``given`` is the token (in constant time)."""
        return hmac.compare_digest(given.encode(), self._token.encode())

    def open_session(self) -> tuple[str, Session]:
        """A new session for a browser that brought the token: its cookie value, and it."""
        session_id = secrets.token_urlsafe(32)
        session = Session(csrf=secrets.token_urlsafe(32))
        with self._lock:
            self._sessions[session_id] = session
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return session_id, session

    def session_of(self, request: Request) -> Session | None:
        """The session ``request`` belongs to: its cookie's, or a script's with the bearer
        token; None for anyone else."""
        cookie = request.cookies.get(COOKIE)
        if cookie:
            with self._lock:
                session = self._sessions.get(cookie)
            if session is not None:
                return session
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and given and self.token_matches(given.strip()):
            return Session(csrf=None)
        return None

    def cookie_header(self, session_id: str) -> str:
        """The ``Set-Cookie`` value of a new session."""
        secure = "; Secure" if self.secure else ""
        return f"{COOKIE}={session_id}; Path=/; HttpOnly; SameSite=Strict{secure}"


def write_refusal(request: Request, session: Session, form: dict[str, str]) -> str | None:
    """Why a POST may not write (None: it may): a cross-origin ``Origin``, or a
    session's form without its CSRF token."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
        return "this form was sent from another site; nothing was done"
    if session.csrf is not None and not hmac.compare_digest(form.get("csrf", "").encode(), session.csrf.encode()):
        return "this form is stale or was not sent by this page (no valid CSRF token); nothing was done: reload it"
    return None
