from hideseek_chat.rules.events import (
    CardsKept,
    CatchAnswered,
    CatchClaimed,
    EndGameStarted,
    QuestionAnswered,
    QuestionAsked,
)
from hideseek_chat.rules.state import Phase
from tests.rules.harness import Game


def test_a_whole_two_player_game_runs_to_a_winner() -> None:
    game = Game.create(("alice", "bob"))
    game.begin()
    for round_number in (1, 2):
        assert game.state.phase == Phase.HIDING
        game.to_seeking()
        seeker = game.seekers[0]
        game.advance(minutes=10)
        game.do(QuestionAsked(seeker, "radar-1km"))
        game.advance(minutes=2)
        game.do(QuestionAnswered(game.hider, "no"))
        offer = game.offer()
        assert len(offer) == 2
        game.do(CardsKept(game.hider, (offer[0],)))
        game.advance(minutes=30 * round_number)
        game.do(EndGameStarted(seeker))
        game.advance(minutes=5)
        game.do(CatchClaimed(seeker))
        game.do(CatchAnswered(game.hider, True))
        if round_number == 1:
            assert game.state.phase == Phase.HANDOVER
            game.advance(minutes=10)
    assert game.state.phase == Phase.GAME_OVER
    board = game.last("game.over")
    assert len(board["winners"]) == 1


def test_clone_shares_no_mutable_record_with_the_original() -> None:
    import copy
    import dataclasses

    game = Game.create(("alice", "bob"))
    game.begin()
    game.to_seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    state = game.state
    clone = state.clone()
    assert clone == state
    snapshot = copy.deepcopy(state)
    for field in dataclasses.fields(clone):
        value = getattr(clone, field.name)
        if isinstance(value, list):
            for record in value:
                if dataclasses.is_dataclass(record):
                    for inner in dataclasses.fields(record):
                        item = getattr(record, inner.name)
                        if isinstance(item, list | dict):
                            item.clear()
                    if hasattr(record, "done"):
                        record.done = not record.done
            value.clear()
    clone.settings.rest_periods.append(("22:00", "08:00"))
    clone.hide_order.append(99)
    assert state == snapshot
