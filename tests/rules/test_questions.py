"""Questions: one at a time, availability, costs, repeats, windows, late answers, nulls."""

import pytest

from hideseek_chat.rules.clock import hiding_seconds
from hideseek_chat.rules.errors import (
    CardNotAvailable,
    CurseBlocks,
    InvalidAnswer,
    NoPendingQuestion,
    NotAllowed,
    QuestionNotAvailable,
    QuestionPending,
    WrongPhase,
)
from hideseek_chat.rules.events import (
    CardsKept,
    QuestionAnswered,
    QuestionAsked,
    ThermometerFinished,
)
from hideseek_chat.rules.ruleset import Size
from hideseek_chat.rules.state import DrawCycle, PauseReason, QuestionStatus
from tests.rules.harness import Game, seeking


def test_no_questions_during_the_hiding_period() -> None:
    game = Game.create()
    game.begin()
    with pytest.raises(WrongPhase) as err:
        game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    assert err.value.key == "error.not_seeking"


def test_one_question_at_a_time_and_only_seekers_ask() -> None:
    game = seeking()
    with pytest.raises(NotAllowed):
        game.do(QuestionAsked(game.hider, "radar-1km"))
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    with pytest.raises(QuestionPending):
        game.do(QuestionAsked(game.seekers[1], "radar-2km"))


def test_availability_by_size() -> None:
    small = seeking()
    with pytest.raises(QuestionNotAvailable) as err:
        small.do(QuestionAsked(small.seekers[0], "tentacle-museum"))
    assert err.value.key == "error.question_size"
    with pytest.raises(QuestionNotAvailable):
        small.do(QuestionAsked(small.seekers[0], "thermometer-15km"))
    medium = seeking(size=Size.MEDIUM)
    medium.do(QuestionAsked(medium.seekers[0], "tentacle-museum"))


def test_unknown_question_is_a_clear_error() -> None:
    game = seeking()
    with pytest.raises(QuestionNotAvailable) as err:
        game.do(QuestionAsked(game.seekers[0], "radar-banana"))
    assert err.value.key == "error.question_unknown"


def test_draw_and_keep_costs_per_category() -> None:
    game = seeking()
    for question, answer, draw, keep in [
        ("matching-park", "yes", 3, 1),
        ("measuring-park", "closer", 3, 1),
        ("radar-5km", "no", 2, 1),
        ("photo-tree", "photo", 1, 1),
    ]:
        game.do(QuestionAsked(game.seekers[0], question))
        game.do(
            QuestionAnswered(game.hider, answer, detail="photo-1" if answer == "photo" else None)
        )
        cycle = game.state.draws[-1]
        assert (cycle.draw, cycle.keep) == (draw, keep)
        offer = game.offer()
        if offer:
            assert len(offer) == draw
            game.do(CardsKept(game.hider, tuple(offer[:keep])))
        else:  # draw == keep: kept straight away
            assert cycle.done


def test_tentacle_costs_four_keep_two() -> None:
    game = seeking(size=Size.MEDIUM)
    game.do(QuestionAsked(game.seekers[0], "tentacle-library"))
    game.do(QuestionAnswered(game.hider, "named", detail="Central Library"))
    assert len(game.offer()) == 4
    with pytest.raises(CardNotAvailable, match="exactly 2"):
        game.do(CardsKept(game.hider, tuple(game.offer()[:1])))
    game.do(CardsKept(game.hider, tuple(game.offer()[:2])))
    assert len(game.hand()) == 2


def test_asking_again_costs_separate_cycles_never_one_bigger_draw() -> None:
    game = seeking()
    seeker = game.seekers[0]
    for nth in (1, 2, 3):
        game.do(QuestionAsked(seeker, "radar-1km"))
        assert game.state.pending_question().times_asked == nth
        game.do(QuestionAnswered(game.hider, "no"))
        cycles = [c for c in game.state.draws if not c.done]
        assert len(cycles) == nth
        assert all((c.draw, c.keep) == (2, 1) for c in cycles)
        for _ in range(nth):
            offer = game.offer()
            assert len(offer) == 2  # one cycle at a time: draw 2 keep 1, never draw 4 keep 2
            game.do(CardsKept(game.hider, (offer[0],)))
        # discard down so the hand limit does not get in the way
        while len(game.hand()) > 3:
            from hideseek_chat.rules.events import CardDiscarded

            game.do(CardDiscarded(game.hider, game.hand()[0]))


def test_null_answers_count_and_pay() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "measuring-coastline"))
    game.do(QuestionAnswered(game.hider, "null"))
    record = game.state.questions[-1]
    assert record.status == QuestionStatus.ANSWERED and record.answer == "null"
    assert len(game.offer()) == 3


def test_answers_must_fit_the_category() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    with pytest.raises(InvalidAnswer):
        game.do(QuestionAnswered(game.hider, "hotter"))
    with pytest.raises(NotAllowed):
        game.do(QuestionAnswered(game.seekers[0], "yes"))


