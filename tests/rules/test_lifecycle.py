"""Setup, rounds, the clock, pauses, rest periods, handover, scoring and the variants."""

from datetime import timedelta

import pytest

from hideseek_chat.rules.clock import hiding_seconds
from hideseek_chat.rules.decisions import Notify
from hideseek_chat.rules.errors import (
    GamePausedError,
    NotAllowed,
    NotAPlayer,
    RuleViolation,
    SetupError,
    WrongPhase,
)
from hideseek_chat.rules.events import (
    CardPlayed,
    CardsKept,
    CatchAnswered,
    CatchClaimed,
    CatchDecided,
    EndGameStarted,
    GameAborted,
    GameBegun,
    GamePaused,
    GameResumed,
    NextRoundStarted,
    PlayerJoined,
    PlayerLeft,
    QuestionAnswered,
    QuestionAsked,
    SettingsChanged,
    TeamJoined,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import CardKind, Size
from hideseek_chat.rules.state import CardZone, Ending, Mode, Phase, Transport
from tests.rules.harness import Game, seeking


def catch(game: Game) -> None:
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))


# ----- setup -----


def test_only_the_admin_begins_and_strangers_are_not_players() -> None:
    game = Game.create()
    with pytest.raises(NotAllowed):
        game.do(GameBegun("bob"))
    with pytest.raises(NotAPlayer):
        game.do(QuestionAsked("mallory", "radar-1km"))
    with pytest.raises(SetupError):
        game.do(PlayerJoined("bob", "Bob again"))


def test_a_game_needs_two_teams() -> None:
    game = Game.create(("alice",))
    with pytest.raises(SetupError):
        game.begin()


def test_random_hide_order_covers_every_team_per_round_count() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.do(SettingsChanged("alice", rounds_per_team=2))
    game.begin()
    order = game.state.hide_order
    assert len(order) == 6 and order[:3] == order[3:] and len(set(order)) == 3
    assert game.last("game.begun")["rounds"] == 6


def test_teams_hide_together() -> None:
    game = Game.create(("alice", "bob", "carol", "dave"))
    game.do(TeamJoined("bob", "alice"))
    game.do(TeamJoined("dave", "carol"))
    game.begin()
    assert len(game.state.hide_order) == 2
    hider_team = game.state.hider_team_id()
    assert len(game.state.team_players(hider_team)) == 2


def test_settings_are_admin_only_and_validated() -> None:
    game = Game.create()
    with pytest.raises(NotAllowed):
        game.do(SettingsChanged("bob", rounds_per_team=2))
    with pytest.raises(SetupError):
        game.do(SettingsChanged("alice", rounds_per_team=0))
    with pytest.raises(SetupError):
        game.do(SettingsChanged("alice", rest_periods=(("25:00", "08:00"),)))
    game.do(SettingsChanged("alice", size=Size.MEDIUM, end_timer_min=480))
    assert game.state.size == Size.MEDIUM and game.state.settings.end_timer_min == 480
    game.begin()
    with pytest.raises(WrongPhase):
        game.do(SettingsChanged("alice", rounds_per_team=2))


# ----- the round -----


def test_hiding_period_per_size_with_a_reminder() -> None:
    for size, minutes in ((Size.SMALL, 30), (Size.MEDIUM, 60), (Size.LARGE, 180)):
        game = Game.create(size=size)
        game.begin()
        assert game.last("round.hiding_started")["minutes"] == minutes
        game.advance(minutes=minutes - 1)
        assert game.state.phase == Phase.HIDING and game.notes("round.hiding_reminder")
        game.advance(minutes=1)
        assert game.state.phase == Phase.SEEKING


def test_end_game_then_catch_needs_the_hiders_confirmation() -> None:
    game = seeking()
    seeker = game.seekers[0]
    game.do(EndGameStarted(seeker))
    assert game.state.phase == Phase.END_GAME
    with pytest.raises(WrongPhase):
        game.do(EndGameStarted(seeker))
    game.do(CatchClaimed(seeker, distance_m=1.5))
    game.do(CatchAnswered(game.hider, False))
    assert game.last("catch.denied")["by"] == "Bob" or game.notes("catch.denied")
    assert game.state.phase == Phase.END_GAME
    with pytest.raises(NotAllowed):
        game.do(CatchAnswered(seeker, True))
    game.do(CatchClaimed(seeker))
    game.do(CatchAnswered(game.hider, True))
    assert game.state.phase == Phase.HANDOVER


