"""The message catalogue: a text for every engine key, rendered from real games."""

from __future__ import annotations

import ast
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_file

import hideseek_chat.chat as chat_package
import hideseek_chat.rules as rules_package
from hideseek_chat.chat import texts
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.rules import deck, load_ruleset
from hideseek_chat.rules.decisions import AudienceKind, Notify
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.rules.events import (
    CardDiscarded,
    CardPlayed,
    CardsKept,
    CatchAnswered,
    CatchClaimed,
    CatchDecided,
    CurseCleared,
    CurseLossReported,
    CursePenaltyClaimed,
    EndGameStarted,
    GameAborted,
    GamePaused,
    GameResumed,
    PlayerLeft,
    QuestionAnswered,
    QuestionAsked,
    SettingsChanged,
    TeamChosen,
    TeamJoined,
    TeamRenamed,
    ThermometerFinished,
    ZoneFixed,
)
from hideseek_chat.rules.ruleset import CardKind, Size
from hideseek_chat.rules.state import Mode, Phase
from tests.rules.harness import START, Game

RULES_DIR = Path(rules_package.__file__).parent
CHAT_DIR = Path(chat_package.__file__).parent
TEXT_MODULES = tuple(
    str(path.relative_to(CHAT_DIR)) for path in sorted((CHAT_DIR / "texts").glob("*.py"))
)

STATION = "Zebra Crossing Halt"
STATION_AFTER_MOVE = "Quokka Lane Depot"
LAT, LON = 36.1234, -97.0567


# ----- what the engine can say: read from its source -----


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


@cache
def engine_keys() -> tuple[frozenset[str], dict[str, list[frozenset[str]]]]:
    """Every Notify key, and every error key with the param names of each raise site."""
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in sorted(RULES_DIR.glob("*.py"))]
    class_keys: dict[str, str] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "key" for t in stmt.targets)
                        and isinstance(stmt.value, ast.Constant)
                    ):
                        class_keys[node.name] = stmt.value.value
    notices: set[str] = set()
    errors: dict[str, list[frozenset[str]]] = {key: [] for key in class_keys.values()}
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            keywords = {k.arg: k.value for k in node.keywords}
            if name == "Notify":
                key_node = node.args[1] if len(node.args) > 1 else keywords.get("key")
                assert isinstance(key_node, ast.Constant), f"computed key: {ast.unparse(node)}"
                notices.add(key_node.value)
            elif name in class_keys:
                assert None not in keywords, f"params the test cannot see: {ast.unparse(node)}"
                key_node = keywords.get("key")
                if key_node is None:
                    key = class_keys[name]
                else:
                    assert isinstance(key_node, ast.Constant), ast.unparse(node)
                    key = key_node.value
                errors.setdefault(key, []).append(frozenset(k for k in keywords if k != "key"))
    return frozenset(notices), errors


def test_the_source_scan_finds_the_engine_keys() -> None:
    notices, errors = engine_keys()
    assert {"curse.cast", "question.asked", "game.over", "draw.deck_empty"} <= notices
    assert {"error.only_admin", "error.hand_over_limit", "error.rule"} <= set(errors)
    assert len(notices) >= 55 and len(errors) >= 80


def test_every_notice_key_of_the_engine_has_its_own_text() -> None:
    notices, _ = engine_keys()
    missing = sorted(k for k in notices if not texts.has_text(k))
    assert not missing, f"write a text in hideseek_chat/chat for: {missing}"


def test_every_error_key_of_the_engine_has_its_own_text() -> None:
    _, errors = engine_keys()
    missing = sorted(k for k in errors if not texts.has_text(k))
    assert not missing, (
        f"write an error text in hideseek_chat/chat/texts/refusals.py for: {missing}"
    )


def test_no_text_for_a_key_the_engine_never_sends() -> None:
    notices, errors = engine_keys()
    assert texts.notice_keys() <= notices
    assert texts.refusal_keys() <= set(errors)


# ----- refusals: every raise site's params -----

#: A realistic value for each param name an error carries; a new name must be added here.
ERROR_SAMPLES: dict[str, Any] = {
    "question": "radar-1km",
    "curse": "luxury-car",
    "category": "photo",
    "until": START + timedelta(minutes=47),
    "travelled_m": 640.0,
    "needed_m": 1000.0,
    "distance_m": 1200.0,
    "limit_m": 1500.0,
    "count": 2,
    "keep": 1,
    "excess": 1,
    "answers": ["named", "not_in_reach", "null"],
    "kind": "powerup",
    "text": "25:00-08:00",
    "maximum": 10,
    "field": "distance_m",
    "cell": "e6",  # the botnet game's devices
    "here": "e5",
    "station": "University Estates Apts",  # the asker's own station (Urban Explorer)
}


