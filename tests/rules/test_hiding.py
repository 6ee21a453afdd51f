"""Where the zone comes from (``rules.hiding``) and the ruleset's ``zone_pin_max_age_min``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from hideseek_chat.rules import hiding
from hideseek_chat.rules.decisions import CheckHidingSpot, Notify, RequestZone
from hideseek_chat.rules.events import CardPlayed, SettingsChanged, ZoneFixed
from hideseek_chat.rules.ruleset import ZONE_PIN_MAX_AGE_MIN, RulesetError, Size
from hideseek_chat.rules.ruleset_loader import load_ruleset, load_ruleset_file
from hideseek_chat.rules.state import Phase, Transport
from tests.rules.harness import START, Game

END = START + timedelta(minutes=30)


@dataclass(frozen=True)
class P:
    at: datetime
    source: str = "pin"
    forwarded: bool = False


def ago(minutes: float, source: str = "pin", forwarded: bool = False) -> P:
    return P(END - timedelta(minutes=minutes), source, forwarded)


def test_the_freshest_pin_taken_by_the_end_fixes_the_zone() -> None:
    pins = [P(END + timedelta(minutes=2)), ago(5), ago(10)]  # newest first
    assert hiding.zone_pin(pins, END, 60) == (pins[1], False)


def test_a_later_pin_never_beats_one_the_hider_had_at_the_end() -> None:
    later = P(END + timedelta(seconds=20))
    assert hiding.zone_pin([later, ago(1)], END, 60) == (ago(1), False)


def test_a_one_off_pin_counts_for_15_minutes_a_live_one_up_to_the_ruleset_age() -> None:
    assert hiding.counts_at(ago(15), END, 60)
    assert not hiding.counts_at(ago(16), END, 60)
    assert hiding.counts_at(ago(59, "live"), END, 60)
    assert not hiding.counts_at(ago(61, "live"), END, 60)
    assert not hiding.counts_at(ago(30, "live"), END, 20), "the ruleset's age limits live pins"
    assert not hiding.counts_at(ago(1, forwarded=True), END, 60)
    # An older live pin still counts when the newest (a one-off) is too old.
    assert hiding.zone_pin([ago(16), ago(40, "live")], END, 60) == (ago(40, "live"), False)


def test_without_a_pin_at_the_end_the_first_pin_after_it_fixes_the_zone() -> None:
    first, second = P(END + timedelta(minutes=3)), P(END + timedelta(minutes=4))
    assert hiding.zone_pin([second, first, ago(20)], END, 60) == (first, True)
    assert hiding.zone_pin([ago(20)], END, 60) is None
    assert hiding.zone_pin([], END, 60) is None


def test_the_zone_moment_is_the_end_of_hiding_or_of_the_last_move() -> None:
    game = Game.create()
    game.begin()
    assert hiding.zone_moment(game.state) is None
    game.to_seeking()
    assert hiding.zone_moment(game.state) == END
    game.do(CardPlayed(game.hider, game.give("move")))
    game.advance(minutes=game.ruleset.sizes[Size.SMALL].move_period_min)
    assert game.state.phase == Phase.SEEKING
    assert hiding.zone_moment(game.state) == game.now
    assert RequestZone(1, game.now) in game.log


def test_a_hider_is_near_a_station_within_the_zone_radius() -> None:
    assert hiding.is_near_station(500.0, 500.0)
    assert not hiding.is_near_station(501.0, 500.0)


def test_the_hiding_period_ends_with_a_request_for_the_zone_at_that_moment() -> None:
    game = Game.create()
    game.begin()
    game.advance(minutes=26)
    assert CheckHidingSpot(1) in game.log, "the reminder checks the hider's spot"
    game.advance(minutes=4)
    assert RequestZone(1, END) in game.log


def test_a_late_zone_tells_the_group_it_is_fixed_without_the_station() -> None:
    game = Game.create()
    game.begin()
    game.advance(minutes=30)
    decisions = game.do(ZoneFixed(None, "stop-1", "Hester & 4th", 36.12, -97.06, late=True))
    late = [d for d in decisions if isinstance(d, Notify) and d.key == "zone.fixed_late"]
    assert len(late) == 1 and late[0].to.kind.value == "group"
    assert "Hester" not in repr(late[0].params)
    on_time = Game.create()
    on_time.begin()
    on_time.advance(minutes=30)
    quiet = on_time.do(ZoneFixed(None, "stop-1", "Hester & 4th", 36.12, -97.06))
    assert not [d for d in quiet if isinstance(d, Notify) and d.key == "zone.fixed_late"]


def test_a_car_game_centres_zones_on_street_ends_and_says_so_without_saying_where() -> None:
    game = Game.create()
    game.do(SettingsChanged(game.ref(game.state.admin_player_id), transport=Transport.CAR))
    assert hiding.zones_on_streets(game.state)
    game.begin()
    assert game.last("round.you_hide")["street_end"] is True
    game.advance(minutes=30)
    assert game.last("round.hiding_reminder")["street_end"] is True
    assert game.last("round.seeking_started")["street_end"] is True
    end = "terminus:36.123750,-97.065092:West Miller Avenue"
    assert hiding.is_street_end(end) and not hiding.is_street_end("stop-1")
    decisions = game.do(ZoneFixed(None, end, "West Miller Avenue (dead end)", 36.1, -97.0, True))
    fixed = [d for d in decisions if isinstance(d, Notify)]
    assert [(d.key, d.params["street_end"]) for d in fixed] == [
        ("zone.fixed", True),
        ("zone.fixed_late", True),
    ]
    assert "Miller" not in repr(fixed[1].params)
    transit = Game.create()
    assert not hiding.zones_on_streets(transit.state)
    transit.begin()
    assert transit.last("round.you_hide")["street_end"] is False


def test_every_player_is_asked_for_a_live_location_when_a_round_starts() -> None:
    game = Game.create()
    game.begin()
    asks = [d for d in game.log if isinstance(d, Notify) and d.key == "live.share"]
    assert {d.to.kind.value for d in asks} == {"hiders", "seekers"}


# ----- the ruleset setting -----


def test_the_shipped_rulesets_set_the_zone_pin_age() -> None:
    for name in ("metric", "us", "stillwater"):
        assert load_ruleset(name).zone_pin_max_age_min == ZONE_PIN_MAX_AGE_MIN == 60


def _metric_with(tmp_path: Path, line: str) -> Path:
    text = (Path(load_ruleset("metric").path)).read_text(encoding="utf-8")
    old = "zone_pin_max_age_min = 60\n"
    assert text.count(old) == 1
    path = tmp_path / "metric.toml"
    path.write_text(text.replace(old, line), encoding="utf-8")
    return path


def test_the_zone_pin_age_is_optional_and_house_rules_may_change_it(tmp_path: Path) -> None:
    assert load_ruleset_file(_metric_with(tmp_path, "")).zone_pin_max_age_min == 60
    changed = load_ruleset_file(_metric_with(tmp_path, "zone_pin_max_age_min = 10\n"))
    assert changed.zone_pin_max_age_min == 10


@pytest.mark.parametrize(
    ("value", "reason"),
    [("0", "more than zero"), ("121", "at most 120"), ('"ten"', "expected a number")],
)
def test_a_wrong_zone_pin_age_is_refused(tmp_path: Path, value: str, reason: str) -> None:
    with pytest.raises(RulesetError) as caught:
        load_ruleset_file(_metric_with(tmp_path, f"zone_pin_max_age_min = {value}\n"))
    assert caught.value.field.endswith("zone_pin_max_age_min")
    assert reason in caught.value.reason
