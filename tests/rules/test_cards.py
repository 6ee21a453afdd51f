"""The deck and the powerups."""

import pytest

from hideseek_chat.rules.clock import hiding_seconds
from hideseek_chat.rules.errors import (
    CardNotAvailable,
    CostNotMet,
    HandOverLimit,
    NoPendingQuestion,
    WrongPhase,
)
from hideseek_chat.rules.events import (
    CardDiscarded,
    CardPlayed,
    CardsKept,
    EndGameStarted,
    QuestionAnswered,
    QuestionAsked,
    ThermometerFinished,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import CardKind, Size
from hideseek_chat.rules.state import CardZone, Phase, QuestionStatus
from tests.rules.harness import Game, seeking


def deck_order(seed: int) -> list[str]:
    game = Game.create(seed=seed)
    game.begin()
    return [c.def_id for c in game.state.cards_in(CardZone.DECK)]


def test_seeded_shuffle_same_seed_same_deck() -> None:
    assert deck_order(11) == deck_order(11)
    assert deck_order(11) != deck_order(12)


def test_deck_is_reshuffled_between_rounds() -> None:
    from hideseek_chat.rules.events import CatchAnswered, CatchClaimed

    game = seeking(players=("alice", "bob"))
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(QuestionAnswered(game.hider, "no"))
    game.do(CardsKept(game.hider, (game.offer()[0],)))
    first = [c.def_id for c in game.state.cards_in(CardZone.DECK)]
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))
    game.advance(minutes=10)
    assert game.state.phase == Phase.HIDING
    second = game.state.cards_in(CardZone.DECK)
    assert len(second) == game.ruleset.deck_size()  # every card back in the deck
    assert [c.def_id for c in second] != first


def test_keep_discards_the_rest() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "matching-zoo"))
    game.do(QuestionAnswered(game.hider, "no"))
    offer = game.offer()
    game.do(CardsKept(game.hider, (offer[1],)))
    assert game.hand() == [offer[1]]
    assert {c.id for c in game.state.cards_in(CardZone.DISCARD)} == {offer[0], offer[2]}


def test_keeping_a_card_not_offered_is_refused() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "matching-zoo"))
    game.do(QuestionAnswered(game.hider, "no"))
    stranger = game.state.cards_in(CardZone.DECK)[0].id
    with pytest.raises(CardNotAvailable):
        game.do(CardsKept(game.hider, (stranger,)))


def test_over_the_hand_limit_only_the_hiders_draws_wait() -> None:
    game = seeking()
    game.give_kind(CardKind.TIME_BONUS, 6)
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(QuestionAnswered(game.hider, "no"))
    game.do(CardsKept(game.hider, (game.offer()[0],)))
    assert len(game.hand()) == 7
    assert game.last("hand.over_limit") == {"excess": 1, "limit": 6}
    assert game.last("hand.sorting") == {
        "team": game.state.team(game.state.hider_team_id()).name,
        "hider": True,
    }
    # The seekers are never held up, and the hider answers as usual...
    game.do(QuestionAsked(game.seekers[0], "radar-2km"))
    game.do(QuestionAnswered(game.hider, "no"))
    # ...but the draw it earned waits until the hand is back within the limit.
    assert not game.offer() and game.state.open_draw() is not None
    game.do(CardDiscarded(game.hider, game.hand()[0]))
    assert len(game.hand()) == 6 and game.offer()


def test_over_the_hand_limit_playing_a_card_is_a_way_back() -> None:
    game = seeking()
    curse = game.give("zoologist")
    game.give_kind(CardKind.TIME_BONUS, 5)
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(QuestionAnswered(game.hider, "no"))
    game.do(CardsKept(game.hider, (game.offer()[0],)))
    assert len(game.hand()) == 7
    game.do(CardPlayed(game.hider, curse, confirmed=True))
    assert len(game.hand()) == 6 and curse not in game.hand()


