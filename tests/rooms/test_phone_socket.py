"""bench/phone_socket.py, the rooms benchmark's light phone: it must speak the websocket protocol as a browser does, or
the benchmark measures something else (issue 34).

Against the ``websockets`` library's own server, which checks what a client sends (masked frames, a valid close) and
is made to send what a server may: messages compressed with permessage-deflate (the context carried between them),
a message in fragments, a ping, a large message, text.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from websockets.asyncio.server import serve

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import phone_socket  # noqa: E402

HOST = "127.0.0.1"


AGREED: list[list] = []  # the extensions each connection agreed


async def _talk(ws):
    """What the test server does with a client: the messages of MESSAGES (and a ping, whose pong it waits for), then
    an echo of each message it gets."""
    AGREED.append([type(extension).__name__ for extension in ws.protocol.extensions])
    await ws.send(b"first")
    await ws.send(b"again " * 50)  # compressed against the first: the context is carried
    await ws.send([b"frag", b"ment", b"ed"])  # one message in three frames
    await asyncio.wait_for(await ws.ping(b"are you there"), 10)  # answered, or the test fails
    big = os.urandom(300_000)  # incompressible, longer than 64 KiB: a 64-bit length
    await ws.send(big)
    await ws.send("text, as bytes")
    async for message in ws:
        await ws.send(message)


MESSAGES = [b"first", b"again " * 50, b"fragmented", None, b"text, as bytes"]


@pytest.mark.parametrize("compression", ["deflate", None])
def test_the_phone_reads_what_a_server_sends_and_sends_as_a_browser_does(compression):
    async def main():
        async with serve(_talk, HOST, 0, subprotocols=["streamlit"], compression=compression) as server:
            port = server.sockets[0].getsockname()[1]
            async with await phone_socket.connect(HOST, port, cookie="a=b") as ws:
                got = [await ws.recv() for _ in MESSAGES[:2]]
                while len(got) < len(MESSAGES):  # the rest as they come, taken at once where already read
                    got.append(ws.received() or await ws.recv())
                for message in (b"", b"x" * 125, b"y" * 126, os.urandom(70_000)):  # each length field's edges
                    await ws.send(message)
                    assert await ws.recv() == message  # unmasked by the server: the mask was right
            return got

    AGREED.clear()
    got = asyncio.run(main())
    assert AGREED == [["PerMessageDeflate"] if compression else []]
    assert got[:3] == MESSAGES[:3] and len(got[3]) == 300_000 and got[4] == MESSAGES[4]


def test_a_refused_handshake_and_a_closed_connection_are_oserrors_and_a_close_is_answered():
    async def refuse(connection, request):
        return connection.respond(503, "no replica\n")

    echoed = []

    async def close_at_once(ws):
        await ws.close()  # returns once the client's close frame came back (or after 10 s without)
        echoed.append(ws.protocol.close_rcvd is not None)

    async def main():
        async with serve(close_at_once, HOST, 0, subprotocols=["streamlit"], process_request=refuse) as server:
            port = server.sockets[0].getsockname()[1]
            with pytest.raises(OSError, match="503"):
                await phone_socket.connect(HOST, port)
        async with serve(close_at_once, HOST, 0, subprotocols=["streamlit"]) as server:
            port = server.sockets[0].getsockname()[1]
            ws = await phone_socket.connect(HOST, port)
            with pytest.raises(phone_socket.Closed):
                await ws.recv()
            with pytest.raises(phone_socket.Closed):
                await ws.send(b"late")
            for _ in range(100):  # the server's handler ends once its close is answered
                if echoed:
                    break
                await asyncio.sleep(0.01)
        assert echoed == [True]  # the phone answered the server's close frame, as a browser does

    asyncio.run(main())
