"""A phone's websocket to a Streamlit server, light on the machine that measures it.

A hall's phones are 300 devices; here they are 300 sockets of one process on the servers' own two cores, so every
microsecond this client spends on a message is taken from the servers it measures. The ``websockets`` library's
client parses each frame in Python generators, through an asyncio stream and a queue: about 1 ms of CPU a follower
over a slide change (0.3 s of the 2.9 s a hall of 300 spent, 2026-12-02). This client speaks the same protocol as
Chromium does, and no less of it:

- the opening handshake over HTTP/1.1 with the streamlit subprotocol, the cookies given, and the extension
  Chromium offers, ``permessage-deflate; client_max_window_bits``: where the server agrees it, it compresses every
  message as it would for a browser, and each is inflated here, the context carried between messages as the
  extension requires (Streamlit 1.67's server agrees none, to this client as to the ``websockets`` library's);
- frames parsed from the socket's buffer as they arrive (fragments joined, pings answered, a close frame or the
  socket's end ends it), handed over whole to :meth:`PhoneSocket.recv`;
- messages sent as a browser sends them: one masked binary frame each, a new random mask a frame.

Only the parts a Streamlit page uses are here: binary messages, text messages as bytes, no extension but
permessage-deflate. It raises :class:`Closed` (an OSError) when the connection ends, and a ConnectionError when the
server refuses the handshake (bench/hall.py's ``response_fields``).
"""

from __future__ import annotations

import asyncio
import base64
import collections
import hashlib
import os
import struct
import zlib

from hall import response_fields

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TAIL = b"\x00\x00\xff\xff"  # what the sender strips from each compressed message (RFC 7692, 7.2.2)


class Closed(ConnectionError):
    """The connection ended (a close frame, the socket's end, or a protocol error, named)."""


class _Protocol(asyncio.Protocol):
    def __init__(self, max_size: int):
        self.max_size = max_size
        self.transport = None
        self.buffer = bytearray()
        self.handshake = asyncio.get_running_loop().create_future()  # the HTTP answer's head, once read
        self.messages: collections.deque[bytes] = collections.deque()
        self.waiter: asyncio.Future | None = None
        self.closed: Exception | None = None
        self.inflate = None  # zlib's decompressor, once the extension is agreed
        self.parts: list[bytes] = []  # a fragmented message so far
        self.compressed = False
        self.ready = False  # frames are read once the handshake's answer is checked (connect)

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.handshake.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            self.handshake.set_result(bytes(self.buffer[:end + 4]))
            del self.buffer[:end + 4]
        if self.ready:
            self.read()

    def read(self) -> None:
        """Hand over the whole messages in the buffer; a protocol error ends the connection."""
        try:
            self._frames()
        except Closed as error:
            self._end(error)

    def _frames(self) -> None:
        buffer, at, size = self.buffer, 0, len(self.buffer)
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            length, start = second & 0x7F, at + 2
            if second & 0x80:
                raise Closed("a masked frame from the server")
            if length == 126:
                if size - start < 2:
                    break
                length, start = struct.unpack_from(">H", buffer, start)[0], start + 2
            elif length == 127:
                if size - start < 8:
                    break
                length, start = struct.unpack_from(">Q", buffer, start)[0], start + 8
            if length > self.max_size:
                raise Closed(f"a frame of {length} bytes (at most {self.max_size})")
            if size - start < length:
                break
            payload = bytes(buffer[start:start + length])
            at = start + length
            opcode = first & 0x0F
            if opcode >= 8:  # control: close, ping, pong
                if opcode == 8:  # echoed, as a browser does, then the socket is closed
                    self.transport.write(frame(0x8, payload[:2]))
                    raise Closed("closed by the server")
                if opcode == 9:
                    self.transport.write(frame(0xA, payload))
                continue
            if opcode != 0:  # a message's first frame: text (1) or binary (2)
                self.parts, self.compressed = [], bool(first & 0x40)
            self.parts.append(payload)
            if first & 0x80:  # its last frame
                message = b"".join(self.parts) if len(self.parts) > 1 else payload
                self.parts = []
                if self.compressed:
                    if self.inflate is None:
                        raise Closed("a compressed message, no compression agreed")
                    message = self.inflate.decompress(message + TAIL)
                self._deliver(message)
        del buffer[:at]

    def _deliver(self, message: bytes) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(message)
            self.waiter = None
        else:
            self.messages.append(message)

    def _end(self, error: Exception) -> None:
        if self.closed is None:
            self.closed = error
        if not self.handshake.done():
            self.handshake.set_exception(error)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(error)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc) -> None:
        self._end(Closed(f"the connection ended ({exc})" if exc else "the connection ended"))


