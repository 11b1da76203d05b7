"""The hall's room store: Redis (redis-py), shared by every replica of the app.

Keys (prefix ``posenc:`` by default; one Redis, not a cluster: the scripts name keys they build):

- ``room:CODE`` a hash: lecture, slide, revealed, version, opened_at, updated_at, active_at, closed, key_hash
  (the SHA-256 of the lecturer key, never the key);
- ``room:CODE:followers`` a set of follower ids; ``room:CODE:slides`` the slides that have answers;
- ``room:CODE:a:SLIDE`` a hash follower id -> "answered_at|answer"; ``room:CODE:c:SLIDE`` answer -> count;
- ``rooms`` a sorted set of live rooms by last activity (the bound on live rooms); ``opener:HASH`` and
  ``rate:FOLLOWER`` sorted sets of recent opens and answers (the rate bounds); ``secret`` the server secret;
- channel ``changes``: every change publishes the room's code.

Every change is one Lua script (atomic: two moves, a move and an answer, two answers never interleave) that also
refreshes an EXPIRE of 12 hours on all of the room's keys, so a room idle for 12 hours expires; reads also compare
the room's last activity with the caller's clock.

Persistence is Redis's: rooms and answers survive a restart of Redis only if the hall configures it to write them
down, with ``appendonly yes`` (the append-only file: at most a second lost on a power cut with the default
``appendfsync everysec``, nothing on a kill of the process) or RDB snapshots (``save``: a restart loses the changes
since the last snapshot). Without either, a Redis restart loses every room, and the server secret with them
(followers then get new tokens). They survive a restart of any app replica in any case. A Redis with a memory
limit should keep ``maxmemory-policy noeviction`` (the default): an evicting policy may drop a live room.
Changes published while a replica's subscriber is disconnected (a Redis restart) are not replayed: it listens
again within seconds, and the next change reaches it.
"""

from __future__ import annotations

import math
import secrets
import threading
import time

import redis

from posenc.rooms.model import Limits, Room, RoomError, room_of
from posenc.rooms.store import Callback, Callbacks, log

UNAVAILABLE = "The room store cannot be reached right now: try again in a moment."

_PRELUDE = """
local p, code, now, idle, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local rk = p .. 'room:' .. code
local function room_keys()
  local keys = {rk, rk .. ':followers', rk .. ':slides'}
  for _, s in ipairs(redis.call('SMEMBERS', rk .. ':slides')) do
    keys[#keys + 1] = rk .. ':a:' .. s
    keys[#keys + 1] = rk .. ':c:' .. s
  end
  return keys
end
local function touch()
  for _, k in ipairs(room_keys()) do redis.call('EXPIRE', k, ttl) end
end
local function state()
  local active = redis.call('HGET', rk, 'active_at')
  if not active or now - tonumber(active) > idle then return 'gone' end
  if redis.call('HGET', rk, 'closed') == '1' then return 'closed' end
  return nil
end
local function announce() redis.call('PUBLISH', p .. 'changes', code) end
"""

# ARGV 6..: opener hash, opens per opener, open window cut, live cut, live rooms, key hash, lecture, slide, version,
# opened_at, updated_at, open window seconds
_CREATE = _PRELUDE + """
local ok = p .. 'opener:' .. ARGV[6]
redis.call('ZREMRANGEBYSCORE', ok, '-inf', ARGV[8])
if redis.call('ZCARD', ok) >= tonumber(ARGV[7]) then return {'opener'} end
redis.call('ZREMRANGEBYSCORE', p .. 'rooms', '-inf', '(' .. ARGV[9])
if redis.call('ZCARD', p .. 'rooms') >= tonumber(ARGV[10]) then return {'full'} end
if redis.call('EXISTS', rk) == 1 then
  if state() ~= 'gone' then return {'taken'} end
  redis.call('DEL', unpack(room_keys()))
end
redis.call('HSET', rk, 'lecture', ARGV[12], 'slide', ARGV[13], 'revealed', '0', 'version', ARGV[14],
           'opened_at', ARGV[15], 'updated_at', ARGV[16], 'active_at', ARGV[3], 'closed', '0', 'key_hash', ARGV[11])
redis.call('ZADD', p .. 'rooms', ARGV[3], code)
redis.call('ZADD', ok, ARGV[3], ARGV[3] .. ':' .. code)
redis.call('EXPIRE', ok, ARGV[17])
touch()
announce()
return {'ok'}
"""