def test_answer_window_five_minutes_and_photos_ten_or_twenty() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    assert (game.state.pending_question().due_at - game.now).total_seconds() == 300
    game.do(QuestionAnswered(game.hider, "yes"))
    game.do(CardsKept(game.hider, (game.offer()[0],)))
    game.do(QuestionAsked(game.seekers[0], "photo-sky"))
    assert (game.state.pending_question().due_at - game.now).total_seconds() == 600
    large = seeking(size=Size.LARGE)
    large.do(QuestionAsked(large.seekers[0], "photo-sky"))
    assert (large.state.pending_question().due_at - large.now).total_seconds() == 1200


def test_late_answer_pauses_the_hider_clock_and_earns_no_cards() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.advance(minutes=5)
    assert game.notes("question.overdue")
    at_deadline = hiding_seconds(game.state, game.state.current_round, game.now)
    game.advance(minutes=7)  # answered 7 minutes after the deadline
    before = hiding_seconds(game.state, game.state.current_round, game.now)
    game.do(QuestionAnswered(game.hider, "no"))
    record = game.state.questions[-1]
    assert record.late
    assert game.state.open_draw() is None and not game.offer()
    after = hiding_seconds(game.state, game.state.current_round, game.now)
    # The clock stood from the deadline on (it never runs back when the answer comes).
    assert before == after == pytest.approx(at_deadline)
    late = [p for p in game.state.pauses if p.reason == PauseReason.LATE_ANSWER]
    assert len(late) == 1 and (late[0].end - late[0].start).total_seconds() == 7 * 60


def test_photo_cannot_answer_is_valid_and_pays() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "photo-widest-street"))
    game.do(QuestionAnswered(game.hider, "cannot_answer"))
    assert len(game.hand()) == 1  # draw 1 keep 1: kept at once


def test_custom_radar_needs_a_distance_and_repeats_by_distance() -> None:
    game = seeking()
    with pytest.raises(QuestionNotAvailable):
        game.do(QuestionAsked(game.seekers[0], "radar-custom"))
    game.do(QuestionAsked(game.seekers[0], "radar-custom", distance_m=3200))
    assert game.state.pending_question().distance_m == 3200
    game.do(QuestionAnswered(game.hider, "yes"))
    game.do(CardsKept(game.hider, (game.offer()[0],)))
    game.do(QuestionAsked(game.seekers[0], "radar-custom", distance_m=700))
    assert game.state.pending_question().times_asked == 1


@pytest.mark.parametrize("distance", [0.0, 0.5, -3.0, 20_037_510.0, 1e300])
def test_a_distance_of_ones_choice_lies_on_the_earth(distance: float) -> None:
    """From a metre to the farthest two places can be (a forged 1e300 m was asked)."""
    game = seeking()
    with pytest.raises(QuestionNotAvailable) as refused:
        game.do(QuestionAsked(game.seekers[0], "radar-custom", distance_m=distance))
    assert refused.value.key == "error.needs_distance"
    game.do(QuestionAsked(game.seekers[0], "radar-custom", distance_m=1.0))


def test_thermometer_window_opens_when_the_seekers_arrive() -> None:
    game = seeking()
    seeker = game.seekers[0]
    game.do(QuestionAsked(seeker, "thermometer-1km"))
    record = game.state.pending_question()
    assert record.status == QuestionStatus.TRAVELLING and record.due_at is None
    with pytest.raises(NoPendingQuestion, match="travelling"):
        game.do(QuestionAnswered(game.hider, "hotter"))
    game.advance(minutes=12)
    with pytest.raises(InvalidAnswer) as err:
        game.do(ThermometerFinished(seeker, travelled_m=600))
    assert err.value.key == "error.thermometer_short"
    game.do(ThermometerFinished(seeker, travelled_m=1040))
    assert record.id == game.state.pending_question().id
    assert (game.state.pending_question().due_at - game.now).total_seconds() == 300
    game.do(QuestionAnswered(game.hider, "hotter"))
    assert len(game.offer()) == 2


def test_transit_line_question_needs_a_ride_and_goes_in_car_games() -> None:
    game = seeking()
    with pytest.raises(QuestionNotAvailable) as err:
        game.do(QuestionAsked(game.seekers[0], "matching-transit-line"))
    assert err.value.key == "error.needs_ride"
    game.do(QuestionAsked(game.seekers[0], "matching-transit-line", on_transit=True))


def test_questions_are_blocked_by_an_active_blocking_curse() -> None:
    from hideseek_chat.rules.events import CardPlayed

    game = seeking()
    curse = game.give("luxury-car")
    game.do(CardPlayed(game.hider, curse, confirmed=True))
    with pytest.raises(CurseBlocks) as err:
        game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    assert err.value.params["curse"] == "luxury-car"


def test_draws_are_owed_to_the_hider_even_with_a_full_offer_queue() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(QuestionAnswered(game.hider, "no"))
    assert isinstance(game.state.open_draw(), DrawCycle)
    assert game.last("draw.offer")["keep"] == 1
