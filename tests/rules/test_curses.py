"""Curses: costs, the one-blocking rule, durations, clearing, penalties and special effects."""

import pytest

from hideseek_chat.rules.clock import hiding_seconds
from hideseek_chat.rules.errors import (
    CardNotAvailable,
    CostNotMet,
    CurseBlocks,
    NotAllowed,
    QuestionNotAvailable,
    WrongPhase,
)
from hideseek_chat.rules.events import (
    CardPlayed,
    CardsKept,
    CatchAnswered,
    CatchClaimed,
    CurseCleared,
    CurseLossReported,
    CursePenaltyClaimed,
    EndGameStarted,
    QuestionAnswered,
    QuestionAsked,
)
from hideseek_chat.rules.ruleset import CardKind, Category, Size
from hideseek_chat.rules.state import CardZone
from tests.rules.harness import Game, seeking


def cast(game: Game, curse: str, **kwargs) -> dict:
    game.do(CardPlayed(game.hider, game.give(curse), **kwargs))
    return game.last("curse.cast")


def test_all_24_curses_are_castable_with_their_cost() -> None:
    curses = [c for c in Game.create().ruleset.cards if c.kind == CardKind.CURSE]
    assert len(curses) == 24
    for card in curses:
        game = seeking()
        fodder = game.give_kind(CardKind.POWERUP, 2) if card.id != "spotty-memory" else []
        if card.id == "spotty-memory":
            fodder = game.give_kind(CardKind.TIME_BONUS, 1)
        kwargs: dict = {"confirmed": True}
        if card.curse.cost.count:
            kwargs["discard_ids"] = tuple(fodder[: card.curse.cost.count])
        if card.id == "drained-brain":
            kwargs["banned_question_ids"] = ("radar-500m", "matching-zoo", "photo-sky")
        curse_id = game.give(card.id)
        game.do(CardPlayed(game.hider, curse_id, **kwargs))
        assert game.state.card(curse_id).zone == CardZone.PLAYED, card.id
        assert game.notes("curse.cast") or game.notes("curse.no_effect"), card.id


def test_discard_cost_must_be_paid_and_of_the_right_kind() -> None:
    game = seeking()
    curse = game.give("lemon-phylactery")
    (bonus,) = game.give_kind(CardKind.TIME_BONUS, 1)
    with pytest.raises(CostNotMet):
        game.do(CardPlayed(game.hider, curse))
    with pytest.raises(CostNotMet) as err:
        game.do(CardPlayed(game.hider, curse, discard_ids=(bonus,)))
    assert err.value.key == "error.discard_kind"
    veto = game.give("veto")
    game.do(CardPlayed(game.hider, curse, discard_ids=(veto,)))
    assert game.state.card(veto).zone == CardZone.DISCARD


def test_confirm_cost_needs_the_hiders_confirmation() -> None:
    game = seeking()
    curse = game.give("cairn")
    with pytest.raises(CostNotMet):
        game.do(CardPlayed(game.hider, curse))
    game.do(CardPlayed(game.hider, curse, confirmed=True))


def test_only_one_curse_blocking_questions_or_transit_at_a_time() -> None:
    game = seeking()
    cast(game, "luxury-car", confirmed=True)
    second = game.give("zoologist")
    with pytest.raises(CurseBlocks) as err:
        game.do(CardPlayed(game.hider, second, confirmed=True))
    assert err.value.key == "error.one_blocking_curse"
    with pytest.raises(CurseBlocks):
        game.do(CardPlayed(game.hider, game.give("u-turn"), confirmed=True))
    # a curse that blocks nothing may join it
    cast(game, "right-turn", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 1)))


def test_seekers_clear_a_curse_and_then_may_ask_again() -> None:
    game = seeking()
    params = cast(game, "luxury-car", confirmed=True)
    with pytest.raises(CurseBlocks):
        game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    with pytest.raises(NotAllowed, match="seekers"):
        game.do(CurseCleared(game.hider, params["curse_id"]))
    game.do(CurseCleared(game.seekers[0], params["curse_id"]))
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))


