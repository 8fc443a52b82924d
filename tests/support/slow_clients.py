"""Clients that never finish a request, for the listeners' limits (B30): sockets on a
loopback port that send half a request head, or a head and part of a body, then
nothing. Every wait is bounded: a server that never closes fails the test, never hangs it."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

HALF_HEAD = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Never-Ends: "
"""A request line and one header cut in the middle: the head never ends."""


@contextmanager
def open_sockets(port: int, count: int, first: bytes) -> Iterator[list[socket.socket]]:
    """``count`` connections to ``127.0.0.1:port``, each having sent ``first`` (as much
    of it as the server took before it closed the connection); all closed on the way out."""
    opened: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            opened.append(sock)
            try:
                sock.sendall(first)
            except OSError:  # refused and closed while sending: what a limit does
                pass
        yield opened
    finally:
        for sock in opened:
            sock.close()


def partial_body(length: int, sent: int, path: str = "/mcp") -> bytes:
    """A head declaring ``length`` bytes of body, and the first ``sent`` of them."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )
    return head.encode() + b"x" * sent


def until_closed(sock: socket.socket, deadline: float) -> bytes:
    """What the server sends on ``sock`` until it closes it; AssertionError if it is
    still open at ``deadline`` (a ``time.monotonic()`` value)."""
    got = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"still open at the deadline, having sent {got[:80]!r}")
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return got
        if not chunk:
            return got
        got += chunk


def all_closed_within(socks: list[socket.socket], seconds: float) -> list[bytes]:
    """What each of ``socks`` got before the server closed it, all within ``seconds``."""
    deadline = time.monotonic() + seconds
    return [until_closed(sock, deadline) for sock in socks]