def test_an_open_draw_is_not_kept_while_over_the_limit() -> None:
    game = seeking()
    expand = game.give("draw-1-expand-1")
    game.give_kind(CardKind.TIME_BONUS, 5)
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(QuestionAnswered(game.hider, "no"))
    offer = game.offer()
    assert offer
    # Fill the hand past the limit while the offer is open (a test shortcut).
    game.give_kind(CardKind.TIME_BONUS, 2)
    assert len(game.hand()) == 8
    with pytest.raises(HandOverLimit):
        game.do(CardsKept(game.hider, (offer[0],)))
    game.do(CardPlayed(game.hider, expand))  # 8 - 1 + 1 drawn, limit 7: still 1 over
    game.do(CardDiscarded(game.hider, game.hand()[0]))
    game.do(CardsKept(game.hider, (offer[0],)))
    assert offer[0] in game.hand()


def test_a_hand_over_the_limit_at_the_end_counts_its_best_cards() -> None:
    from hideseek_chat.rules import deck

    game = seeking()
    game.give_kind(CardKind.TIME_BONUS, 7)
    team = game.state.hider_team_id()
    values = sorted(
        (deck.card_minutes(game.state, game.ruleset, c.def_id) or 0.0)
        for c in deck.hand(game.state, team)
    )
    assert deck.time_bonus_minutes(game.state, game.ruleset, team) == sum(values[1:])


def test_time_bonuses_cannot_be_played() -> None:
    game = seeking()
    (bonus,) = game.give_kind(CardKind.TIME_BONUS, 1)
    with pytest.raises(CardNotAvailable):
        game.do(CardPlayed(game.hider, bonus))


def test_veto_counts_as_asked_and_pays_nothing() -> None:
    game = seeking()
    veto = game.give("veto")
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(CardPlayed(game.hider, veto))
    record = game.state.questions[-1]
    assert record.status == QuestionStatus.VETOED
    assert not game.offer() and game.state.open_draw() is None
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    assert game.state.pending_question().times_asked == 2


def test_veto_needs_a_pending_question() -> None:
    game = seeking()
    veto = game.give("veto")
    with pytest.raises(NoPendingQuestion):
        game.do(CardPlayed(game.hider, veto))
    assert veto in game.hand()


def test_randomize_swaps_for_an_unasked_question_of_the_same_category() -> None:
    game = seeking()
    card = game.give("randomize")
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(CardPlayed(game.hider, card))
    original, new = game.state.questions[-2], game.state.questions[-1]
    assert original.status == QuestionStatus.RANDOMIZED and original.replaced_by == new.id
    assert new.category == original.category and new.question_id != "radar-1km"
    assert new.question_id != "radar-custom"
    game.do(QuestionAnswered(game.hider, "yes"))
    # the original stays unasked: it costs the first-time price again
    game.do(CardsKept(game.hider, (game.offer()[0],)))
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    assert game.state.pending_question().times_asked == 1


def test_discard_one_draw_two() -> None:
    game = seeking()
    card = game.give("discard-1-draw-2")
    (junk,) = game.give_kind(CardKind.TIME_BONUS, 1)
    with pytest.raises(CostNotMet):
        game.do(CardPlayed(game.hider, card))
    game.do(CardPlayed(game.hider, card, discard_ids=(junk,)))
    assert len(game.hand()) == 2 and junk not in game.hand()
    assert game.state.card(junk).zone == CardZone.DISCARD


def test_discard_two_draw_three_needs_two_other_cards() -> None:
    game = seeking()
    card = game.give("discard-2-draw-3")
    (one,) = game.give_kind(CardKind.TIME_BONUS, 1)
    with pytest.raises(CostNotMet):
        game.do(CardPlayed(game.hider, card, discard_ids=(one, card)))
    two = game.give("veto")
    game.do(CardPlayed(game.hider, card, discard_ids=(one, two)))
    assert len(game.hand()) == 3