# ARGV 6..: key hash, op, slide
_CHANGE = _PRELUDE + """
local st = state()
if st then return {st} end
if redis.call('HGET', rk, 'key_hash') ~= ARGV[6] then return {'key'} end
local op, slide = ARGV[7], ARGV[8]
if op == 'move' then
  if tonumber(redis.call('HGET', rk, 'slide')) == tonumber(slide) then
    return {'same', unpack(redis.call('HGETALL', rk))}
  end
  redis.call('HSET', rk, 'slide', slide, 'revealed', '0')
elseif op == 'reveal' then
  if tonumber(redis.call('HGET', rk, 'slide')) ~= tonumber(slide) then return {'moved'} end
  if redis.call('HGET', rk, 'revealed') == '1' then return {'same', unpack(redis.call('HGETALL', rk))} end
  redis.call('HSET', rk, 'revealed', '1')
elseif op == 'close' then
  redis.call('HSET', rk, 'closed', '1')
  redis.call('ZREM', p .. 'rooms', code)
else
  return redis.error_reply('unknown change')
end
redis.call('HINCRBY', rk, 'version', 1)
redis.call('HSET', rk, 'updated_at', ARGV[3], 'active_at', ARGV[3])
if op ~= 'close' then redis.call('ZADD', p .. 'rooms', ARGV[3], code) end
touch()
announce()
return {'ok', unpack(redis.call('HGETALL', rk))}
"""

# ARGV 6..: follower, followers bound, op ("join" or "leave")
_FOLLOW = _PRELUDE + """
local st = state()
if st then return {st} end
local fk = rk .. ':followers'
if ARGV[8] == 'leave' then
  if redis.call('SREM', fk, ARGV[6]) == 0 then return {'same'} end
else
  if redis.call('SISMEMBER', fk, ARGV[6]) == 1 then return {'same', unpack(redis.call('HGETALL', rk))} end
  if redis.call('SCARD', fk) >= tonumber(ARGV[7]) then return {'full'} end
  redis.call('SADD', fk, ARGV[6])
end
redis.call('HSET', rk, 'active_at', ARGV[3])
redis.call('ZADD', p .. 'rooms', ARGV[3], code)
touch()
announce()
return {'ok', unpack(redis.call('HGETALL', rk))}
"""