def test_timed_curses_expire_by_themselves() -> None:
    game = seeking()
    params = cast(game, "right-turn", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 1)))
    assert params["duration_min"] == 20
    with pytest.raises(CardNotAvailable):
        game.do(CurseCleared(game.seekers[0], params["curse_id"]))
    game.advance(minutes=19)
    assert not game.notes("curse.expired")
    game.advance(minutes=1)
    assert game.last("curse.expired")["curse"] == "right-turn"


def test_curse_durations_per_size() -> None:
    for size, minutes in ((Size.SMALL, 30), (Size.MEDIUM, 60), (Size.LARGE, 180)):
        game = seeking(size=size)
        params = cast(
            game, "jammed-door", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 2))
        )
        assert params["duration_min"] == minutes


def test_penalties_add_to_the_hiders_time_once_unless_repeatable() -> None:
    game = seeking(players=("alice", "bob"))
    lemon = cast(game, "lemon-phylactery", discard_ids=(game.give("veto"),))
    game.do(CursePenaltyClaimed(game.hider, lemon["curse_id"]))
    assert game.last("curse.penalty")["minutes"] == 30
    with pytest.raises(CardNotAvailable):
        game.do(CursePenaltyClaimed(game.hider, lemon["curse_id"]))
    game.do(CurseCleared(game.seekers[0], lemon["curse_id"]))
    # Endless Tumble's bonus may be earned again and again (each time the die hits someone).
    game.do(CardPlayed(game.hider, game.give("endless-tumble")))
    tumble = next(c for c in game.state.curses if c.def_id == "endless-tumble")
    assert not tumble.no_effect, "seed 7 rolls a face that lets the curse work"
    game.do(CursePenaltyClaimed(game.hider, tumble.id))
    game.do(CursePenaltyClaimed(game.hider, tumble.id))
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))
    assert game.last("round.result")["penalty_minutes"] == 30 + 10 + 10


def test_die_costs_can_cancel_the_curse() -> None:
    outcomes = set()
    for seed in range(12):
        game = seeking(seed=seed)
        game.do(CardPlayed(game.hider, game.give("gamblers-feet")))
        if game.notes("curse.no_effect"):
            assert game.last("curse.no_effect")["die"] in (2, 4, 6)
            outcomes.add("none")
        else:
            assert game.last("curse.cast")["die"] in (1, 3, 5)
            outcomes.add("cast")
    assert outcomes == {"none", "cast"}


def test_not_in_end_game_curses() -> None:
    game = seeking()
    game.do(EndGameStarted(game.seekers[0]))
    with pytest.raises(WrongPhase):
        game.do(
            CardPlayed(
                game.hider,
                game.give("egg-partner"),
                discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 2)),
            )
        )
    cast(game, "cairn", confirmed=True)  # others still work in the end game


def test_bridge_troll_needs_distant_seekers_and_ends_with_the_next_question() -> None:
    game = seeking()
    troll = game.give("bridge-troll")
    with pytest.raises(CostNotMet):
        game.do(CardPlayed(game.hider, troll, seekers_distance_m=900))
    with pytest.raises(CostNotMet):
        game.do(CardPlayed(game.hider, troll))  # no pins, no confirmation
    game.do(CardPlayed(game.hider, troll, seekers_distance_m=2000))
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    assert game.last("curse.spent")["curse"] == "bridge-troll"


def test_overflowing_chalice_adds_a_draw_for_three_questions() -> None:
    game = seeking()
    cast(game, "overflowing-chalice", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 1)))
    draws = []
    for question in ("radar-1km", "radar-2km", "radar-5km", "radar-10km"):
        game.do(QuestionAsked(game.seekers[0], question))
        game.do(QuestionAnswered(game.hider, "no"))
        draws.append(len(game.offer()))
        game.do(CardsKept(game.hider, (game.offer()[0],)))
    assert draws == [3, 3, 3, 2]