def _error_cases() -> list[tuple[str, frozenset[str]]]:
    _, errors = engine_keys()
    return sorted(
        (key, names) for key, sites in errors.items() for names in set(sites) or {frozenset()}
    )


@pytest.mark.parametrize(("key", "names"), _error_cases())
def test_each_error_renders_with_the_params_its_raise_site_gives(
    key: str, names: frozenset[str]
) -> None:
    unknown = names - set(ERROR_SAMPLES)
    assert not unknown, f"add a sample value for {unknown} to ERROR_SAMPLES"
    params = {name: ERROR_SAMPLES[name] for name in names}
    fallback = texts.say("error.no-such-key", {}, metric_fmt())
    for fmt in (metric_fmt(), imperial_fmt()):
        text = texts.say(key, params, fmt)
        assert text and text != fallback, key
        assert "{" not in text and "}" not in text, text


def test_errors_raised_by_a_real_game_read_well() -> None:
    game = _new_game(("alice", "bob"))
    with pytest.raises(RuleViolation) as err:
        game.do(SettingsChanged("bob", rounds_per_team=2))
    assert texts.say(err.value.key, err.value.params, metric_fmt()) == (
        "Only the game's admin can do that."
    )
    game.begin()
    _to_seeking(game)
    game.do(QuestionAsked(game.seekers[0], "radar-1km"))
    with pytest.raises(RuleViolation) as err:
        game.do(QuestionAsked(game.seekers[0], "radar-2km"))
    text = texts.say(err.value.key, err.value.params, metric_fmt())
    assert text.startswith("Radar 1 km is still waiting for its answer.")
    with pytest.raises(RuleViolation) as err:
        game.do(QuestionAnswered(game.hider, "hotter"))
    text = texts.say(err.value.key, err.value.params, metric_fmt())
    assert text == "That doesn't answer this question. You can answer: Yes, No and " + (
        "No such place near either of us."
    )


def test_an_unknown_or_broken_error_falls_back_to_a_generic_sentence() -> None:
    fmt = metric_fmt()
    generic = "Sorry, that isn't possible right now."
    assert texts.say("error.from_the_future", {"x": 1}, fmt) == generic
    assert texts.say("error.thermometer_short", {}, fmt) == generic
    assert texts.say("nothing.known", {}, fmt) == "ℹ️ Game update: nothing.known"
    assert texts.say("question.asked", {}, fmt) == "ℹ️ Game update: question.asked"


# ----- played games: every notice the engine sent, rendered -----


def metric_fmt(game: Game | None = None) -> Formatter:
    return Formatter(ruleset=game.ruleset if game else load_ruleset("metric"))


def imperial_fmt(game: Game | None = None) -> Formatter:
    return Formatter(units="imperial", ruleset=game.ruleset if game else load_ruleset("metric"))


def _new_game(players: tuple[str, ...], size: Size = Size.SMALL, seed: int = 7) -> Game:
    return Game.create(players, size=size, seed=seed)


def _to_seeking(game: Game, station: str = STATION) -> None:
    assert game.state.phase == Phase.HIDING
    game.advance(minutes=game.ruleset.sizes[game.state.size].hiding_period_min)
    assert game.state.phase == Phase.SEEKING
    game.do(ZoneFixed(None, "stop-42", station, LAT, LON))


def _settle(game: Game) -> None:
    """Keep what is on offer and discard down to the hand limit, as a hider would."""
    team = game.state.hider_team_id()
    assert team is not None
    while True:
        if deck.over_limit(game.state, game.ruleset, team):
            game.do(CardDiscarded(game.hider, game.hand()[0]))
        elif game.offer():
            keep = game.last("draw.offer")["keep"]
            game.do(CardsKept(game.hider, tuple(game.offer()[:keep])))
        else:
            return


def _ask_and_answer(game: Game, question: str, answer: str) -> None:
    game.do(QuestionAsked(game.seekers[0], question))
    game.advance(minutes=1)
    game.do(QuestionAnswered(game.hider, answer))
    _settle(game)


def _askable(game: Game, candidates: tuple[str, ...]) -> str:
    """The first of ``candidates`` that no curse keeps the seekers from asking now."""
    closed = game.state.current_round.spotty_category
    return next(q for q in candidates if game.ruleset.question(q).category != closed)


