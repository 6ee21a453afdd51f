"""The tracker routes over real HTTP on 127.0.0.1 (issue 20): each app's real payload
shapes are taken; a wrong or revoked token is 401, malformed or absurd values 400, a flood
429 with Retry-After, a huge body 413; a refused request changes nothing and no answer
echoes what was sent."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, select

from hideseek_chat.console.table import Table
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import PingRow, TrackerRow
from hideseek_chat.store.trackers import token_hash
from hideseek_chat.web.trackers import MAX_BODY_BYTES, MAX_FIELDS
from tests.chat.play import SEEKERS_START, begin
from tests.web.trackers_server import Tracker, listening, serving, token_of, tracker_table

LAT, LON = SEEKERS_START


@pytest.fixture
def setup(uow_factory: UnitOfWorkFactory) -> Iterator[tuple[Table, str, str, httpx.Client]]:
    """A begun game whose seeker Bob has a tracker link; the server's base URL."""
    sock, port = listening()
    table = tracker_table(uow_factory, port)
    begin(table)
    with serving(table, sock, per_minute=5) as base, httpx.Client(timeout=10) as client:
        yield table, base, token_of(table, "Bob"), client


def pings(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return int(uow.session.scalar(select(func.count()).select_from(PingRow)) or 0)


def test_owntracks_real_payloads(
    setup: tuple[Table, str, str, httpx.Client], uow_factory: UnitOfWorkFactory
) -> None:
    table, base, token, client = setup
    url = f"{base}/trackers/{token}/owntracks"
    stamp = int(table.now.timestamp())
    # What OwnTracks for Android posts in HTTP mode (with its extra fields).
    location = {
        "_type": "location",
        "BSSID": "b0:f2:8f:00:00:00",
        "SSID": "home",
        "acc": 13,
        "alt": 254,
        "batt": 77,
        "bs": 1,
        "conn": "w",
        "created_at": stamp,
        "lat": LAT,
        "lon": LON,
        "m": 1,
        "t": "u",
        "tid": "bo",
        "tst": stamp,
        "vac": 1,
        "vel": 3,
    }
    answer = client.post(url, json=location, headers={"X-Limit-U": "bob", "X-Limit-D": "phone"})
    assert answer.status_code == 200 and answer.json() == []
    assert pings(uow_factory) == 1
    # Other message types and the empty body of a deleted friend: 200, [] and ignored.
    for other in ({"_type": "status", "android": {"hib": 1}}, {"_type": "waypoints"}):
        answer = client.post(url, json=other)
        assert answer.status_code == 200 and answer.json() == []
    assert client.post(url, content=b"").json() == []
    assert pings(uow_factory) == 1
    # HTTP basic auth, as OwnTracks sends its password, instead of the token in the path.
    auth = base64.b64encode(f"bob:{token}".encode()).decode()
    answer = client.post(
        f"{base}/trackers/owntracks",
        json={**location, "tst": stamp + 30},
        headers={"Authorization": f"Basic {auth}"},
    )
    assert answer.status_code == 200 and answer.json() == []
    assert pings(uow_factory) == 2


def test_an_encrypted_owntracks_message_is_explained_to_its_sender(
    setup: tuple[Table, str, str, httpx.Client], uow_factory: UnitOfWorkFactory
) -> None:
    """OwnTracks with an encryption key set posts ``_type: encrypted``: answered 200 ``[]``
    as the app wants, no pin, and its holder told privately why and how to stop it, once
    every few hours however often the app posts; a wrong token is still 401."""
    table, base, token, client = setup
    url = f"{base}/trackers/{token}/owntracks"
    sealed = {"_type": "encrypted", "data": base64.b64encode(b"\x01" * 80).decode()}
    bob = table.people["bob"].ref
    told = len(table.said(bob))
    answer = client.post(url, json=sealed)
    assert answer.status_code == 200 and answer.json() == []
    said = [line.text for line in table.said(bob)[told:]]
    assert len(said) == 1 and "encrypt" in said[0] and "/tracker" in said[0], said
    assert not any("encrypt" in line.text for line in table.said()), "the group hears nothing"
    assert client.post(url, json=sealed).status_code == 200
    assert len(table.said(bob)) == told + 1, "told once, not at every message"
    table.now += timedelta(hours=7)
    assert client.post(url, json=sealed).status_code == 200
    assert len(table.said(bob)) == told + 2, "told again hours later"
    assert pings(uow_factory) == 0
    wrong = client.post(f"{base}/trackers/{'x' * len(token)}/owntracks", json=sealed)
    assert wrong.status_code == 401


def test_traccar_query_form_and_json(
    setup: tuple[Table, str, str, httpx.Client], uow_factory: UnitOfWorkFactory
) -> None:
    table, base, token, client = setup
    url = f"{base}/trackers/{token}/traccar"
    stamp = int(table.now.timestamp())
    query = {"id": "123456", "lat": str(LAT), "lon": str(LON), "timestamp": str(stamp)}
    assert client.post(url, params={**query, "speed": "2.5", "accuracy": "9"}).status_code == 200
    form = {**query, "timestamp": str((stamp + 10) * 1000), "hdop": "1.2"}  # milliseconds
    assert client.post(url, data=form).status_code == 200
    assert client.get(url, params={**query, "timestamp": str(stamp + 20)}).status_code == 200
    # Traccar Client 9: JSON, speed in m/s, an ISO time.
    iso = (table.now + timedelta(seconds=30)).isoformat().replace("+00:00", "Z")
    body = {
        "location": {
            "timestamp": iso,
            "coords": {
                "latitude": LAT,
                "longitude": LON,
                "accuracy": 5,
                "speed": 1.2,
                "heading": 0,
                "altitude": 250,
            },
            "is_moving": True,
            "odometer": 0,
            "event": "motionchange",
            "battery": {"level": 0.8, "is_charging": False},
            "activity": {"type": "walking"},
            "extras": {},
        },
        "device_id": "48241179",
    }
    assert client.post(url, json=body).status_code == 200
    assert pings(uow_factory) == 4
    with uow_factory() as uow:
        newest = uow.session.scalars(select(PingRow).order_by(PingRow.id.desc())).first()
        assert newest is not None and newest.speed_kmh == pytest.approx(1.2 * 3.6)
        first = uow.session.scalars(select(PingRow).order_by(PingRow.id)).first()
        assert first is not None and first.speed_kmh == pytest.approx(2.5 * 1.852)  # knots


def test_gpslogger_custom_url(
    setup: tuple[Table, str, str, httpx.Client], uow_factory: UnitOfWorkFactory
) -> None:
    table, base, token, client = setup
    url = f"{base}/trackers/{token}/gpslogger"
    stamp = int(table.now.timestamp())
    params = {"lat": str(LAT), "lon": str(LON), "acc": "4.0", "spd": "0.0", "time": str(stamp)}
    answer = client.get(url, params={**params, "batt": "55.0"})
    assert answer.status_code == 200 and answer.text == "OK"
    # An unknown speed ("") and an ISO time (GPSLogger's %TIME), posted as a form.
    iso = (table.now + timedelta(seconds=5)).isoformat()
    assert client.post(url, data={**params, "spd": "", "time": iso}).status_code == 200
    assert pings(uow_factory) == 2


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"[1, 2]",
        b'{"lat": 1, "lon": 2, "tst": 1}',  # no _type
        b'{"_type": "location", "lat": 91, "lon": 2, "tst": TST}',
        b'{"_type": "location", "lat": 10, "lon": 181, "tst": TST}',
        b'{"_type": "location", "lat": NaN, "lon": 2, "tst": TST}',
        b'{"_type": "location", "lat": 0, "lon": 0, "tst": TST}',
        b'{"_type": "location", "lat": "x", "lon": 2, "tst": TST}',
        b'{"_type": "location", "lat": true, "lon": 2, "tst": TST}',
        b'{"_type": "location", "lat": 10, "lon": 2}',
        b'{"_type": "location", "lat": 10, "lon": 2, "tst": 915148800}',  # 1999
        b'{"_type": "location", "lat": 10, "lon": 2, "tst": 99999999999999999}',
        b'{"_type": "location", "lat": 10, "lon": 2, "tst": TST, "acc": -5}',
        b'{"_type": "location", "lat": 10, "lon": 2, "tst": TST, "vel": 5000}',
        b'{"_type": "location", "lat": 1e400, "lon": 2, "tst": TST}',
    ],
)
def test_malformed_or_absurd_is_400_and_changes_nothing(
    setup: tuple[Table, str, str, httpx.Client], uow_factory: UnitOfWorkFactory, body: bytes
) -> None:
    table, base, token, client = setup
    body = body.replace(b"TST", str(int(table.now.timestamp())).encode())
    answer = client.post(
        f"{base}/trackers/{token}/owntracks",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 400
    assert answer.text == "bad ping"  # never an echo
    assert pings(uow_factory) == 0
    with uow_factory() as uow:
        assert uow.session.scalar(select(TrackerRow.last_heard_at)) is None


def test_a_time_from_the_future_is_400(setup: tuple[Table, str, str, httpx.Client]) -> None:
    table, base, token, client = setup
    future = int((table.now + timedelta(hours=1)).timestamp())
    params = {"lat": str(LAT), "lon": str(LON), "time": str(future)}
    assert client.get(f"{base}/trackers/{token}/gpslogger", params=params).status_code == 400


def test_wrong_or_revoked_token_is_401_whatever_the_body(
    setup: tuple[Table, str, str, httpx.Client], uow_factory: UnitOfWorkFactory
) -> None:
    table, base, token, client = setup
    good = {"_type": "location", "lat": LAT, "lon": LON, "tst": int(table.now.timestamp())}
    wrong = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    for bad in (wrong, "short", "x" * 80, "..%2F..%2Fetc"):
        answer = client.post(f"{base}/trackers/{bad}/owntracks", json=good)
        assert answer.status_code in (401, 404)
        assert LAT.__repr__() not in answer.text
    assert client.post(f"{base}/trackers/{wrong}/owntracks", content=b"{bad").status_code == 401
    assert client.post(f"{base}/trackers/owntracks", json=good).status_code == 401  # no auth
    table.send("Bob", "/tracker off", private=True)
    assert client.post(f"{base}/trackers/{token}/owntracks", json=good).status_code == 401
    assert pings(uow_factory) == 0


def test_a_flood_is_429_with_retry_after_and_the_rate_comes_back(
    setup: tuple[Table, str, str, httpx.Client], uow_factory: UnitOfWorkFactory
) -> None:
    table, base, token, client = setup
    tracker = Tracker(base, token, "owntracks", client)
    answers = []
    for second in range(8):  # a cap of 5 a minute
        answers.append(tracker.ping(LAT, LON, table.now + timedelta(seconds=second)))
    codes = [a.status_code for a in answers]
    assert codes == [200] * 5 + [429] * 3
    assert int(answers[-1].headers["Retry-After"]) >= 1
    assert pings(uow_factory) == 5
    table.now += timedelta(seconds=13)  # one ping a 12 s comes back
    assert tracker.ping(LAT, LON, table.now).status_code == 200


def test_too_many_fields_is_400(setup: tuple[Table, str, str, httpx.Client]) -> None:
    _table, base, token, client = setup
    fields = "&".join(f"f{n}=1" for n in range(MAX_FIELDS + 1))
    url = f"{base}/trackers/{token}/traccar"
    assert client.get(f"{url}?{fields}").status_code == 400
    form = {"content-type": "application/x-www-form-urlencoded"}
    assert client.post(url, content=fields.encode(), headers=form).status_code == 400


def test_a_huge_body_is_413(setup: tuple[Table, str, str, httpx.Client]) -> None:
    _table, base, token, client = setup
    body = json.dumps({"_type": "location", "pad": "x" * MAX_BODY_BYTES}).encode()
    answer = client.post(f"{base}/trackers/{token}/owntracks", content=body)
    assert answer.status_code == 413


def test_an_unknown_app_is_404(setup: tuple[Table, str, str, httpx.Client]) -> None:
    _table, base, token, client = setup
    assert client.get(f"{base}/trackers/{token}/garmin").status_code == 404


def test_logs_name_a_token_by_a_short_hash_and_hold_no_position(
    setup: tuple[Table, str, str, httpx.Client], caplog: pytest.LogCaptureFixture
) -> None:
    table, base, token, client = setup
    tracker = Tracker(base, token, "owntracks", client)
    with caplog.at_level(logging.DEBUG):
        for second in range(7):  # past the cap of 5: a 429 is logged
            tracker.ping(LAT, LON, table.now + timedelta(seconds=second))
        table.now += timedelta(minutes=1)
        client.post(f"{base}/trackers/{token}/owntracks", json={"_type": "location", "lat": LAT})
    # The bot's side only (the test's HTTP client logs its own URLs).
    server = ("hideseek_chat", "uvicorn", "starlette", "sqlalchemy")
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith(server))
    assert token_hash(token)[:8] in logged  # the 429 and the 400 say whose, briefly
    assert token not in logged and token_hash(token) not in logged
    assert logged.count("over its rate") == 1  # one line for the flood, not one a request
    assert f"{LAT:.3f}"[:6] not in logged and str(LON)[:6] not in logged
