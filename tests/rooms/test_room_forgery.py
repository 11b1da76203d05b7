"""Forged keys, codes, tokens and answers thrown at every method of posenc.rooms (hypothesis, 1,000 calls on each
store): every call is refused with a RoomError of one sentence, nothing else escapes, and the stores' state (every
room, its key hash, followers, counts and answers, every row or key) is exactly what it was."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from room_fakes import LECTURE, SLIDES, Clock, questions

from posenc.rooms import CODE_ALPHABET, RoomError, Rooms, SqliteStore
from posenc.rooms.model import MAX_SLIDE
from posenc.rooms.rooms import _urlsafe

HUGE = "A" * 10_000_000


def world_of(store):
    """Four rooms: A on slide 2 (a choice) with answers, B on slide 3 (a number) with one, C closed, D on slide 1
    (no question); two followers, one a follower of A."""
    rooms = Rooms(store, questions=questions, clock=Clock())
    made = {}
    for name, slide in (("A", 2), ("B", 3), ("C", 2), ("D", 1)):
        made[name] = rooms.open(LECTURE, slide, opener="lecturer")
    token, other = rooms.new_follower(), rooms.new_follower()
    code = {name: room.code for name, (room, _) in made.items()}
    key = {name: k for name, (_, k) in made.items()}
    rooms.join(code["A"], token)
    rooms.answer(code["A"], token, 2, "1")
    rooms.answer(code["A"], other, 2, "0")
    rooms.answer(code["B"], token, 3, "64")
    rooms.answer(code["C"], token, 2, "2")
    rooms.close(code["C"], key["C"])
    return rooms, code, key, token


@pytest.fixture(scope="module", params=["sqlite", "fakeredis"])
def world(request, tmp_path_factory):
    if request.param == "sqlite":
        store = SqliteStore(tmp_path_factory.mktemp("forgery") / "rooms.sqlite3")
    else:
        import fakeredis

        from posenc.rooms import RedisStore

        store = RedisStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()))
    world = world_of(store)
    if request.param == "fakeredis":  # the test's clock stands still: no key may expire in real time meanwhile
        for name in store.client.keys("*"):
            store.client.persist(name)
    yield world
    store.close()


def everything(rooms: Rooms, codes: dict[str, str]):
    """The store's whole state, as the store holds it."""
    store, now = rooms.store, rooms.clock()
    per_room = {name: (store.load(code, now, rooms.limits), store.following(code), store.answers(code),
                       [store.counts(code, slide) for slide in range(1, SLIDES + 1)])
                for name, code in codes.items()}
    if isinstance(store, SqliteStore):
        with store._lock:
            tables = [name for (name,) in store._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            rows = {table: sorted(store._db.execute(f"SELECT * FROM {table}").fetchall()) for table in tables}
    else:
        names = sorted(store.client.keys("*"))
        types = store.client.pipeline(transaction=False)
        for name in names:
            types.type(name)
        reads = store.client.pipeline(transaction=False)
        read = {b"hash": reads.hgetall, b"set": reads.smembers, b"string": reads.get,
                b"zset": lambda key: reads.zrange(key, 0, -1, withscores=True)}
        for name, kind in zip(names, types.execute()):
            read[kind](name)
        rows = dict(zip(names, reads.execute()))
    return per_room, rows


def changed_one(text: str):
    """``text`` with one character replaced (perhaps by itself: the callers filter the original out)."""
    return st.tuples(st.integers(0, len(text) - 1), st.sampled_from("AbZ9_-.")).map(
        lambda pair: text[:pair[0]] + pair[1] + text[pair[0] + 1:])


def forged_keys(key: str):
    return st.one_of(
        st.just(""), st.just(HUGE), st.just(key + "A"), st.just(key[:-1]), st.just(" " + key),
        st.text(max_size=80), st.from_regex(r"[A-Za-z0-9_-]{32}", fullmatch=True),
        changed_one(key), st.none(), st.integers(), st.binary(max_size=40),
    ).filter(lambda k: k != key)


def forged_codes(real: set[str]):
    return st.one_of(
        st.text(max_size=20), st.text(alphabet=CODE_ALPHABET, min_size=5, max_size=5),
        st.text(alphabet=CODE_ALPHABET + "0O1IL5S2Z8BUV", min_size=4, max_size=6), st.just(HUGE), st.none(),
        st.integers(), st.lists(st.just("A"), max_size=5),
    ).filter(lambda c: not (isinstance(c, str) and len(c) < 20 and c.strip().upper() in real))


def forged_tokens(token: str):
    follower, mac = token.split(".")
    elsewhere = hmac.new(b"another server's secret", b"follower:" + follower.encode(), hashlib.sha256).digest()
    return st.one_of(
        st.just(""), st.just(HUGE), st.just(follower), st.just(follower + "." + _urlsafe(elsewhere, 22)),
        st.just(token + "A"), st.just(token.swapcase()), st.just(token + "."),
        changed_one(mac).map(lambda changed: follower + "." + changed),
        changed_one(follower).map(lambda changed: changed + "." + mac),
        st.text(max_size=80), st.from_regex(r"[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}", fullmatch=True),
        st.none(), st.integers(),
    ).filter(lambda t: t != token)


NOT_SLIDES = st.one_of(st.integers(max_value=0), st.floats(), st.booleans(), st.none(), st.text(max_size=5),
                       st.just(10**100))


def bad_slide(max_slide: int | None):
    """A slide ``move`` must refuse under ``max_slide`` (None: the rooms' own bound, MAX_SLIDE)."""
    return st.one_of(NOT_SLIDES, st.integers(min_value=(MAX_SLIDE if max_slide is None else max_slide) + 1))


def not_accepted(question):
    def refuses(value) -> bool:
        if not isinstance(value, str) or len(value) > 64:  # refused before the question reads it
            return True
        try:
            question.accepts(value)
        except (ValueError, TypeError):
            return True
        return False
    return refuses


def bad_values(slide: int):
    return st.one_of(
        st.text(max_size=70), st.just(HUGE), st.just("1" * 65),
        st.sampled_from(["nan", "NaN", "inf", "-inf", "1e999", "-1e400", "", " ", "3", "-1", "1.0", "١"]),
        st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers(-5, 10).map(str),
        st.none(), st.integers(), st.floats(),
    ).filter(not_accepted(questions(LECTURE, slide)))


_ATTACKS: dict[int, tuple] = {}


def attacks(world):
    """(name, strategy of a call) for every attack on ``world``: built once, drawn 1,000 times."""
    if id(world) in _ATTACKS:
        return _ATTACKS[id(world)]
    rooms, code, key, token = world
    real = set(code.values())
    some_room = st.sampled_from("ABCD")
    some_code = some_room.flatmap(lambda name: st.one_of(st.just(code[name]), st.just(code[name].lower()),
                                                         forged_codes(real)).map(lambda c: (name, c)))
    keys = {name: forged_keys(key[name]) for name in code}
    with_forged_key = some_code.flatmap(lambda pair: keys[pair[0]].map(lambda k: (pair[1], k)))
    tokens = forged_tokens(token)
    with_forged_token = some_code.flatmap(lambda pair: tokens.map(lambda t: (pair[1], t)))
    other_slide = st.sampled_from([(code["A"], 2), (code["B"], 3)]).flatmap(
        lambda room: st.integers(1, SLIDES + 3).filter(lambda s: s != room[1]).map(lambda s: (room[0], token, s, "1")))
    call = st.tuples
    built = [
        ("move", call(st.just(rooms.move), with_forged_key, st.integers(1, SLIDES)).map(
            lambda c: (c[0], (*c[1], c[2]), {"max_slide": SLIDES}))),
        ("move to a bad slide", call(some_room, st.sampled_from([None, SLIDES])).flatmap(
            lambda c: bad_slide(c[1]).map(lambda slide: (rooms.move, (code[c[0]], key[c[0]], slide),
                                                         {"max_slide": c[1]})))),
        ("reveal", with_forged_key.map(lambda c: (rooms.reveal, c, {}))),
        ("reveal no question", st.just((rooms.reveal, (code["D"], key["D"]), {}))),
        ("close", with_forged_key.map(lambda c: (rooms.close, c, {}))),
        ("csv", with_forged_key.map(lambda c: (rooms.answers_csv, c, {}))),
        ("join", with_forged_token.map(lambda c: (rooms.join, c, {}))),
        ("leave", with_forged_token.map(lambda c: (rooms.leave, c, {}))),
        ("answer with a forged token", with_forged_token.map(lambda c: (rooms.answer, (*c, 2, "1"), {}))),
        ("answer another slide", other_slide.map(lambda c: (rooms.answer, c, {}))),
        ("answer what the question refuses", st.one_of(
            bad_values(2).map(lambda v: (rooms.answer, (code["A"], token, 2, v), {})),
            bad_values(3).map(lambda v: (rooms.answer, (code["B"], token, 3, v), {})))),
        ("answer a closed room", st.just((rooms.answer, (code["C"], token, 2, "1"), {}))),
        ("join a closed room", st.just((rooms.join, (code["C"], token), {}))),
        ("read", call(st.sampled_from([rooms.get, rooms.following, rooms.counts]), forged_codes(real)).map(
            lambda c: (c[0], (c[1],), {}))),
        ("open", call(st.one_of(st.just(LECTURE), st.text(max_size=70), st.just(HUGE), st.none()), bad_slide(None),
                      st.one_of(st.just("s"), st.just(""), st.just(HUGE), st.none(), st.text())).map(
            lambda c: (rooms.open, c[:2], {"opener": c[2]}))),
    ]
    _ATTACKS[id(world)] = built
    return built


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_forgeries_change_nothing_and_are_refused_in_one_sentence(world, data):
    rooms, code, key, token = world
    attack, strategy = data.draw(st.sampled_from(attacks(world)), label="attack")
    method, args, kwargs = data.draw(strategy, label=attack)
    before = everything(rooms, code)
    try:
        method(*args, **kwargs)
    except RoomError as refusal:
        message = str(refusal)
    else:
        pytest.fail(f"{attack} was not refused")
    assert message.endswith(".") and message[0].isupper(), message
    assert "\n" not in message and "\r" not in message and "Traceback" not in message, message
    assert ". " not in message and len(message) <= 200, message
    assert everything(rooms, code) == before


def test_the_world_is_still_whole(world):
    """After the forgeries, the rooms work for their owners."""
    rooms, code, key, token = world
    assert rooms.counts(code["A"]) == {"0": 1, "1": 1}
    assert rooms.counts(code["B"]) == {"64.0": 1}
    assert rooms.following(code["A"]) == 1
    assert rooms.answers_csv(code["C"], key["C"]).count("\n") == 2
    assert rooms.move(code["D"], key["D"], 3).version == 2