def _trim(game: Game) -> None:
    """Discard down to one card, to make room for the cards a step hands the hider."""
    while len(game.hand()) > 1:
        game.do(CardDiscarded(game.hider, game.hand()[0]))


def _cast(game: Game, curse: str, bonuses: int = 0, **kwargs: Any) -> int:
    """Cast ``curse``, paying with ``bonuses`` time bonus cards when it asks for a discard."""
    _trim(game)
    if bonuses:
        kwargs["discard_ids"] = tuple(game.give_kind(CardKind.TIME_BONUS, bonuses))
    game.do(CardPlayed(game.hider, game.give(curse), **kwargs))
    return game.state.curses[-1].id


def _standard_game() -> Game:
    """Two teams, two rounds: questions, cards, curses, a Move, a denied and a real catch."""
    game = _new_game(("alice", "bob", "carol"))
    game.do(TeamJoined("carol", "alice"))
    game.do(TeamRenamed("alice", "Night Owls"))
    # /team: Carol makes a team of her own, plays alone, and comes back by name
    game.do(TeamChosen("carol", name="Larks"))
    game.do(TeamChosen("carol", name="night owls"))
    game.do(TeamChosen("carol"))
    game.do(TeamChosen("carol", name="Night Owls"))
    game.do(SettingsChanged("alice", rounds_per_team=1))
    game.begin()
    _to_seeking(game)
    seeker = game.seekers[0]
    # questions: in time, a thermometer answered late, vetoed, randomized
    game.do(QuestionAsked(seeker, "radar-1km"))
    game.advance(minutes=4, seconds=30)  # the answer reminder
    game.do(QuestionAnswered(game.hider, "no"))
    _settle(game)
    game.do(QuestionAsked(seeker, "thermometer-1km"))
    game.do(ThermometerFinished(seeker, 1100.0))
    game.advance(minutes=6)  # overdue
    game.do(QuestionAnswered(game.hider, "hotter"))
    _settle(game)
    game.do(QuestionAsked(seeker, "matching-zoo"))
    game.do(CardPlayed(game.hider, game.give("veto")))
    game.do(QuestionAsked(seeker, "matching-museum"))
    game.do(CardPlayed(game.hider, game.give("randomize")))
    game.do(QuestionAnswered(game.hider, "yes"))
    _settle(game)
    # powerups
    _trim(game)
    game.do(CardPlayed(game.hider, game.give("discard-1-draw-2"), discard_ids=(game.give("veto"),)))
    _settle(game)
    _trim(game)
    game.do(CardPlayed(game.hider, game.give("draw-1-expand-1")))
    _settle(game)
    _trim(game)
    game.do(
        CardPlayed(
            game.hider,
            game.give("duplicate"),
            target_card_id=game.give("right-turn"),
            discard_ids=tuple(game.give_kind(CardKind.TIME_BONUS, 1)),
        )
    )
    game.advance(minutes=21)  # the copied Right Turn wears off
    # curses, cleared, claimed, spent and lasting
    travel = _cast(game, "mediocre-travel-agent", confirmed=True)
    game.do(CursePenaltyClaimed(game.hider, travel))
    game.do(CurseCleared(seeker, travel))
    hangman = _cast(game, "hidden-hangman", bonuses=2)
    game.do(CurseLossReported(seeker, hangman))  # small game: one loss locks out
    game.advance(minutes=10)
    _cast(game, "bridge-troll", seekers_distance_m=5000.0)
    _ask_and_answer(game, "radar-2km", "no")
    consumer = _cast(game, "impressionable-consumer")
    game.do(CurseCleared(seeker, consumer))
    _ask_and_answer(game, "radar-5km", "yes")  # free: no cards
    _cast(game, "spotty-memory", bonuses=1)
    _cast(game, "overflowing-chalice", bonuses=1)
    _cast(game, "gamblers-feet")
    tumble = _cast(game, "endless-tumble")
    if not game.state.curse(tumble).no_effect:
        game.do(CursePenaltyClaimed(game.hider, tumble))
        game.do(CurseCleared(seeker, tumble))
    # a full hand, then one more card
    team = game.state.hider_team_id()
    assert team is not None
    while len(game.hand()) < deck.hand_limit(game.state, game.ruleset, team):
        game.give_kind(CardKind.TIME_BONUS, 1)
    question = _askable(game, ("photo-tree", "radar-10km", "matching-library"))
    game.do(QuestionAsked(seeker, question))
    category = game.ruleset.question(question).category
    game.do(QuestionAnswered(game.hider, {"photo": "photo", "radar": "no"}.get(category, "yes")))
    _settle(game)
    # pause, Move, end game, a denied catch, then the catch
    game.do(GamePaused(seeker))
    game.do(GameResumed(game.hider))
    game.do(CardPlayed(game.hider, game.give("move")))
    game.advance(minutes=game.ruleset.sizes[Size.SMALL].move_period_min)
    # fixed from the first pin after the Move (none at its end): the group hears it is set
    game.do(ZoneFixed(None, "stop-77", STATION_AFTER_MOVE, LAT + 0.01, LON, late=True))
    game.advance(minutes=15)
    game.do(EndGameStarted(seeker))
    game.do(CatchClaimed(seeker, distance_m=1.5))
    game.do(CatchAnswered(game.hider, False))
    game.advance(minutes=3)
    game.do(CatchClaimed(seeker))
    game.do(CatchAnswered(game.hider, True))
    game.advance(minutes=10)  # the handover runs out: round 2
    _to_seeking(game)
    game.advance(minutes=25)
    game.do(EndGameStarted(None))
    game.do(CatchClaimed(game.seekers[0]))
    # The hider never answers: the admin decides.
    game.do(CatchDecided(game.ref(game.state.admin_player_id), game.seekers[0]))
    assert game.state.phase == Phase.GAME_OVER
    game.do(PlayerLeft("alice"))  # the admin leaves: someone else takes over
    return game


