"""The tile client against a fake tile server: it names the app, keeps tiles at least a
week, keeps to its rate cap, stops on 429/5xx/timeouts, and never raises for a bad server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from hideseek_chat.pictures.tiles import (
    DEFAULT_BACKOFF_S,
    MIN_CACHE_S,
    RateCap,
    TileClient,
    cache_seconds,
    retry_after_s,
)
from tests.maps.fakes import Reply
from tests.pictures.fakes import USER_AGENT, FakeClock, FakeTiles, tile_colour

DAY = 24 * 3600.0


@pytest.fixture
def server() -> Iterator[FakeTiles]:
    with FakeTiles() as fake:
        yield fake


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


_OPEN: list[TileClient] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def opened(tiles: TileClient) -> TileClient:
    _OPEN.append(tiles)
    return tiles


def client(
    server: FakeTiles, clock: FakeClock, cache: Path | None, timeout_s: float = 5.0
) -> TileClient:
    return opened(TileClient(
        server.template,
        user_agent=USER_AGENT,
        cache_dir=cache,
        rate_per_s=1000.0,
        timeout_s=timeout_s,
        clock=clock,
        sleep=clock.sleep,
        now=clock,
    ))


def test_a_tile_is_fetched_with_the_apps_name(
    server: FakeTiles, clock: FakeClock, tmp_path: Path
) -> None:
    tiles = client(server, clock, tmp_path)
    image = tiles.tile(12, 900, 1600)
    assert image is not None and image.size == (256, 256)
    assert image.getpixel((10, 10)) == tile_colour(12, 900, 1600)
    assert server.tiles_asked() == ["/12/900/1600.png"]
    assert server.requests[0].user_agent == USER_AGENT


def test_a_cached_tile_is_not_fetched_again_for_a_week(
    server: FakeTiles, clock: FakeClock, tmp_path: Path
) -> None:
    server.headers = {"Cache-Control": "max-age=60"}  # the policy's week wins over a minute
    assert client(server, clock, tmp_path).tile(5, 3, 4) is not None
    clock.advance(6 * DAY)
    again = client(server, clock, tmp_path).tile(5, 3, 4)  # a new client: the disk cache
    assert again is not None and again.getpixel((0, 0)) == tile_colour(5, 3, 4)
    assert len(server.requests) == 1
    clock.advance(2 * DAY)
    assert client(server, clock, tmp_path).tile(5, 3, 4) is not None
    assert len(server.requests) == 2


def test_a_longer_server_lifetime_is_kept(
    server: FakeTiles, clock: FakeClock, tmp_path: Path
) -> None:
    server.headers = {"Cache-Control": "public, max-age=2592000"}  # 30 days
    tiles = client(server, clock, tmp_path)
    tiles.tile(5, 3, 4)
    clock.advance(20 * DAY)
    tiles.tile(5, 3, 4)
    assert len(server.requests) == 1


def test_cache_lifetime_from_the_headers() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    in_ten_days = format_datetime(now + timedelta(days=10), usegmt=True)
    assert cache_seconds({"expires": in_ten_days}, now.timestamp()) == pytest.approx(10 * DAY)
    assert cache_seconds({"expires": "yesterday-ish"}, now.timestamp()) == MIN_CACHE_S
    assert cache_seconds({"cache-control": "no-cache"}, now.timestamp()) == MIN_CACHE_S
    assert cache_seconds({"cache-control": "max-age=864000"}, 0) == 10 * DAY


def test_without_a_cache_folder_every_call_asks(server: FakeTiles, clock: FakeClock) -> None:
    tiles = client(server, clock, None)
    tiles.tile(3, 1, 1)
    tiles.tile(3, 1, 1)
    assert len(server.requests) == 2


def test_429_stops_requests_until_retry_after(
    server: FakeTiles, clock: FakeClock, tmp_path: Path
) -> None:
    server.script(Reply(429, headers={"Retry-After": "30"}))
    tiles = client(server, clock, tmp_path)
    assert tiles.tile(4, 1, 1) is None
    clock.advance(29)
    assert tiles.tile(4, 2, 2) is None
    assert len(server.requests) == 1  # nothing asked while the server said wait
    clock.advance(2)
    assert tiles.tile(4, 2, 2) is not None
    assert len(server.requests) == 2


@pytest.mark.parametrize("reply", [Reply(504), Reply(503, b"busy")])
def test_a_server_error_gives_no_tile_and_a_pause(
    server: FakeTiles, clock: FakeClock, tmp_path: Path, reply: Reply
) -> None:
    server.script(reply)
    tiles = client(server, clock, tmp_path)
    assert tiles.tile(4, 1, 1) is None
    assert tiles.tile(4, 1, 2) is None  # the rest of the picture does not wait on it
    assert len(server.requests) == 1
    clock.advance(DEFAULT_BACKOFF_S + 1)
    assert tiles.tile(4, 1, 2) is not None


def test_a_hanging_server_times_out_into_no_tile(
    server: FakeTiles, clock: FakeClock, tmp_path: Path
) -> None:
    server.script(Reply(stall=True))
    tiles = client(server, clock, tmp_path, timeout_s=0.3)
    assert tiles.tile(4, 1, 1) is None
    assert tiles.tile(4, 1, 2) is None
    assert len(server.requests) == 1


def test_an_unreachable_server_gives_no_tile(clock: FakeClock, tmp_path: Path) -> None:
    with FakeTiles() as gone:
        template = gone.template
    tiles = opened(TileClient(template, user_agent=USER_AGENT, cache_dir=tmp_path, clock=clock,
                              sleep=clock.sleep, now=clock, timeout_s=2.0))
    assert tiles.tile(4, 1, 1) is None


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, b"<html>not a tile</html>", {"Content-Type": "image/png"}),
        Reply(200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 40),
        Reply(200, b""),
        Reply(404),
    ],
)
def test_a_malformed_body_gives_no_tile_and_is_not_cached(
    server: FakeTiles,
    clock: FakeClock,
    tmp_path: Path,
    reply: Reply,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server.script(reply)
    tiles = client(server, clock, tmp_path)
    with caplog.at_level(logging.DEBUG, logger="hideseek_chat.pictures.tiles"):
        assert tiles.tile(4, 13, 7) is None
    assert caplog.records  # said, but never where: a zone's tiles would place the hider
    assert "13" not in caplog.text and "/7" not in caplog.text
    assert tiles.tile(4, 13, 7) is not None  # asked again: nothing bad was kept
    assert len(server.requests) == 2


def test_an_expired_tile_stands_in_when_the_server_fails(
    server: FakeTiles, clock: FakeClock, tmp_path: Path
) -> None:
    tiles = client(server, clock, tmp_path)
    tiles.tile(6, 10, 20)
    clock.advance(8 * DAY)
    server.script(Reply(504))
    stale = tiles.tile(6, 10, 20)
    assert stale is not None and stale.getpixel((0, 0)) == tile_colour(6, 10, 20)
    assert len(server.requests) == 2


def test_tiles_outside_the_world_are_not_asked(server: FakeTiles, clock: FakeClock) -> None:
    tiles = client(server, clock, None)
    assert tiles.tile(2, 4, 0) is None
    assert tiles.tile(2, 0, -1) is None
    assert tiles.tile(25, 0, 0) is None
    assert server.requests == []


def test_requests_keep_to_the_rate_cap(server: FakeTiles, clock: FakeClock) -> None:
    tiles = opened(TileClient(server.template, user_agent=USER_AGENT, rate_per_s=2.0,
                              clock=clock, sleep=clock.sleep, now=clock))
    for x in range(5):
        assert tiles.tile(4, x, 0) is not None
    assert len(server.requests) == 5
    assert clock.slept == pytest.approx([0.5, 0.5, 0.5, 0.5])


def test_the_rate_cap_hands_out_slots_in_turn() -> None:
    clock = FakeClock(0.0)
    cap = RateCap(4.0, clock, clock.sleep)
    cap.wait()
    clock.advance(1.0)  # a pause earns no burst: the next slot is "now"
    cap.wait()
    cap.wait()
    assert clock.slept == [0.25]


def test_retry_after_forms() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=90), usegmt=True)
    assert retry_after_s("12", now.timestamp()) == 12
    assert retry_after_s(later, now.timestamp()) == pytest.approx(90)
    assert retry_after_s("soon", 0) == DEFAULT_BACKOFF_S
    assert retry_after_s(None, 0) == DEFAULT_BACKOFF_S
    assert retry_after_s("99999999", 0) == 3600


def test_a_template_without_the_tile_numbers_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\{x\}"):
        TileClient("https://tiles.example.org/{z}/tile.png", user_agent=USER_AGENT)


def test_a_tile_kept_in_memory_expires_like_the_disk_copy(
    server: FakeTiles, clock: FakeClock, tmp_path: Path
) -> None:
    tiles = client(server, clock, tmp_path)
    tiles.tile(5, 3, 4)
    clock.advance(6 * DAY)
    tiles.tile(5, 3, 4)
    assert len(server.requests) == 1
    clock.advance(2 * DAY)
    tiles.tile(5, 3, 4)
    assert len(server.requests) == 2
