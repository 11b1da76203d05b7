"""A run's messages leave the server as they are made: Nagle's algorithm off on the server's sockets.

asyncio turns Nagle's algorithm off on every TCP connection it serves (``TCP_NODELAY``, in
``asyncio.base_events._set_nodelay``), but it tells TCP by the socket's protocol number,
``sock.proto == IPPROTO_TCP``. Streamlit 1.67 binds its listening socket itself as
``socket.socket(family=...)``, protocol number 0, and a socket accepted from it says 0 too. So every
websocket of a Streamlit server kept Nagle's algorithm: a message written while an earlier one is not yet
acknowledged waits in the kernel for the browser's acknowledgement, and the browser's kernel delays that
acknowledgement (40 ms on Linux). Measured on the Encoding matrix at the caps, a d_model change (one
session, loopback, the server on a core of its own): the ~110 KB chart left at 19 ms, the four small
messages after it (the download block, the module's expander, ``script_finished``) at 60-68 ms in most
runs; and the sidebar's messages, made from 5 ms on, all reached the client together at 19 ms.

:func:`install` makes asyncio's rule take any stream socket of the internet families for TCP, so every
connection accepted after it gets ``TCP_NODELAY``, and sets it once on the connections already open (the
first session's own websocket is one: app.py installs this in that session's first run). Nothing else
changes: the same bytes in the same order; only the kernel no longer holds a small write back.
Measured in BENCHMARKS.md ("Nagle's algorithm held a run's last messages back").
"""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
from asyncio import base_events

_LOCK = threading.Lock()
_ORIGINAL = getattr(base_events, "_set_nodelay", None)


def set_no_delay(sock) -> None:
    """``TCP_NODELAY`` on a stream socket of the internet families, whatever its protocol number says."""
    if sock.family in {socket.AF_INET, socket.AF_INET6} and sock.type == socket.SOCK_STREAM:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # closed meanwhile, or not a TCP socket after all
            pass


def install() -> bool:
    """Nagle's algorithm off for this process's TCP connections, from now on and those open (idempotent).
    True if this call installed it; False if it was already, or this Python's asyncio has no such rule."""
    with _LOCK:
        if _ORIGINAL is None or base_events._set_nodelay is set_no_delay:
            return False
        base_events._set_nodelay = set_no_delay
    for transport in open_transports():
        sock = transport.get_extra_info("socket")
        if sock is not None:
            set_no_delay(sock)
    return True


def open_transports() -> list[asyncio.Transport]:
    """The asyncio transports of this process that are not closing (found once, by the garbage collector's
    list of objects: no server's internals)."""
    kinds = transport_types()
    return [obj for obj in gc.get_objects() if type(obj) in kinds and not obj.is_closing()]


def transport_types() -> set[type]:
    """asyncio.Transport and every class derived from it so far (a set: a type's membership is a
    hash, where isinstance over the ~120,000 objects of a server took 17 ms)."""
    kinds, todo = set(), [asyncio.Transport]
    while todo:
        kind = todo.pop()
        if kind not in kinds:
            kinds.add(kind)
            todo.extend(kind.__subclasses__())
    return kinds