def _timers_game() -> Game:
    """A rest period, then the end-of-game timer."""
    game = _new_game(("alice", "bob"))
    game.do(SettingsChanged("alice", rest_periods=(("10:00", "10:20"),), end_timer_min=150))
    game.begin()
    _to_seeking(game)
    game.advance(minutes=200)
    assert game.state.phase == Phase.GAME_OVER
    return game


def _medium_hangman_game() -> Game:
    """A curse the die cancels, and the Hidden Hangman lost twice (a medium game)."""
    game = _new_game(("alice", "bob"), size=Size.MEDIUM)
    game.begin()
    _to_seeking(game)
    _cast(game, "gamblers-feet")  # seed 7 rolls an even face: no effect
    hangman = _cast(game, "hidden-hangman", bonuses=2)
    game.do(CurseLossReported(game.seekers[0], hangman))
    game.do(CurseLossReported(game.seekers[0], hangman))
    game.do(GameAborted("alice"))
    return game


def _teams_game(mode: Mode) -> Game:
    """Two seeker teams: one finds the hider, then the admin ends the game."""
    game = _new_game(("alice", "bob", "carol"))
    game.do(SettingsChanged("alice", mode=mode))
    game.begin()
    _to_seeking(game)
    game.advance(minutes=20)
    game.do(CatchClaimed(game.seekers[0]))
    game.do(CatchAnswered(game.hider, True))
    admin = game.ref(game.state.admin_player_id)
    game.do(GameAborted(admin))
    return game


@cache
def played_games() -> tuple[Game, ...]:
    return (
        _standard_game(),
        _timers_game(),
        _medium_hangman_game(),
        _teams_game(Mode.TEAMS_TIME),
        _teams_game(Mode.TEAMS_POINTS),
    )


def played_notices() -> list[tuple[Game, Notify]]:
    return [(g, d) for g in played_games() for d in g.log if isinstance(d, Notify)]


#: Notices no short scripted game reaches, with params shaped like the engine's.
HANDMADE: dict[str, dict[str, Any]] = {
    "draw.deck_empty": {},
}


def test_played_games_reach_every_notice_key() -> None:
    notices, _ = engine_keys()
    reached = {n.key for _, n in played_notices()}
    assert notices - reached <= set(HANDMADE), sorted(notices - reached - set(HANDMADE))


@pytest.mark.parametrize("units", ["metric", "imperial"])
def test_every_played_notice_renders_completely(units: str) -> None:
    for game, notice in played_notices():
        fmt = Formatter(units=units, ruleset=game.ruleset)
        text = texts.say(notice.key, notice.params, fmt)
        assert not text.startswith("ℹ️ Game update"), (notice.key, notice.params)
        assert "{" not in text and "}" not in text, text
        assert "…" not in text, text  # a card text placeholder without its value
        assert "None" not in text, text
    for key, params in HANDMADE.items():
        text = texts.say(key, params, metric_fmt())
        assert texts.has_text(key) and "{" not in text