def test_the_admin_decides_a_catch_in_the_end_game_only() -> None:
    game = seeking()
    admin = game.ref(game.state.admin_player_id)
    seekers = [s for s in game.seekers if s != admin]
    named = seekers[0]
    other = next(r for r in [*game.seekers, game.hider] if r not in (admin, named))
    with pytest.raises(WrongPhase) as during_seeking:
        game.do(CatchDecided(admin, named))
    assert during_seeking.value.key == "error.decide_end_game"
    game.do(EndGameStarted(game.seekers[0]))
    game.do(CatchClaimed(named))  # a claim the hider never answers
    with pytest.raises(NotAllowed) as not_admin:
        game.do(CatchDecided(other, named))
    assert not_admin.value.key == "error.only_admin"
    with pytest.raises(NotAllowed) as the_hider:
        game.do(CatchDecided(admin, game.hider))
    assert the_hider.value.key == "error.not_a_seeker"
    game.do(CatchDecided(admin, named))
    assert game.state.pending_catch is None
    decided = game.last("catch.decided")
    assert decided["by"] == game.state.player_by_ref(named).name  # type: ignore[union-attr]
    assert decided["admin"] == game.state.player_by_ref(admin).name  # type: ignore[union-attr]
    assert game.state.phase == Phase.HANDOVER
    assert game.state.rounds[0].ending == Ending.CAUGHT
    assert [c.team_id for c in game.state.catches] == [
        game.state.player_by_ref(named).team_id  # type: ignore[union-attr]
    ]


def test_hiding_time_is_elapsed_plus_time_bonuses_in_hand() -> None:
    game = seeking(players=("alice", "bob"))
    game.give("time-bonus-4")
    game.give("time-bonus-6")
    game.advance(minutes=50)
    catch(game)
    result = game.last("round.result")
    assert result["hiding_seconds"] == 50 * 60
    assert result["bonus_minutes"] == 10
    assert result["total_seconds"] == 60 * 60


def test_round_result_reveals_the_station_only_then() -> None:
    game = seeking(players=("alice", "bob"))
    before = [n for n in game.log if isinstance(n, Notify) and n.to.kind != "hiders"]
    assert not any("Hester & 4th" in str(n.params) for n in before)
    catch(game)
    assert game.last("round.result")["station"] == "Hester & 4th"


def test_handover_lasts_at_most_ten_minutes_and_the_next_hider_may_start_early() -> None:
    game = seeking(players=("alice", "bob", "carol"))
    catch(game)
    nxt = game.state.hide_order[1]
    not_next = next(
        p.ref
        for p in game.state.players
        if p.team_id not in (nxt,) and p.id != game.state.admin_player_id
    )
    with pytest.raises(NotAllowed):
        game.do(NextRoundStarted(not_next))
    game.advance(minutes=9)
    assert game.state.phase == Phase.HANDOVER
    game.advance(minutes=1)
    assert game.state.phase == Phase.HIDING and len(game.state.rounds) == 2

    other = seeking(players=("alice", "bob"))
    catch(other)
    starter = next(p.ref for p in other.state.players if p.team_id == other.state.hide_order[1])
    other.do(NextRoundStarted(starter))
    assert other.state.phase == Phase.HIDING


def test_longest_single_run_wins_and_ties_are_ties() -> None:
    game = seeking(players=("alice", "bob"))
    game.advance(minutes=40)
    catch(game)
    game.advance(minutes=10)
    game.to_seeking()
    game.advance(minutes=40)
    catch(game)
    board = game.last("game.over")
    assert board["tie"] is True and len(board["winners"]) == 2

    other = seeking(players=("alice", "bob"))
    other.advance(minutes=40)
    catch(other)
    other.advance(minutes=10)
    other.to_seeking()
    other.advance(minutes=41)
    catch(other)
    board = other.last("game.over")
    assert board["winners"] == [other.state.team(other.state.hide_order[1]).name]