def test_spotty_memory_disables_a_category_and_rerolls_after_each_question() -> None:
    game = seeking()
    cast(game, "spotty-memory", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 1)))
    seen = set()
    for _ in range(12):
        disabled = game.state.current_round.spotty_category
        assert disabled != Category.TENTACLE  # a small game rerolls a six
        seen.add(disabled)
        question = "photo-sky" if disabled != Category.PHOTO else "radar-1km"
        if disabled in (Category.PHOTO, Category.RADAR):
            question = "matching-zoo" if disabled != Category.MATCHING else "measuring-zoo"
        blocked = {
            Category.MATCHING: "matching-park",
            Category.MEASURING: "measuring-park",
            Category.RADAR: "radar-1km",
            Category.THERMOMETER: "thermometer-1km",
            Category.PHOTO: "photo-tree",
        }[disabled]
        with pytest.raises(CurseBlocks):
            game.do(QuestionAsked(game.seekers[0], blocked))
        game.do(QuestionAsked(game.seekers[0], question))
        game.do(QuestionAnswered(game.hider, "null"))
        for card in game.offer()[:1]:
            game.do(CardsKept(game.hider, (card,)))
        from hideseek_chat.rules.events import CardDiscarded

        while len(game.hand()) > 4:
            game.do(CardDiscarded(game.hider, game.hand()[0]))
    assert len(seen) > 1


def test_drained_brain_bans_three_questions_of_different_categories() -> None:
    game = seeking()
    game.give_kind(CardKind.TIME_BONUS, 2)
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    brain = game.give("drained-brain")
    with pytest.raises(CostNotMet) as err:
        game.do(
            CardPlayed(
                game.hider, brain, banned_question_ids=("radar-1km", "matching-zoo", "photo-sky")
            )
        )
    assert err.value.key == "error.ban_pending"
    with pytest.raises(CostNotMet):
        game.do(
            CardPlayed(
                game.hider, brain, banned_question_ids=("radar-2km", "radar-5km", "photo-sky")
            )
        )
    # cast between the question and its answer: the hand goes before the reward comes
    game.do(
        CardPlayed(
            game.hider, brain, banned_question_ids=("radar-2km", "matching-zoo", "photo-sky")
        )
    )
    assert game.hand() == []
    game.do(QuestionAnswered(game.hider, "yes"))
    game.do(CardsKept(game.hider, (game.offer()[0],)))
    with pytest.raises(QuestionNotAvailable) as banned:
        game.do(QuestionAsked(game.seekers[0], "matching-zoo"))
    assert banned.value.key == "error.question_banned"


def test_urban_explorer_forbids_questions_on_transit() -> None:
    game = seeking()
    cast(game, "urban-explorer", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 2)))
    with pytest.raises(CurseBlocks):
        game.do(QuestionAsked(game.seekers[0], "radar-1km", on_transit=True))
    game.do(QuestionAsked(game.seekers[0], "radar-1km", on_transit=False))


def test_impressionable_consumer_makes_the_next_question_free() -> None:
    game = seeking()
    params = cast(game, "impressionable-consumer")
    game.do(CurseCleared(game.seekers[0], params["curse_id"]))
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.do(QuestionAnswered(game.hider, "no"))
    assert game.notes("question.free_no_cards") and not game.offer()


def test_hidden_hangman_clears_after_enough_losses_and_a_wait() -> None:
    game = seeking(size=Size.MEDIUM)
    params = cast(game, "hidden-hangman", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 2)))
    assert params["losses"] == 2
    game.do(CurseLossReported(game.seekers[0], params["curse_id"]))
    assert not game.notes("curse.lockout")
    game.do(CurseLossReported(game.seekers[0], params["curse_id"]))
    assert game.notes("curse.lockout")
    with pytest.raises(CurseBlocks):
        game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    game.advance(minutes=10)
    assert game.last("curse.expired")["curse"] == "hidden-hangman"
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))