#: Where the rules reveal the station: the Move card tells the seekers the station the
#: hider leaves, and the round result names it once the round is over.
REVEALS = {"move.started", "round.result"}


def test_group_and_seeker_texts_never_name_the_station_or_its_place() -> None:
    secrets = (STATION, STATION_AFTER_MOVE, str(LAT), str(LON), "stop-42", "stop-77")
    shown_to_hider = []
    revealed = []
    for game, notice in played_notices():
        text = texts.say(notice.key, notice.params, metric_fmt(game))
        if notice.key in REVEALS:
            revealed.append(text)
            assert not any(secret in text for secret in secrets[2:]), (notice.key, text)
        elif notice.to.kind in (AudienceKind.GROUP, AudienceKind.SEEKERS):
            assert not any(secret in text for secret in secrets), (notice.key, text)
        elif notice.key == "zone.fixed":
            shown_to_hider.append(text)
    assert any(STATION in text for text in shown_to_hider)
    assert any(STATION_AFTER_MOVE in text for text in shown_to_hider)
    assert any(STATION in text for text in revealed), "the result and the Move name it"


def test_a_claimed_catch_does_not_tell_the_group_how_far_the_hider_is() -> None:
    text = texts.say("catch.claimed", {"by": "Bob", "distance_m": 412.0}, metric_fmt())
    assert "412" not in text and "Bob" in text


# ----- a few texts, word for word -----


def _first(key: str, game: Game | None = None) -> dict[str, Any]:
    for played, notice in played_notices():
        if notice.key == key and (game is None or played is game):
            return notice.params
    raise LookupError(key)


def test_distances_follow_the_chats_units() -> None:
    params = _first("round.seeking_started")
    assert "reaches 500 m around a station" in texts.say(
        "round.seeking_started", params, metric_fmt()
    )
    assert "reaches 0.31 mi around a station" in texts.say(
        "round.seeking_started", params, imperial_fmt()
    )
    thermometer = next(
        n.params
        for _, n in played_notices()
        if n.key == "question.asked" and n.params["category"] == "thermometer"
    )
    assert "Travel 1 km, then" in texts.say("question.asked", thermometer, metric_fmt())
    assert "Travel 0.62 mi, then" in texts.say("question.asked", thermometer, imperial_fmt())


def test_a_due_time_is_shown_on_the_games_clock() -> None:
    params = _first("question.asked")
    due = params["due_at"]
    assert due == START + timedelta(minutes=35)
    assert texts.say("question.asked", params, metric_fmt()) == (
        f"❓ {params['asker']} asks: Radar 1 km. The hider has until 09:35 to answer."
    )
    later = Formatter(time_zone="UTC+02:00", ruleset=metric_fmt().ruleset)
    assert "until 11:35" in texts.say("question.asked", params, later)
    incoming = texts.say("question.incoming", params, later)
    assert incoming == "❓ A question for you: Radar 1 km. Answer by 11:35.\nAnswer yes or no."


def test_curse_texts_have_their_numbers_filled_for_the_game() -> None:
    params = next(
        n.params
        for _, n in played_notices()
        if n.key == "curse.cast" and n.params["curse"] == "mediocre-travel-agent"
    )
    text = texts.say("curse.cast", params, metric_fmt())
    assert text.startswith("🔮 A curse has been cast: Curse of the Mediocre Travel Agent!\n")
    assert "within 400 m of the seekers" in text
    assert "stay at least 5 min" in text
    assert "the hider gains 30 min" in text
    assert "within 0.25 mi of the seekers" in texts.say("curse.cast", params, imperial_fmt())
    timed = next(
        n.params
        for _, n in played_notices()
        if n.key == "curse.cast" and n.params["curse"] == "right-turn"
    )
    text = texts.say("curse.cast", timed, metric_fmt())
    assert "For the next 20 min," in text
    assert text.endswith(f"⏳ It lasts until {metric_fmt().clock(timed['expires_at'])}.")


def test_curse_text_without_the_numbers_uses_the_games_size_else_an_ellipsis() -> None:
    params = {"curse_id": 1, "curse": "jammed-door", "target_team_id": None}
    assert "For the next 1 h 00 min," in texts.say(
        "curse.cast", {**params, "size": "medium"}, metric_fmt()
    )
    assert "For the next …," in texts.say("curse.cast", params, metric_fmt())
    bare = Formatter()  # no ruleset: the curse's id and no text
    assert texts.say("curse.cast", params, bare) == "🔮 A curse has been cast: jammed-door!"