def test_draw_one_expand_one_raises_the_limit_for_the_round() -> None:
    game = seeking()
    card = game.give("draw-1-expand-1")
    game.do(CardPlayed(game.hider, card))
    assert len(game.hand()) == 1
    assert game.last("hand.expanded")["limit"] == 7
    game.give_kind(CardKind.TIME_BONUS, 6)
    assert len(game.hand()) == 7
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))  # 7 of 7: not over the limit


def test_duplicate_plays_as_a_copy_and_the_original_stays() -> None:
    game = seeking()
    dup = game.give("duplicate")
    veto = game.give("veto")
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(CardPlayed(game.hider, dup, target_card_id=veto))
    assert game.state.questions[-1].status == QuestionStatus.VETOED
    assert veto in game.hand() and dup not in game.hand()


def test_duplicate_in_hand_doubles_the_largest_time_bonus_at_round_end() -> None:
    from hideseek_chat.rules.events import CatchAnswered, CatchClaimed

    game = seeking(players=("alice", "bob"))
    game.give("time-bonus-2")
    game.give("time-bonus-12")
    game.give("duplicate")
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))
    result = game.last("round.result")
    assert result["bonus_minutes"] == 2 + 12 + 12


def test_move_discards_the_hand_reveals_the_station_and_pauses_the_clock() -> None:
    game = seeking()
    move = game.give("move")
    game.give_kind(CardKind.TIME_BONUS, 2)
    game.advance(minutes=20)
    game.do(CardPlayed(game.hider, move))
    assert game.state.phase == Phase.MOVING
    assert game.hand() == []
    started = game.last("move.started")
    assert started["old_station"] == "Hester & 4th" and started["minutes"] == 10
    clock = hiding_seconds(game.state, game.state.current_round, game.now)
    with pytest.raises(WrongPhase) as err:
        game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    assert err.value.key == "error.moving"
    game.advance(minutes=10)
    assert game.state.phase == Phase.SEEKING
    assert hiding_seconds(game.state, game.state.current_round, game.now) == clock
    game.do(ZoneFixed(None, "stop-2", "Main & 6th", 36.1, -97.05))
    game.advance(minutes=5)
    assert hiding_seconds(game.state, game.state.current_round, game.now) == clock + 300


def test_move_period_per_size() -> None:
    for size, minutes in ((Size.MEDIUM, 20), (Size.LARGE, 60)):
        game = seeking(size=size)
        game.do(CardPlayed(game.hider, game.give("move")))
        assert game.last("move.started")["minutes"] == minutes


def test_move_is_not_played_in_the_end_game() -> None:
    game = seeking()
    move = game.give("move")
    game.do(EndGameStarted(game.seekers[0]))
    with pytest.raises(WrongPhase) as err:
        game.do(CardPlayed(game.hider, move))
    assert err.value.key == "error.move_end_game"


def test_a_late_randomize_still_pauses_the_hider_clock() -> None:
    game = seeking()
    card = game.give("randomize")
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.advance(minutes=8)  # three minutes past the window
    game.do(CardPlayed(game.hider, card))
    late = [p for p in game.state.pauses if p.reason.value == "late_answer"]
    assert len(late) == 1 and (late[0].end - late[0].start).total_seconds() == 180
    assert game.state.pending_question().due_at == game.now + __import__("datetime").timedelta(
        minutes=5
    )


def test_a_veto_is_played_only_while_the_answer_window_is_open() -> None:
    from hideseek_chat.rules.errors import NotAllowed

    game = seeking()
    veto = game.give("veto")
    game.do(QuestionAsked(game.seekers[0], "thermometer-1km"))
    with pytest.raises(NoPendingQuestion) as travelling:
        game.do(CardPlayed(game.hider, veto))
    assert travelling.value.key == "error.veto_travelling"
    game.do(ThermometerFinished(game.seekers[0], 1200.0))
    game.advance(minutes=6)  # the 5-minute window closes
    with pytest.raises(NotAllowed) as late:
        game.do(CardPlayed(game.hider, veto))
    assert late.value.key == "error.veto_window_closed"
    assert veto in game.hand()
    game.do(QuestionAnswered(game.hider, "hotter"))  # a late answer still goes in