def test_curses_end_with_the_round_and_penalties_count_in_the_hiders_time() -> None:
    game = seeking(players=("alice", "bob"))
    water = cast(game, "water-weight", confirmed=True)
    game.advance(minutes=30)
    game.do(CursePenaltyClaimed(game.hider, water["curse_id"]))
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))
    result = game.last("round.result")
    assert result["total_seconds"] == pytest.approx(30 * 60 + 30 * 60)
    assert all(c.cleared_at is not None for c in game.state.curses)
    assert hiding_seconds(game.state, game.state.rounds[0], game.now) == 30 * 60


def test_spotty_memory_announces_each_new_roll() -> None:
    game = seeking()
    cast(game, "spotty-memory", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 1)))
    closed = game.state.current_round.spotty_category
    question = "radar-1km" if closed != Category.RADAR else "photo-sky"
    game.do(QuestionAsked(game.seekers[0], question))
    game.do(QuestionAnswered(game.hider, "null"))
    assert game.last("curse.spotty_rolled") == {
        "category": game.state.current_round.spotty_category.value
    }


def test_the_admin_awards_a_curse_bonus_and_the_hider_confirms_a_lost_game() -> None:
    game = seeking(players=("alice", "bob", "carol"))
    admin = game.ref(game.state.admin_player_id)
    lemon = cast(game, "lemon-phylactery", discard_ids=(game.give("veto"),))
    seeker = next(s for s in game.seekers if s != admin)
    with pytest.raises(NotAllowed):
        game.do(CursePenaltyClaimed(seeker, lemon["curse_id"]))
    game.do(CursePenaltyClaimed(admin, lemon["curse_id"]))
    assert game.state.current_round.penalty_minutes == 30
    game.do(CurseCleared(seeker, lemon["curse_id"]))
    hangman = cast(
        game, "hidden-hangman", discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 2))
    )
    game.do(CurseLossReported(game.hider, hangman["curse_id"]))  # small: one loss clears it
    assert game.last("curse.lockout")["losses"] == 1


def test_the_u_turn_is_cast_when_the_pins_show_the_seekers_heading_away() -> None:
    game = seeking()
    u_turn = game.give("u-turn")
    with pytest.raises(CostNotMet, match="towards"):
        game.do(CardPlayed(game.hider, u_turn, seekers_away=False, confirmed=True))
    with pytest.raises(CostNotMet):
        game.do(CardPlayed(game.hider, u_turn))  # the pins cannot tell, nothing confirmed
    game.do(CardPlayed(game.hider, u_turn, seekers_away=True))
    assert game.last("curse.cast")["curse"] == "u-turn"
    game = seeking()
    game.do(CardPlayed(game.hider, game.give("u-turn"), confirmed=True))
    assert game.last("curse.cast")["curse"] == "u-turn"


def test_in_the_points_mode_the_casting_team_confirms_a_lost_game() -> None:
    from hideseek_chat.rules.events import SettingsChanged
    from hideseek_chat.rules.state import Mode

    game = Game.create(("alice", "bob", "carol"))
    game.do(SettingsChanged("alice", mode=Mode.TEAMS_POINTS))
    game.begin()
    game.to_seeking()
    admin_team = game.state.player(game.state.admin_player_id).team_id
    target, caster = sorted(game.state.seeker_team_ids(), key=lambda t: t != admin_team)
    assert caster != admin_team  # not the admin's override: the casting team's own right
    refs = {t: game.state.team_players(t)[0].ref for t in (caster, target)}
    cards = [c for c in game.state.cards_in(CardZone.DECK) if c.def_id == "hidden-hangman"]
    cards += [c for c in game.state.cards_in(CardZone.DECK) if c.def_id == "time-bonus-2"][:2]
    for position, card in enumerate(cards):
        card.zone, card.holder_team_id, card.position = CardZone.HAND, caster, 500 + position
    game.do(
        CardPlayed(
            refs[caster],
            cards[0].id,
            discard_ids=(cards[1].id, cards[2].id),
            target_team_id=target,
        )
    )
    curse_id = game.last("curse.cast")["curse_id"]
    game.do(CurseLossReported(refs[caster], curse_id))  # the casting team confirms
    assert game.last("curse.lockout")["losses"] == 1