def test_time_bonuses_show_their_minutes_when_the_size_is_known() -> None:
    params = {"card": "time-bonus-4"}
    assert texts.say("hand.discarded", params, metric_fmt()) == "🗑️ Discarded: Time bonus."
    assert texts.say("hand.discarded", {**params, "size": "large"}, metric_fmt()) == (
        "🗑️ Discarded: Time bonus (+10 min)."
    )


def test_the_scoreboard_names_the_winner_and_every_teams_time() -> None:
    game = played_games()[0]
    board = _first("game.over", game)
    text = texts.say("game.over", board, metric_fmt(game))
    rows = board["rows"]
    assert text.splitlines()[:3] == ["🏁 Game over!", f"🏆 {board['winners'][0]} wins!", "Scores:"]
    for rank, row in enumerate(rows, start=1):
        members = "" if row["members"] == [row["team"]] else " (Alice and Carol)"
        duration = metric_fmt().duration(row["score"])
        assert f"{rank}. {row['team']}{members}: {duration}" in text
    tie = {
        "mode": "standard",
        "rows": [
            {"team": "Ann", "team_id": 1, "score": 3600.0, "runs": [3600.0, 1200.0]},
            {"team": "Ben", "team_id": 2, "score": 3600.0, "runs": [3600.0]},
            {"team": "Cy", "team_id": 3, "score": None, "runs": []},
        ],
        "winners": ["Ann", "Ben"],
        "tie": True,
    }
    assert texts.say("game.over", tie, metric_fmt()) == "\n".join(
        [
            "🏁 Game over!",
            "🏆 It's a tie between Ann and Ben!",
            "Scores:",
            "1. Ann: 1 h 00 min (best of 2 runs)",
            "2. Ben: 1 h 00 min",
            "3. Cy: no finished run",
        ]
    )
    points = _first("game.over", played_games()[4])
    assert "1 point" in texts.say("game.over", points, metric_fmt())


def test_the_round_result_adds_up_the_run() -> None:
    result = {
        "round": 1,
        "hider": "Night Owls",
        "ending": "caught",
        "hiding_seconds": 2700.0,
        "bonus_minutes": 6.0,
        "penalty_minutes": 30.0,
        "total_seconds": 2700.0 + 36 * 60,
        "station": STATION,
        "mode": "standard",
        "seekers": [],
    }
    assert texts.say("round.result", result, metric_fmt()) == "\n".join(
        [
            "🏁 Round 1 is over: Night Owls has been found!",
            f"The hiding zone was around {STATION}.",
            "Time hidden: 45 min",
            "Time bonuses in hand: +6 min",
            "Curse bonuses: +30 min",
            "Total for this run: 1 h 21 min",
        ]
    )


# ----- for translators -----


def _text_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for name in TEXT_MODULES:
        tree = ast.parse((CHAT_DIR / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node) in ("t", "n"):
                calls.append((name, node))
    return calls


def test_every_msgid_is_written_where_it_is_translated() -> None:
    """A msgid is a literal (or a reference to one marked with N_ where it is written), never
    built at the call: pybabel cannot find a text made with an f-string, + or .format."""
    calls = _text_calls()
    assert len(calls) > 150
    for name, call in calls:
        ids = call.args[:2] if _call_name(call) == "n" else call.args[:1]
        for msgid in ids:
            built = isinstance(msgid, ast.JoinedStr | ast.BinOp) or (
                isinstance(msgid, ast.Call)
                and isinstance(msgid.func, ast.Attribute)
                and msgid.func.attr in ("format", "join")
            )
            assert not built, f"{name}: {ast.unparse(call)}"


def test_pybabel_extracts_the_msgids() -> None:
    found = set()
    for name in TEXT_MODULES:
        for _, msgid, _, _ in extract_from_file(
            "python", str(CHAT_DIR / name), keywords={"t": None, "n": (1, 2), "N_": None}
        ):
            found.add(msgid if isinstance(msgid, str) else msgid[0])
    assert "Only the game's admin can do that." in found
    assert (
        "🎯 The seekers are in the hider's zone: the end game begins! "
        "Hider, stay where you are now."
    ) in found
    assert "👋 {name} joined. That's {count} team so far." in found
    literal_calls = sum(
        1 for _, call in _text_calls() if call.args and isinstance(call.args[0], ast.Constant)
    )
    assert len(found) >= literal_calls * 0.8
