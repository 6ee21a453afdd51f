"""The seekers' map in the chat, played through the conversation on the Stillwater map.

After every answer the group gets the picture ("N stations still possible", what was not
applied and why, Stations and GeoJSON buttons), drawn by a picture job; the hider gets
their own zone's picture in private. The map is computed from what the seekers know only:
two games with the same seekers' pins and answers but hiders at different stations give
byte-identical pictures, captions, lists and GeoJSON, and no hider's station is named to
the group unless the answers leave it possible.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hideseek_chat.chat import seekmap
from hideseek_chat.chat.drive import Capabilities, adapt
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.model import SendFile, SendText
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.texts import seekmap as seekmap_texts
from hideseek_chat.console.table import Line, Table
from hideseek_chat.geo import MapIndex, Pin, distance_m, load_map_pack, regions
from hideseek_chat.geo.seeking import Clue, seeker_map
from hideseek_chat.rules.ruleset import HiderPosition
from hideseek_chat.rules.state import Pause, PauseReason
from hideseek_chat.store import UnitOfWorkFactory, unit_of_work_factory
from hideseek_chat.store.config import make_engine
from hideseek_chat.store.models import Base, PictureKind
from hideseek_chat.store.uow import cached_ruleset
from tests.chat.play import (
    HIDER_SPOT,
    SEEKERS_START,
    STATION,
    begin,
    give_cards,
    labels,
    new_table,
)

PICTURES = Capabilities(pictures=True, location_button=False)
PNG = b"\x89PNG\r\n\x1a\n"

#: A second hider: 25 m from the Kamm/Peterson stop, 1.6 km from the seekers' start (the
#: first hider, at Gallagher-Iba, is 2.0 km away): the same answers to the questions below.
OTHER_SPOT = (36.12580, -97.08120)
OTHER_STATION = "Kamm/Peterson"
#: From near the seekers' start 1.4 km towards both hiders (a thermometer of 1 km: hotter).
WALK = [(36.1380, -97.0780), (36.1350, -97.0750), (36.1320, -97.0720), (36.1300, -97.0700)]


def seeking(table: Table, spot: tuple[float, float] = HIDER_SPOT) -> tuple[str, str, str]:
    """A small game begun, the hider hidden at ``spot``, the seekers at their start."""
    hider, (s1, s2) = begin(table)
    table.pin(hider, *spot, private=True)
    table.wait(timedelta(minutes=31))
    table.pin(hider, *spot, private=True, edited=True)
    for seeker in (s1, s2):
        table.pin(seeker, *SEEKERS_START)
    return hider, s1, s2


def walk(table: Table, seeker: str, path: list[tuple[float, float]]) -> None:
    for lat, lon in path:
        table.wait(timedelta(minutes=2))
        table.pin(seeker, lat, lon, edited=True)


def pictures(table: Table, since: int = 0) -> list[Line]:
    """The seekers' maps the group got (after line ``since``)."""
    return [
        line
        for line in table.said(since=since)
        if line.content is not None and "still possible" in line.text
    ]


def public(table: Table, hider: str, since: int = 0) -> list[Line]:
    """Every line the group and the seekers read (after ``since``)."""
    hider_ref = table.person(hider).ref
    return [x for x in table.lines if x.author == "bot" and x.chat != hider_ref and x.id > since]


def answer(table: Table, hider: str, word: str) -> None:
    """The hider answers with ``word`` and keeps the first card drawn."""
    table.press(hider, word)
    table.press(hider, "🃏")


# ----------------------------------------------------------------- after every answer