def test_best_round_counts_not_the_sum() -> None:
    game = Game.create(("alice", "bob"))
    game.do(SettingsChanged("alice", rounds_per_team=2))
    game.begin()
    for minutes in (10, 10, 30, 5):
        game.to_seeking()
        game.advance(minutes=minutes)
        catch(game)
        if game.state.phase == Phase.HANDOVER:
            game.advance(minutes=10)
    rows = {r["team"]: r["score"] for r in game.last("game.over")["rows"]}
    assert sorted(rows.values()) == [10 * 60, 30 * 60]


# ----- pauses and clocks -----


def test_pause_stops_the_hider_clock_and_every_timer() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    due = game.state.pending_question().due_at
    game.advance(minutes=2)
    clock = hiding_seconds(game.state, game.state.current_round, game.now)
    game.do(GamePaused(game.seekers[0]))
    with pytest.raises(GamePausedError):
        game.do(QuestionAnswered(game.hider, "no"))
    game.advance(hours=2)
    assert hiding_seconds(game.state, game.state.current_round, game.now) == clock
    assert not game.notes("question.overdue")
    game.do(GameResumed(game.hider))
    assert game.state.pending_question().due_at == due + timedelta(hours=2)
    game.advance(minutes=3)
    assert game.notes("question.overdue")
    assert hiding_seconds(game.state, game.state.current_round, game.now) == clock + 180


def test_pause_during_hiding_period_extends_it() -> None:
    game = Game.create()
    game.begin()
    game.advance(minutes=10)
    game.do(GamePaused("alice"))
    game.advance(minutes=45)
    assert game.state.phase == Phase.HIDING
    game.do(GameResumed("alice"))
    game.advance(minutes=19)
    assert game.state.phase == Phase.HIDING
    game.advance(minutes=1)
    assert game.state.phase == Phase.SEEKING


def test_rest_periods_pause_the_game_overnight() -> None:
    game = Game.create()  # starts 09:00 UTC
    game.do(SettingsChanged("alice", rest_periods=(("10:00", "10:40"),), time_zone="UTC"))
    game.begin()
    game.advance(minutes=30)
    game.do(ZoneFixed(None, "s", "S", 0, 0))
    game.advance(minutes=30)  # 10:00: rest starts
    assert game.state.is_paused and game.notes("rest.started")
    clock = hiding_seconds(game.state, game.state.current_round, game.now)
    assert clock == 30 * 60
    game.advance(minutes=40)
    assert not game.state.is_paused and game.notes("rest.ended")
    game.advance(minutes=10)
    assert hiding_seconds(game.state, game.state.current_round, game.now) == 40 * 60


def test_end_of_game_timer_ends_the_game_and_counts_the_run_so_far() -> None:
    game = Game.create(("alice", "bob"))
    game.do(SettingsChanged("alice", end_timer_min=90))
    game.begin()
    game.to_seeking()
    game.advance(minutes=70)
    assert game.state.phase == Phase.GAME_OVER
    assert game.state.rounds[0].ending == Ending.GAME_TIMER
    assert game.state.rounds[0].hiding_seconds == 60 * 60
    assert game.notes("game.timer_up")


def test_admin_may_abort_and_the_results_so_far_stand() -> None:
    game = seeking(players=("alice", "bob"))
    game.advance(minutes=12)
    with pytest.raises(NotAllowed):
        game.do(GameAborted("bob"))
    game.do(GameAborted("alice"))
    assert game.state.phase == Phase.GAME_OVER
    with pytest.raises(WrongPhase):
        game.do(QuestionAsked(game.seekers[0], "radar-1km"))


def test_a_seeker_may_leave_but_not_the_lone_hider() -> None:
    game = seeking(players=("alice", "bob", "carol"))
    with pytest.raises(NotAllowed):
        game.do(PlayerLeft(game.hider))
    game.do(PlayerLeft(game.seekers[0]))
    assert len(game.state.hide_order) == 2


# ----- variants -----


