"""posenc.ui.no_delay: a server's TCP connections get TCP_NODELAY, those accepted later and those open."""

from __future__ import annotations

import asyncio
import socket
from asyncio import base_events

import pytest

from posenc.ui import no_delay


@pytest.fixture
def restored():
    """asyncio's own rule during the test (an AppTest of app.py installs it in this process) and as it
    was after it."""
    before = base_events._set_nodelay
    base_events._set_nodelay = no_delay._ORIGINAL
    yield
    base_events._set_nodelay = before


def listener() -> socket.socket:
    """A listening socket made as Streamlit 1.67 makes its own: ``socket.socket(family=...)``, protocol 0."""
    sock = socket.socket(family=socket.AF_INET)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.setblocking(False)
    return sock


async def accepted_no_delay(install_between: bool) -> tuple[int, int]:
    """Serve a protocol-0 listener with asyncio; TCP_NODELAY of the connection accepted before install
    (0 unless install set it) and of the one accepted after."""
    served: list[socket.socket] = []

    async def on_connection(reader, writer):
        served.append(writer.get_extra_info("socket"))

    async def connect() -> None:
        count = len(served)
        _, writer = await asyncio.open_connection(*sock.getsockname())
        while len(served) == count:
            await asyncio.sleep(0.01)
        clients.append(writer)

    sock, clients = listener(), []
    server = await asyncio.start_server(on_connection, sock=sock)
    async with server:
        await connect()
        if install_between:
            no_delay.install()
        await connect()
        flags = tuple(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in served)
        for writer in clients:
            writer.close()
    return flags


def test_without_it_a_connection_from_a_protocol_0_listener_keeps_nagle_s_algorithm(restored):
    """The bug it mends: asyncio's rule skips a socket whose protocol number is 0."""
    assert asyncio.run(accepted_no_delay(install_between=False)) == (0, 0)


def test_install_sets_no_delay_on_the_open_connection_and_on_those_accepted_later(restored):
    assert asyncio.run(accepted_no_delay(install_between=True)) == (1, 1)


def test_install_is_idempotent_and_keeps_other_sockets_alone(restored):
    assert no_delay.install() is True
    assert no_delay.install() is False
    assert base_events._set_nodelay is no_delay.set_no_delay
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    unix_a, unix_b = socket.socketpair(socket.AF_UNIX)
    with udp, unix_a, unix_b:
        no_delay.set_no_delay(udp)  # not a stream socket: nothing to set, nothing raised
        no_delay.set_no_delay(unix_a)
    closed = socket.socket()
    closed.close()
    no_delay.set_no_delay(closed)  # a socket closed meanwhile: ignored


def test_the_app_installs_it_in_its_first_run(restored):
    """app.py installs it (the first session's own websocket is open by then: install sets it there too)."""
    from apptest_helpers import run

    run()
    assert base_events._set_nodelay is no_delay.set_no_delay
