"""The Overpass client against a fake server: retries, Retry-After, fallback, errors."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from hideseek_chat.maps.errors import MapFetchError
from hideseek_chat.maps.overpass import Overpass, retry_after_seconds
from tests.maps.fakes import FakeOverpass, Reply

UA = "hideseek-chat-test/1.0 (+https://example.org/bot)"
QL = '/* hideseek:park */[out:json][timeout:25];nwr["leisure"="park"](1,2,3,4);out geom;'
OK = Reply.json({"elements": [{"type": "node", "id": 1, "lat": 1.0, "lon": 2.0}]})


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(*urls: str, sleeps: Sleeps, **kwargs: object) -> Overpass:
    return Overpass(urls, UA, sleep=sleeps, jitter=lambda: 0.0, **kwargs)  # type: ignore[arg-type]


def test_a_query_is_posted_as_a_form_with_the_bots_user_agent(fake_overpass: FakeOverpass):
    fake_overpass.script(OK)
    data = client(fake_overpass.url, sleeps=Sleeps()).query(QL)
    assert data["elements"][0]["id"] == 1
    [request] = fake_overpass.requests
    assert request.method == "POST"
    assert request.form["data"] == QL
    assert request.user_agent == UA


def test_429_waits_as_long_as_retry_after_says_then_succeeds(fake_overpass: FakeOverpass):
    fake_overpass.script(Reply(429, b"busy", {"Retry-After": "7"}), OK)
    sleeps = Sleeps()
    assert client(fake_overpass.url, sleeps=sleeps).query(QL)["elements"]
    assert sleeps == [7.0]
    assert len(fake_overpass.requests) == 2


def test_retry_after_is_capped_by_max_wait(fake_overpass: FakeOverpass):
    fake_overpass.script(Reply(429, b"", {"Retry-After": "3600"}), OK)
    sleeps = Sleeps()
    client(fake_overpass.url, sleeps=sleeps, max_wait=30.0).query(QL)
    assert sleeps == [30.0]


def test_retry_after_may_be_an_http_date():
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("Thu, 01 Jan 2026 12:00:09 GMT", now) == 9.0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds(None) is None


def test_504_backs_off_exponentially_then_falls_back_to_the_mirror(caplog):
    with FakeOverpass() as main, FakeOverpass() as mirror:
        main.script(*[Reply(504, b"Gateway Timeout")] * 3)
        mirror.script(OK)
        sleeps = Sleeps()
        with caplog.at_level(logging.WARNING, logger="hideseek_chat.maps.overpass"):
            data = client(main.url, mirror.url, sleeps=sleeps, attempts=3).query(QL)
        assert data["elements"]
        assert len(main.requests) == 3 and len(mirror.requests) == 1
        assert sleeps == [1.0, 2.0]  # backoff 2**n (jitter 0); none between endpoints
        failed = [r.getMessage() for r in caplog.records]
        assert len(failed) == 3 and all("timed out (504)" in m for m in failed)
        assert not any("leisure" in m for m in failed)  # the query is never logged


def test_a_remark_error_in_a_200_is_a_failure(fake_overpass: FakeOverpass):
    remark = 'runtime error: Query timed out in "query" at line 1 after 26 seconds.'
    fake_overpass.script(*[Reply.json({"elements": [], "remark": remark})] * 2)
    with pytest.raises(MapFetchError) as caught:
        client(fake_overpass.url, sleeps=Sleeps(), attempts=2).query(QL)
    assert caught.value.key == "map.overpass_failed"
    assert caught.value.params == {"reason": "timed out"}


def test_a_remark_error_then_success_is_retried(fake_overpass: FakeOverpass):
    fake_overpass.script(Reply.json({"elements": [], "remark": "runtime error: out of memory"}), OK)
    assert client(fake_overpass.url, sleeps=Sleeps()).query(QL)["elements"]


def test_malformed_json_is_a_bad_response(fake_overpass: FakeOverpass):
    fake_overpass.script(*[Reply(200, b"<html>oops</html>")] * 2)
    with pytest.raises(MapFetchError) as caught:
        client(fake_overpass.url, sleeps=Sleeps(), attempts=2).query(QL)
    assert caught.value.params["reason"] == "bad response"


def test_a_bad_query_is_not_retried_nor_sent_to_the_mirror():
    with FakeOverpass() as main, FakeOverpass() as mirror:
        main.script(Reply(400, b"parse error"))
        with pytest.raises(MapFetchError) as caught:
            client(main.url, mirror.url, sleeps=Sleeps()).query(QL)
        assert caught.value.params["reason"] == "bad query (400)"
        assert len(main.requests) == 1 and not mirror.requests


def test_a_stalled_server_times_out(fake_overpass: FakeOverpass):
    fake_overpass.script(Reply(stall=True), Reply(stall=True))
    sleeps = Sleeps()
    with pytest.raises(MapFetchError) as caught:
        client(fake_overpass.url, sleeps=sleeps, attempts=2, timeout=0.2).query(QL)
    assert caught.value.params["reason"] == "timed out"
    assert sleeps == [1.0]


def test_an_unreachable_endpoint_falls_back(fake_overpass: FakeOverpass):
    fake_overpass.script(OK)
    dead = "http://127.0.0.1:9/api/interpreter"  # discard port: nothing listens
    data = client(dead, fake_overpass.url, sleeps=Sleeps(), attempts=1).query(QL)
    assert data["elements"]


def test_busy_everywhere_says_busy():
    with FakeOverpass() as main:
        main.script(*[Reply(429)] * 2)
        with pytest.raises(MapFetchError) as caught:
            client(main.url, sleeps=Sleeps(), attempts=2).query(QL)
        assert caught.value.params["reason"] == "busy (429)"