def test_global_variant_scales_the_large_values() -> None:
    game = Game.create()
    game.do(SettingsChanged("alice", global_scale=True))
    game.begin()
    assert game.last("round.hiding_started")["minutes"] == 24 * 60
    game.advance(hours=24)
    game.do(ZoneFixed(None, "s", "S", 0, 0))
    card = game.give("right-turn")
    game.do(CardPlayed(game.hider, card, discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 1))))
    assert game.last("curse.cast")["duration_min"] == 60 * 5  # large 60 min x 5
    game.give("time-bonus-2")  # the 2/3/5 card: large 5 minutes x 5
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))
    assert game.last("round.result")["bonus_minutes"] == 25


def test_on_foot_games_drop_transit_questions_and_transit_curses() -> None:
    game = Game.create()
    game.do(SettingsChanged("alice", transport=Transport.FOOT))
    game.begin()
    assert not any(c.def_id == "u-turn" for c in game.state.cards)
    game.to_seeking()
    with pytest.raises(RuleViolation) as err:
        game.do(QuestionAsked(game.seekers[0], "matching-transit-line", on_transit=True))
    assert err.value.key == "error.question_variant"


def test_teams_points_mode_removes_veto_and_randomize_and_rewards_the_other_team() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_POINTS))
    game.begin()
    assert not any(c.def_id in ("veto", "randomize") for c in game.state.cards)
    assert game.state.ruleset and len(game.state.cards) == 100 - 8
    game.to_seeking()
    asker, other = game.seekers
    asker_team = game.state.player_by_ref(asker).team_id
    other_team = game.state.player_by_ref(other).team_id
    game.do(QuestionAsked(asker, "radar-1km"))
    game.do(QuestionAsked(other, "radar-2km"))  # each team has its own question
    game.do(QuestionAnswered(game.hider, "no", record_id=game.state.questions[0].id))
    offered = game.state.cards_in(CardZone.OFFER, other_team)
    assert len(offered) == 2 and not game.state.cards_in(CardZone.OFFER, asker_team)
    game.do(CardsKept(other, (offered[0].id,)))
    # answered in time: an overdue question would stop the clock for both teams
    game.do(QuestionAnswered(game.hider, "no", record_id=game.state.questions[1].id))
    # both teams must find the hider; the faster gets the point
    game.advance(minutes=20)
    game.do(CatchClaimed(asker))
    game.do(CatchAnswered(game.hider, True))
    assert game.state.phase == Phase.SEEKING
    game.advance(minutes=10)
    game.do(CatchClaimed(other))
    game.do(CatchAnswered(game.hider, True))
    result = game.last("round.result")
    assert result["seekers"][0]["team_id"] == asker_team


def test_two_team_modes_need_three_teams() -> None:
    game = Game.create(("alice", "bob"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_TIME))
    with pytest.raises(SetupError):
        game.begin()


def test_teams_time_mode_lowest_seeking_time_wins() -> None:
    game = Game.create(("alice", "bob", "carol"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_TIME))
    game.begin()
    for _ in range(3):
        game.to_seeking()
        first, second = game.seekers
        game.advance(minutes=15 + 5 * len(game.state.rounds))
        for seeker in (first, second):
            game.do(CatchClaimed(seeker))
            game.do(CatchAnswered(game.hider, True))
            game.advance(minutes=1)
        if game.state.phase == Phase.HANDOVER:
            game.advance(minutes=10)
    board = game.last("game.over")
    assert board["mode"] == "teams_time" and len(board["winners"]) >= 1
    assert board["rows"][0]["score"] == 20 * 60


def test_the_hider_may_switch_station_only_before_questions_about_the_zone() -> None:
    game = seeking()
    game.do(ZoneFixed(game.hider, "stop-9", "Duck & 6th", 36.11, -97.06))
    assert game.state.current_round.zone.station_ref == "stop-9"
    with pytest.raises(NotAllowed):
        game.do(ZoneFixed(game.seekers[0], "stop-3", "Elsewhere", 36.1, -97.0))
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    with pytest.raises(WrongPhase):
        game.do(ZoneFixed(game.hider, "stop-2", "Main & 6th", 36.1, -97.05))