# ARGV 6..: follower, slide, answer, answers per slide, answers per window, answer window cut, nonce,
# answer window seconds
_ANSWER = _PRELUDE + """
local st = state()
if st then return {st} end
local f, slide, value = ARGV[6], ARGV[7], ARGV[8]
if tonumber(redis.call('HGET', rk, 'slide')) ~= tonumber(slide) then return {'moved'} end
if redis.call('HGET', rk, 'revealed') == '1' then return {'revealed'} end
local rate = p .. 'rate:' .. f
redis.call('ZREMRANGEBYSCORE', rate, '-inf', ARGV[11])
if redis.call('ZCARD', rate) >= tonumber(ARGV[10]) then return {'rate'} end
local ak, ck = rk .. ':a:' .. slide, rk .. ':c:' .. slide
local old = redis.call('HGET', ak, f)
if not old and redis.call('HLEN', ak) >= tonumber(ARGV[9]) then return {'full'} end
if old then
  local was = string.sub(old, string.find(old, '|', 1, true) + 1)
  if redis.call('HINCRBY', ck, was, -1) <= 0 then redis.call('HDEL', ck, was) end
end
redis.call('HSET', ak, f, ARGV[3] .. '|' .. value)
redis.call('HINCRBY', ck, value, 1)
redis.call('SADD', rk .. ':slides', slide)
redis.call('ZADD', rate, ARGV[3], ARGV[3] .. ':' .. ARGV[12])
redis.call('EXPIRE', rate, ARGV[13])
redis.call('HSET', rk, 'active_at', ARGV[3])
redis.call('ZADD', p .. 'rooms', ARGV[3], code)
touch()
announce()
return {'ok'}
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _number(value: float) -> str:
    return repr(float(value))


class RedisStore:
    """Rooms in Redis at ``url`` (``redis://host:port/db``) or on a redis-py client (fakeredis in the tests)."""

    def __init__(self, url_or_client: str | redis.Redis, *, prefix: str = "posenc:") -> None:
        if isinstance(url_or_client, str):
            self.client = redis.Redis.from_url(url_or_client, decode_responses=True, socket_timeout=5.0,
                                               socket_connect_timeout=3.0, health_check_interval=30)
        else:
            self.client = url_or_client
        self.prefix = prefix
        self.channel = prefix + "changes"
        self._scripts = {name: self.client.register_script(source) for name, source in
                         (("create", _CREATE), ("change", _CHANGE), ("follow", _FOLLOW), ("answer", _ANSWER))}
        self._callbacks = Callbacks()
        self._listener: threading.Thread | None = None
        self._listening = threading.Event()
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RedisStore({self.client!r}, prefix={self.prefix!r})"

    def _run(self, name: str, code: str, now: float, limits: Limits, *args: object) -> list[str]:
        argv = [self.prefix, code, _number(now), _number(limits.idle), str(math.ceil(limits.idle)),
                *(str(arg) for arg in args)]
        try:
            reply = self._scripts[name](keys=[], args=argv)
        except redis.RedisError as error:
            log.error("room store %r: %s", self, error)
            raise RoomError(UNAVAILABLE) from None
        return [_text(item) for item in reply]

    def _call(self, method: str, *args: object, **kwargs: object) -> object:
        try:
            return getattr(self.client, method)(*args, **kwargs)
        except redis.RedisError as error:
            log.error("room store %r: %s", self, error)
            raise RoomError(UNAVAILABLE) from None

    @staticmethod
    def _room(code: str, reply: list[str]) -> Room:
        return room_of(code, dict(zip(reply[1::2], reply[2::2])))

    def _key(self, code: str) -> str:
        return f"{self.prefix}room:{code}"

    # --- the Store protocol -------------------------------------------------------------------------------

    def secret(self) -> bytes:
        key = self.prefix + "secret"
        self._call("set", key, secrets.token_hex(32), nx=True)
        return bytes.fromhex(_text(self._call("get", key)))

    def create(self, room: Room, key_hash: str, opener: str, now: float, limits: Limits) -> str:
        (status,) = self._run("create", room.code, now, limits, opener, limits.opens_per_opener,
                              _number(now - limits.open_window), _number(now - limits.idle), limits.live_rooms,
                              key_hash, room.lecture, room.slide, room.version, _number(room.opened_at),
                              _number(room.updated_at), math.ceil(limits.open_window))
        return status

    def load(self, code: str, now: float, limits: Limits) -> tuple[Room, str] | None:
        fields = {_text(k): _text(v) for k, v in self._call("hgetall", self._key(code)).items()}
        if "active_at" not in fields or now - float(fields["active_at"]) > limits.idle:
            return None
        return room_of(code, fields), fields["key_hash"]

    def change(self, code: str, key_hash: str, op: str, slide: int, now: float,
               limits: Limits) -> tuple[str, Room | None]:
        reply = self._run("change", code, now, limits, key_hash, op, slide)
        return reply[0], (self._room(code, reply) if len(reply) > 1 else None)

    def join(self, code: str, follower: str, now: float, limits: Limits) -> tuple[str, Room | None]:
        reply = self._run("follow", code, now, limits, follower, limits.followers, "join")
        return reply[0], (self._room(code, reply) if len(reply) > 1 else None)

    def leave(self, code: str, follower: str, now: float, limits: Limits) -> None:
        self._run("follow", code, now, limits, follower, limits.followers, "leave")

    def following(self, code: str) -> int:
        return int(self._call("scard", self._key(code) + ":followers"))

    def answer(self, code: str, follower: str, slide: int, value: str, now: float, limits: Limits,
               nonce: str) -> str:
        (status,) = self._run("answer", code, now, limits, follower, slide, value, limits.followers,
                              limits.answers_per_window, _number(now - limits.answer_window), nonce,
                              math.ceil(limits.answer_window))
        return status

    def counts(self, code: str, slide: int) -> dict[str, int]:
        counts = self._call("hgetall", f"{self._key(code)}:c:{slide}")
        return {_text(value): int(count) for value, count in sorted(counts.items()) if int(count) > 0}

    def answers(self, code: str) -> list[tuple[int, str, str, float]]:
        rows = []
        for slide in self._call("smembers", self._key(code) + ":slides"):
            for follower, entry in self._call("hgetall", f"{self._key(code)}:a:{_text(slide)}").items():
                at, _, value = _text(entry).partition("|")
                rows.append((int(_text(slide)), _text(follower), value, float(at)))
        return sorted(rows, key=lambda row: (row[0], row[3], row[1]))

    def subscribe(self, callback: Callback) -> None:
        """Add ``callback``; the first one starts the listening thread (a daemon: one per store, however many
        sessions), which reconnects after Redis restarts. Returns once the thread listens (or after 3 s)."""
        self._callbacks.add(callback)
        with self._lock:
            if self._listener is None:
                self._listener = threading.Thread(target=self._listen, name="posenc-rooms-changes", daemon=True)
                self._listener.start()
        self._listening.wait(3.0)

    def _listen(self) -> None:
        pause = 0.2
        while not self._stopped.is_set():
            pubsub = None
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                self._listening.set()
                pause = 0.2
                while not self._stopped.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message and message.get("type") == "message":
                        self._callbacks.call(_text(message["data"]))
            except Exception as error:  # a Redis restart, a network cut: wait, then subscribe again
                self._listening.clear()
                log.warning("room changes: %s; listening again in %.1f s", error, pause)
                self._stopped.wait(pause)
                pause = min(pause * 2, 5.0)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:
                        pass

    def close(self) -> None:
        self._stopped.set()
        if self._listener is not None:
            self._listener.join(timeout=3.0)
        try:
            self.client.close()
        except Exception:
            pass

    @staticmethod
    def wait_ready(url: str, timeout: float = 10.0) -> None:
        """Block until Redis at ``url`` answers PING (the hall's start-up; tests)."""
        client = redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    client.ping()
                    return
                except redis.RedisError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        finally:
            client.close()