def frame(opcode: int, payload: bytes) -> bytes:
    """One final frame from a client: masked with a new random key (RFC 6455, 5.3)."""
    length = len(payload)
    head = bytes([0x80 | opcode])
    if length < 126:
        head += bytes([0x80 | length])
    elif length < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack(">H", length)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", length)
    mask = os.urandom(4)
    masked = (int.from_bytes(payload, "little") ^ int.from_bytes(mask * (length // 4 + 1), "little")
              & ((1 << (8 * length)) - 1)).to_bytes(length, "little") if length else b""
    return head + mask + masked


class PhoneSocket:
    """An open websocket: ``await recv()`` the next message (bytes), ``received()`` one already read or None,
    ``await send(data)``, ``await close()``; also an async context manager (:func:`connect`)."""

    def __init__(self, protocol: _Protocol):
        self._protocol = protocol

    async def recv(self) -> bytes:
        protocol = self._protocol
        if protocol.messages:
            return protocol.messages.popleft()
        if protocol.closed is not None:
            raise protocol.closed
        protocol.waiter = asyncio.get_running_loop().create_future()
        return await protocol.waiter

    def received(self) -> bytes | None:
        """The next message if one is already read off the socket, else None (without waiting)."""
        return self._protocol.messages.popleft() if self._protocol.messages else None

    async def send(self, data: bytes) -> None:
        if self._protocol.closed is not None:
            raise self._protocol.closed
        self._protocol.transport.write(frame(0x2, data))

    async def close(self) -> None:
        protocol = self._protocol
        if protocol.closed is None and protocol.transport is not None:
            protocol.transport.write(frame(0x8, struct.pack(">H", 1000)))
            protocol._end(Closed("closed by this client"))

    async def __aenter__(self) -> PhoneSocket:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


def _agreed(head: bytes, key: bytes) -> int:
    """The server's window bits for permessage-deflate, or 0 for none, of a handshake's answer; ConnectionError if it
    is not a switch of protocols, Closed if not to the websocket this client asked."""
    values = dict(response_fields(head, "the server answered ", status="101"))
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest()).decode()
    if values.get("sec-websocket-accept") != accept:
        raise Closed("the server's Sec-WebSocket-Accept does not match")
    if values.get("sec-websocket-protocol") != "streamlit":
        raise Closed("the server did not agree to the streamlit subprotocol")
    extension = values.get("sec-websocket-extensions", "")
    if not extension:
        return 0
    name, *params = [part.strip() for part in extension.split(";")]
    if name != "permessage-deflate":
        raise Closed(f"an extension not offered: {extension}")
    bits = 15
    for param in params:
        param_name, _, value = param.partition("=")
        if param_name.strip() == "server_max_window_bits":
            bits = int(value.strip().strip('"'))
    return bits


async def connect(host: str, port: int, path: str = "/_stcore/stream", cookie: str = "", timeout: float = 30.0,
                  max_size: int = 1 << 28) -> PhoneSocket:
    """Open a websocket to ``host:port`` ``path`` as Chromium does (subprotocol streamlit, permessage-deflate
    offered), with ``cookie`` if given."""
    loop = asyncio.get_running_loop()
    key = base64.b64encode(os.urandom(16))
    async with asyncio.timeout(timeout):
        transport, protocol = await loop.create_connection(lambda: _Protocol(max_size), host, port)
        request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key.decode()}\r\nSec-WebSocket-Version: 13\r\n"
                   "Sec-WebSocket-Protocol: streamlit\r\n"
                   "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
                   + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n")
        transport.write(request.encode("latin-1"))
        try:
            head = await protocol.handshake
            bits = _agreed(head, key)
        except BaseException:
            transport.close()
            raise
    if bits:
        protocol.inflate = zlib.decompressobj(wbits=-bits)
    protocol.ready = True
    protocol.read()  # frames that came with the handshake's answer
    return PhoneSocket(protocol)
