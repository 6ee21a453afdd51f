"""The Curse of the Urban Explorer forbids asking on transit and in a station; a photo
answer's caption is announced with it."""

import pytest

from hideseek_chat.rules.errors import CurseBlocks
from hideseek_chat.rules.events import CardPlayed, QuestionAnswered, QuestionAsked
from hideseek_chat.rules.pins import AT_STATION_M, is_at_station
from hideseek_chat.rules.ruleset import CardKind
from tests.rules.harness import Game, seeking


def explorer(game: Game) -> None:
    discards = tuple(game.give_kind(CardKind.TIME_BONUS, 2))
    game.do(CardPlayed(game.hider, game.give("urban-explorer"), discard_ids=discards))


def test_urban_explorer_forbids_asking_at_a_station() -> None:
    game = seeking()
    explorer(game)
    with pytest.raises(CurseBlocks) as refused:
        game.do(QuestionAsked(game.seekers[0], "radar-1km", at_station="Gallagher-Iba"))
    assert refused.value.key == "error.urban_explorer_station"
    assert refused.value.params == {"station": "Gallagher-Iba"}
    game.do(QuestionAsked(game.seekers[0], "radar-1km", at_station=None))


def test_a_station_is_no_obstacle_without_the_curse() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "radar-1km", at_station="Gallagher-Iba"))


def test_a_pin_counts_as_in_the_station_up_to_the_limit() -> None:
    assert is_at_station(0.0) and is_at_station(AT_STATION_M)
    assert not is_at_station(AT_STATION_M + 0.1)
    assert 50.0 <= AT_STATION_M <= 100.0


def test_a_photo_answer_announces_its_caption() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "photo-tree"))
    game.do(QuestionAnswered(game.hider, "photo", "file-1", caption="the big oak"))
    assert game.last("question.answered")["caption"] == "the big oak"


def test_a_photo_answer_without_caption_announces_none() -> None:
    game = seeking()
    game.do(QuestionAsked(game.seekers[0], "photo-tree"))
    game.do(QuestionAnswered(game.hider, "photo", "file-1"))
    assert "caption" not in game.last("question.answered")