def test_every_answer_brings_the_group_a_picture_and_the_hider_their_zone(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    zone = [line for line in table.said(hider) if line.content is not None]
    assert len(zone) == 1 and zone[0].content is not None and zone[0].content.startswith(PNG)
    assert STATION in zone[0].text and "Only you" in zone[0].text
    assert not [line for line in public(table, hider) if line.content is not None]

    mark = table.mark()
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    [first] = pictures(table, mark)
    assert first.content is not None and first.content.startswith(PNG)
    assert labels(first) == ["🚉 Stations", "🗺 GeoJSON"]
    assert "Not applied" not in first.text

    table.send(s1, "/ask radar 5km")
    answer(table, hider, "Yes")
    drawn = pictures(table, mark)
    assert len(drawn) == 2 and drawn[1].content != first.content
    before, after = (_count(line) for line in drawn)
    assert 0 < after < before  # a 5 km radar's yes leaves fewer stations


def test_a_picture_that_cannot_be_drawn_is_said_to_the_group(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    painter = table.conversation.services.painter

    def broken(seekers: seekmap.SeekersView) -> bytes:
        raise MemoryError("a picture too big")

    monkeypatch.setattr(painter, "seekers", broken)
    mark = table.mark()
    table.send(s1, "/seekmap")
    told = [line.text for line in public(table, hider, mark)]
    assert any("could not draw the seekers' map" in text for text in told)
    assert not pictures(table, mark)
    assert "picture job" in caplog.text


def test_a_channel_without_pictures_gets_the_caption_and_nothing_is_drawn(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(uow_factory, capabilities=replace(PICTURES, pictures=False))
    painter = table.conversation.services.painter

    def never(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("drawn for a channel that shows no pictures")

    monkeypatch.setattr(painter, "seekers", never)
    monkeypatch.setattr(painter, "zone", never)
    hider, s1, _s2 = seeking(table)
    assert not [line for line in table.said(hider) if "Only you see" in line.text]
    mark = table.mark()
    table.send(s1, "/ask radar 5km")
    answer(table, hider, "Yes")
    [caption] = [line for line in table.said(since=mark) if "still possible" in line.text]
    assert caption.content is None and 0 < _count(caption) < 171


def _count(line: Line) -> int:
    return int(line.text.split()[1].replace(",", ""))


def test_two_answers_in_quick_succession_make_one_picture_of_both(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    mark = table.mark()
    draw = table.conversation.run_picture_job
    monkeypatch.setattr(table.conversation, "run_picture_job", lambda clock: False)
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    table.send(s1, "/ask radar 5km")
    answer(table, hider, "Yes")
    assert pictures(table, mark) == []  # the drawer was busy: both answers wait for it
    monkeypatch.setattr(table.conversation, "run_picture_job", draw)
    table.wait(timedelta(seconds=10))
    [picture] = pictures(table, mark)
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        found = seekmap.clues(
            uow, table.conversation.services.ruleset(loaded.state), loaded.id, loaded.state
        )
    assert [clue.answer for clue in found] == ["no", "yes"]
    services = table.conversation.services
    with uow_factory() as uow:
        view = seekmap.seekers_view(
            uow,
            services.maps,
            services.ruleset(loaded.state),
            services.seekmaps,
            loaded.id,
            loaded.state,
        )
    assert view is not None and _count(picture) == len(view.view.candidates)


def test_an_answer_the_map_cannot_use_is_listed_with_its_reason(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    mark = table.mark()
    table.send(s1, "/ask photo tree")
    table.photo(hider, "tg-file-oak")
    [picture] = pictures(table, mark)
    assert "Not applied:" in picture.text
    assert "a photo says nothing the map can draw" in picture.text


def test_answers_given_before_the_hider_moved_no_longer_count(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask radar 5km")
    answer(table, hider, "Yes")
    [before] = pictures(table)
    # The hider played a Move after that answer (the group is told when; the pause is it).
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        state = loaded.state
        moved = replace(
            state,
            pauses=[
                *state.pauses,
                Pause(
                    max((p.id for p in state.pauses), default=0) + 1,
                    PauseReason.MOVE,
                    table.now,
                    table.now + timedelta(minutes=1),
                    state.current_round.number,  # type: ignore[union-attr]
                ),
            ],
        )
        uow.games.save(loaded.id, moved)
        uow.commit()
    table.conversation.services.states.clear()
    table.wait(timedelta(minutes=2))
    mark = table.mark()
    table.send(s1, "/seekmap")
    assert "Drawing" in table.said(since=mark)[0].text
    [after] = pictures(table, mark)
    assert "Not applied:" in after.text and "Radar 5 km: the hider moved zone since" in after.text
    assert _count(after) > _count(before)  # the radar no longer rules anything out


def test_a_question_pending_when_the_hider_moved_no_longer_counts(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Asked before a Move and answered during it: the answer says where the hider was on
    the way, not where their new zone is, so it must not rule out any station."""
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    give_cards(uow_factory, table, "move")
    table.send(s1, "/ask radar 5km")
    table.send(hider, "/hand", private=True)
    table.press(hider, "▶️ Move")
    table.wait(timedelta(minutes=3))
    mark = table.mark()
    answer(table, hider, "Yes")
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        ruleset = table.conversation.services.ruleset(loaded.state)
        [radar] = seekmap.clues(uow, ruleset, loaded.id, loaded.state)
    assert radar.void == "moved"
    [drawn] = pictures(table, mark)
    assert "Radar 5 km: the hider moved zone since" in drawn.text


def test_a_clue_takes_the_seekers_pins_the_referee_took(uow_factory: UnitOfWorkFactory) -> None:
    """The radar's and thermometer's start: the asker's pin when asking; the thermometer's
    end: where the seekers were when it reached the hider. Later pins change nothing."""
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    table.wait(timedelta(minutes=1))
    table.pin(s1, 36.1390, -97.0790)  # after asking: not where the radar was asked from
    answer(table, hider, "No")
    table.send(s1, "/ask thermometer 1km")
    walk(table, s1, WALK)
    table.wait(timedelta(minutes=3))
    table.pin(s2, 36.1200, -97.0600)  # after it reached the hider: not its end
    answer(table, hider, "Hotter")
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        ruleset = table.conversation.services.ruleset(loaded.state)
        radar, thermometer = seekmap.clues(uow, ruleset, loaded.id, loaded.state)
    assert radar.seeker is not None and thermometer.seeker is not None
    assert (radar.seeker.lat, radar.seeker.lon) == SEEKERS_START
    assert (radar.category, radar.answer, radar.distance_m) == ("radar", "no", 1000)
    assert (thermometer.seeker.lat, thermometer.seeker.lon) == (36.1390, -97.0790)
    assert thermometer.end is not None
    # It reached the hider once 1 km was travelled, before the last step of the walk.
    assert (thermometer.end.lat, thermometer.end.lon) == WALK[-2]
    assert (thermometer.answer, thermometer.void) == ("hotter", "")
    # The very pins the referee measured the hider's answer against.
    hider_at = HIDER_SPOT
    zone = loaded.state.current_round.zone  # type: ignore[union-attr]
    if ruleset.hider_position == HiderPosition.STATION and zone is not None:
        hider_at = (zone.lat, zone.lon)
    with uow_factory() as uow:
        check = uow.checks.get(loaded.id, thermometer.ref)
    assert check is not None
    numbers = check.computation.numbers
    start, end = thermometer.seeker, thermometer.end
    assert numbers.start_m == pytest.approx(distance_m(*hider_at, start.lat, start.lon), abs=0.5)
    assert numbers.end_m == pytest.approx(distance_m(*hider_at, end.lat, end.lon), abs=0.5)


def test_a_clue_keeps_its_pins_however_many_the_seekers_sent_since(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A seeker's live location sends a pin a minute for hours: the map drawn long after
    an answer still finds the pins the referee measured it against (the radar's start,
    the thermometer's end), not an older pin of a quieter seeker or none at all."""
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    table.send(s1, "/ask thermometer 1km")
    walk(table, s1, WALK)
    answer(table, hider, "Hotter")
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        ruleset = table.conversation.services.ruleset(loaded.state)
        before = seekmap.clues(uow, ruleset, loaded.id, loaded.state)
        walker = next(p for p in loaded.state.players if p.ref == table.person(s1).ref)
        # s1 walks on for hours; s2 (whose last pin is the start) stays quiet.
        for minute in range(1, 301):
            at = table.now + timedelta(minutes=minute)
            uow.pings.add(loaded.id, walker.id, 36.1300 - minute * 1e-5, -97.0700, at)
        uow.commit()
    with uow_factory() as uow:
        after = seekmap.clues(uow, ruleset, loaded.id, loaded.state)
    assert before[1].end is not None and (before[1].end.lat, before[1].end.lon) == WALK[-2]
    assert after == before


def test_a_thermometer_keeps_its_end_when_the_seeker_who_walked_it_leaves(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """The referee took the walking seeker's pin as the end; their leaving the game later
    must not make the map take another seeker's older pin instead."""
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask thermometer 1km")
    walk(table, s1, WALK)
    answer(table, hider, "Hotter")
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        ruleset = table.conversation.services.ruleset(loaded.state)
        [before] = seekmap.clues(uow, ruleset, loaded.id, loaded.state)
    table.send(s1, "/leave")
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        assert not any(p.active for p in loaded.state.players if p.ref == table.person(s1).ref)
        [after] = seekmap.clues(uow, ruleset, loaded.id, loaded.state)
    assert before.end is not None and (before.end.lat, before.end.lon) == WALK[-2]
    assert after == before


def test_two_answers_queue_one_picture_while_it_waits(uow_factory: UnitOfWorkFactory) -> None:
    table = new_table(uow_factory)
    begin(table)
    with uow_factory() as uow:
        game = uow.games.current_id(table.group)
        assert game is not None
        now = table.now
        first = uow.pictures.queue(game, PictureKind.SEEKERS, 1, "outbox:1", now)
        assert first is not None
        assert uow.pictures.queue(game, PictureKind.SEEKERS, 1, "outbox:2", now) is None
        assert uow.pictures.queue(game, PictureKind.ZONE, 1, "outbox:3", now) is not None
        uow.commit()
    with uow_factory() as uow:
        claimed = uow.pictures.claim_next(now, timedelta(minutes=2))
        assert claimed is not None and claimed.id == first
        uow.commit()
    with uow_factory() as uow:  # drawing: an answer now is drawn by the next job
        assert uow.pictures.queue(game, PictureKind.SEEKERS, 1, "outbox:1", now) is None
        assert uow.pictures.queue(game, PictureKind.SEEKERS, 1, "outbox:4", now) is not None
        uow.pictures.finish(first, now, picture=b"png")
        assert uow.pictures.picture(first) == b"png"
        uow.commit()
    later = now + timedelta(days=2)
    with uow_factory() as uow:  # a newer picture: the old one goes once it is long sent
        newer = uow.pictures.claim_next(later, timedelta(minutes=2))
        assert newer is not None and newer.kind == PictureKind.ZONE
        uow.pictures.finish(newer.id, later, picture=b"zone")
        newest = uow.pictures.claim_next(later, timedelta(minutes=2))
        assert newest is not None and newest.kind == PictureKind.SEEKERS
        uow.pictures.finish(newest.id, later, picture=b"png2")
        assert uow.pictures.picture(first) is None
        assert uow.pictures.picture(newer.id) == b"zone"
        assert uow.pictures.picture(newest.id) == b"png2"


# ----------------------------------------------------------------- /seekmap, /stations, GeoJSON


def test_the_admin_can_turn_the_automatic_picture_off_and_anyone_can_ask_for_one(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/seekmap off")
    assert table.last() == "Only the game's admin can do that."
    table.send("Alice", "/seekmap off")
    assert "won't post the seekers' map" in table.last()
    mark = table.mark()
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    assert pictures(table, mark) == []
    table.send(s1, "/seekmap")
    assert len(pictures(table, mark)) == 1
    table.send("Alice", "/seekmap on")
    table.send(s1, "/ask radar 5km")
    answer(table, hider, "Yes")
    assert len(pictures(table, mark)) == 2


def test_seekmap_before_the_seeking_is_refused(uow_factory: UnitOfWorkFactory) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    begin(table)
    table.send("Bob", "/seekmap")
    assert "no seeking under way" in table.last()


def test_stations_are_listed_page_by_page_with_their_lines(uow_factory: UnitOfWorkFactory) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    [picture] = pictures(table)
    table.press(s1, "Stations")
    first = table.said()[-1]
    assert first.text.startswith(f"🚉 {_count(picture)} stations still possible:")
    assert "Page 1 of" in first.text and "Ag Hall" not in first.text
    assert labels(first) == ["Next ▶", "🗺 GeoJSON"]
    table.press(s1, "Next")
    second = table.said()[-1]
    assert second.edit_of == first.id  # the list turns its page in place
    assert "Page 2 of" in second.text
    assert "• Ag Hall (Black, Gold, Orange, Purple)" in second.text  # a station and its lines
    assert labels(second) == ["◀ Previous", "Next ▶", "🗺 GeoJSON"]
    table.send(s2, "/stations")
    assert table.said()[-1].text.split("\n")[:3] == first.text.split("\n")[:3]


def test_the_geojson_button_sends_the_remaining_area_and_the_stations(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory, capabilities=PICTURES)
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    [picture] = pictures(table)
    table.press(s1, "GeoJSON")
    document = table.said()[-1]
    assert document.kind == "file" and document.note == "seekers-map.geojson"
    assert document.content is not None
    collection = json.loads(document.content)
    assert collection["type"] == "FeatureCollection"
    assert str(_count(picture)) in document.text


def test_a_channel_without_files_gets_the_caption_and_a_word_instead() -> None:
    document = SendFile("tg:1", filename="a.geojson", content=b"{}", caption="C", fallback="C!")
    [sent] = adapt([document], Capabilities(files=False))
    assert isinstance(sent, SendText) and sent.text == "C!"
    assert adapt([document], Capabilities()) == [document]


@pytest.mark.parametrize(
    ("language", "one", "many", "moved"),
    [
        ("en", "🗺 1 station still possible.", "🗺 12 stations still possible.", "moved zone"),
        ("de", "🗺 1 Station noch möglich.", "🗺 12 Stationen noch möglich.", "Zone gewechselt"),
        ("es", "🗺 1 estación aún posible.", "🗺 12 estaciones aún posibles.", "cambió de zona"),
    ],
)
def test_the_caption_is_said_in_the_groups_language_with_its_plurals(
    language: str, one: str, many: str, moved: str
) -> None:
    fmt = Formatter(language, ruleset=cached_ruleset("metric"))
    assert say("picture.seekers", {"count": 1, "not_applied": []}, fmt) == one
    caption = say(
        "picture.seekers", {"count": 12, "not_applied": [["radar-1km", None, "moved"]]}, fmt
    )
    head, _title, item = caption.split("\n")
    assert head == many and item.startswith("• ") and moved in item


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "one of them must be wrong"), ("de", "eine davon muss falsch"), ("es", "errónea")],
)
def test_answers_that_leave_no_station_are_said_to_contradict_each_other(
    language: str, words: str
) -> None:
    """Two radars' yes 20 km apart: no hider answers both truthfully, and the group is told
    so instead of searching an empty map."""
    index = MapIndex(load_map_pack("stillwater"))
    at = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
    near, far = Pin(36.1156, -97.0584, at), Pin(36.2956, -97.0584, at)
    radars = [
        Clue(ref, "radar", answer="yes", distance_m=1000.0, seeker=pin)
        for ref, pin in ((1, near), (2, far))
    ]
    fmt = Formatter(language, ruleset=cached_ruleset("metric"))

    def caption(clues: list[Clue]) -> str:
        view = seeker_map(index, clues, 500.0, HiderPosition.STATION)
        seekers = seekmap.SeekersView(view, (), index.pack, {})
        return say("picture.seekers", seekmap.caption_params(seekers), fmt)

    assert words not in caption(radars[:1])
    assert words in caption(radars)
    empty = replace(index.pack, stations=())
    nothing = seeker_map(MapIndex(empty), radars, 500.0, HiderPosition.STATION)
    assert not seekmap.contradicted(seekmap.SeekersView(nothing, (), empty, {}))


def test_every_reason_the_geometry_gives_has_its_own_words() -> None:
    """A clue left off the map says why in words, not "it cannot be drawn" for a reason the
    geometry knows (the codes are read from ``geo.regions``, so a new one needs words)."""
    source = inspect.getsource(regions)
    codes = set(re.findall(r'return "([a-z_]+)"', source)) | {"moved", "vetoed"}
    assert {"unknown_place", "needs_line", "no_seeker_pin"} <= codes
    assert sorted(codes - set(seekmap_texts.NOT_APPLIED)) == []
    german = Formatter("de", ruleset=cached_ruleset("metric"))
    assert "nicht auf der Karte" in seekmap_texts.not_applied_reason("unknown_place", german)


# ----------------------------------------------------------------- secrecy


def _play(tmp_path: Path, name: str, spot: tuple[float, float]) -> Iterator[Table]:
    engine = make_engine(f"sqlite:///{tmp_path / name}.sqlite3")
    Base.metadata.create_all(engine)
    try:
        yield new_table(unit_of_work_factory(engine), capabilities=PICTURES)
    finally:
        engine.dispose()


def _round(table: Table, spot: tuple[float, float]) -> tuple[str, int]:
    """The same questions and answers, whatever ``spot`` the hider is at."""
    hider, s1, s2 = seeking(table, spot)
    mark = table.mark()
    table.send(s1, "/ask radar 1km")
    answer(table, hider, "No")
    table.send(s1, "/ask thermometer 1km")
    walk(table, s1, WALK)
    answer(table, hider, "Hotter")
    table.send(s2, "/ask radar 5km")
    answer(table, hider, "Yes")
    table.send(s2, "/ask photo tree")
    table.photo(hider, "tg-file-oak")
    table.send(s1, "/stations")
    table.press(s1, "Next")
    table.press(s1, "GeoJSON")
    return hider, mark


def test_two_hiders_given_the_same_answers_get_the_same_map_byte_for_byte(
    tmp_path: Path,
) -> None:
    seen = []
    for name, spot in (("a", HIDER_SPOT), ("b", OTHER_SPOT)):
        for table in _play(tmp_path, name, spot):
            _hider, mark = _round(table, spot)
            drawn = pictures(table, mark)
            lists = [x.text for x in table.said(since=mark) if "still possible:" in x.text]
            files = [x.content for x in table.said(since=mark) if x.kind == "file"]
            assert len(drawn) == 4 and len(lists) == 2 and len(files) == 1
            seen.append(([x.content for x in drawn], [x.text for x in drawn], lists, files))
    assert seen[0] == seen[1]
    captions = seen[0][1]
    assert not any("Not applied" in caption for caption in captions[:3])  # thermometer too
    assert "Not applied:" in captions[-1] and "Photo" in captions[-1]


@pytest.mark.parametrize(("spot", "station"), [(HIDER_SPOT, STATION), (OTHER_SPOT, OTHER_STATION)])
def test_the_hiders_station_reaches_the_group_only_as_a_candidate(
    tmp_path: Path, spot: tuple[float, float], station: str
) -> None:
    for table in _play(tmp_path, "game", spot):
        hider, mark = _round(table, spot)
        [document] = [x for x in table.said(since=mark) if x.kind == "file"]
        assert document.content is not None
        names = {
            feature["properties"].get("name")
            for feature in json.loads(document.content)["features"]
        }
        # Truthful answers never rule out the true station: it stays a candidate ...
        assert station in names
        for line in public(table, hider, mark):
            content = (
                (line.content or b"").decode("utf-8", "replace") if line.kind == "file" else ""
            )
            if station in line.text or station in content:
                # ... and it is named only where candidates are listed.
                assert "still possible:" in line.text or line.kind == "file", line.text
        private = [x for x in table.said(hider) if x.content is not None]
        assert private and all(station in x.text for x in private)  # the zone's picture


def test_a_caption_names_the_few_candidates_left() -> None:
    """Five or fewer left: the caption names them (SMS groups get no picture)."""
    fmt = Formatter("en", ruleset=cached_ruleset("metric"))
    few = {"count": 2, "names": ["Ag Hall", "Bennett Hall"], "not_applied": []}
    assert say("picture.seekers", few, fmt).split("\n") == [
        "🗺 2 stations still possible.",
        "📍 Ag Hall · Bennett Hall",
    ]
    index = MapIndex(load_map_pack("stillwater"))
    pin = Pin(36.1267339, -97.0643939, datetime(2026, 5, 2, 9, 0, tzinfo=UTC))
    near = Clue(1, "radar", answer="yes", distance_m=150.0, seeker=pin)
    view = seeker_map(index, [near], 100.0)
    seekers = seekmap.SeekersView(view, (), index.pack, {})
    params = seekmap.caption_params(seekers)
    assert 0 < len(view.candidates) <= seekmap.NAMED
    assert params["names"] == sorted((s.name for s in view.candidates), key=str.casefold)
    wide = Clue(1, "radar", answer="yes", distance_m=5_000.0, seeker=pin)
    many = seekmap.SeekersView(seeker_map(index, [wide], 100.0), (), index.pack, {})
    assert seekmap.caption_params(many)["names"] == []


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "🗺 1 street end still possible.", "🗺 12 street ends still possible."),
        ("de", "🗺 1 Straßenende noch möglich.", "🗺 12 Straßenenden noch möglich."),
        ("es", "🗺 1 final de calle aún posible.", "🗺 12 finales de calle aún posibles."),
    ],
)
def test_a_car_games_caption_counts_street_ends(language: str, one: str, many: str) -> None:
    fmt = Formatter(language, ruleset=cached_ruleset("metric"))
    for count, want in ((1, one), (12, many)):
        said = say("picture.seekers", {"count": count, "street_ends": True}, fmt)
        assert said == want
