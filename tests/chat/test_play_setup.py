"""Setting a game up and ending it, played through the conversation layer on both databases.

Teams made and joined by name with /team (and its buttons); the section-6 variants and the
rest window chosen on the settings keyboard or typed, with their effects in /status and on
the game; /abort asked and confirmed, ending the game without a winner; keyboards removed
once used or stale; /help per kind of chat, from the routing table.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hideseek_chat.chat import routes
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities
from hideseek_chat.chat.keyboards import Verb, decode
from hideseek_chat.console.table import ButtonNotFound, Line, Table
from hideseek_chat.rules.state import Mode, Phase, Transport
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import START, events_count, labels, new_table, state_of

PEOPLE = ("Alice", "Bob", "Carol", "Dave")


@pytest.fixture
def table(uow_factory: UnitOfWorkFactory) -> Table:
    return new_table(uow_factory, names=PEOPLE)


def new_game(table: Table, players: tuple[str, ...] = PEOPLE) -> None:
    table.send(players[0], "/newgame small metric")
    for name in players[1:]:
        table.send(name, "/join")


def reply(table: Table, name: str, text: str, *, private: bool = False) -> Line:
    """``name`` sends ``text``; the bot's newest message in that chat (its reply)."""
    mark = table.mark()
    table.send(name, text, private=private)
    said = table.said(name if private else None, since=mark)
    assert said, f"no reply to {text!r}"
    return said[-1]


def hiders(table: Table, since: int) -> set[str]:
    return {n for n in PEOPLE if any("You're hiding" in x.text for x in table.said(n, since=since))}


# ----------------------------------------------------------------------------- teams


def test_teams_are_made_and_joined_by_name_hide_together_and_score_together(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    new_game(table)
    table.send("Alice", "/team Red")
    assert "Alice made the team Red. Join it with /team Red." in table.last()
    table.send("Bob", "/team  red ")  # a name is found whatever its case and spaces
    assert table.last() == "🤝 Alice and Bob now play together as team Red."
    table.send("Dave", "/team Blue")
    screen = reply(table, "Carol", "/team")
    assert screen.text.splitlines() == [
        "Teams (a player not in a team plays on their own):",
        "👥 Red: Alice and Bob",
        "👤 Carol (on their own)",
        "👥 Blue: Dave",
        "Join a team with its button, or make one with /team NAME.",
    ]
    assert labels(screen) == ["Join Red", "Join Carol", "Join Blue", "🚶 Play on my own"]
    table.press("Carol", "Join Blue")
    assert table.last() == "🤝 Carol and Dave now play together as team Blue."
    assert screen.buttons, "the team buttons stay for the next player"

    # Bob tries playing alone and comes back; the refusals change nothing.
    table.press("Bob", "Play on my own")
    assert table.last() == "🚶 Bob left team Red and plays on their own."
    before = events_count(uow_factory)
    table.press("Bob", "Play on my own")
    assert table.toasts[-1][1] == "You already play on your own."
    assert "already on that team" in reply(table, "Bob", "/team Bob").text
    assert "already on that team" in reply(table, "Alice", "/team RED").text
    assert events_count(uow_factory) == before
    table.send("Bob", "/team Red")

    status = reply(table, "Carol", "/status").text
    assert "👥 Red: Alice and Bob" in status and "👥 Blue: Carol and Dave" in status

    # The hide order is by team: both members of the first team hide, nobody else.
    mark = table.mark()
    table.send("Alice", "/begin")
    begun = next(x.text for x in table.said(since=mark) if "The game is on" in x.text)
    assert "Hiding order: Red and Blue" in begun or "Hiding order: Blue and Red" in begun
    first = "Red" if "Hiding order: Red" in begun else "Blue"
    members = {"Red": {"Alice", "Bob"}, "Blue": {"Carol", "Dave"}}
    assert hiders(table, mark) == members[first]
    state = state_of(uow_factory, table)
    assert [state.team(t).name for t in state.hide_order] in (["Red", "Blue"], ["Blue", "Red"])

    # Teams are fixed once the game is on: typed or pressed.
    assert "already under way" in reply(table, "Carol", "/team Green").text
    assert "before the game begins" in reply(table, "Carol", "/team").text
    table.press("Carol", "Join Red")
    assert "already under way" in table.toasts[-1][1]
    assert screen.buttons == (), "a stale keyboard is removed"

    # The score is the team's: the run so far when the admin ends the game.
    table.wait(timedelta(minutes=40))
    table.send("Alice", "/abort")
    table.press("Alice", "Yes, end the game")
    over = next(x.text for x in reversed(table.said()) if "Game aborted" in x.text)
    other = "Blue" if first == "Red" else "Red"
    names = {"Red": "Alice and Bob", "Blue": "Carol and Dave"}
    assert f"1. {first} ({names[first]}): 10 min" in over
    assert f"2. {other} ({names[other]}): no finished run" in over
    score = reply(table, "Dave", "/score").text
    assert f"{first} ({names[first]}): 10 min" in score


def test_choosing_a_team_before_joining_joins_the_game_too(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    new_game(table, ("Alice", "Bob"))
    table.send("Alice", "/team Red")
    mark = table.mark()
    table.send("Carol", "/team red")
    said = [x.text for x in table.said(since=mark)]
    assert said == [
        "👋 Carol joined. That's 3 teams so far.",
        "🤝 Alice and Carol now play together as team Red.",
    ]
    screen = reply(table, "Dave", "/team")
    table.press("Dave", "Join Bob")
    assert table.last() == "🤝 Bob and Dave now play together as team Bob."
    assert screen.buttons
    state = state_of(uow_factory, table)
    assert [p.name for p in state.players] == ["Alice", "Bob", "Carol", "Dave"]
    assert len(state.active_team_ids()) == 2


def test_two_seeker_teams_need_three_teams_and_the_settings_say_so(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    new_game(table)
    table.send("Alice", "/settings")
    table.press("Alice", "Two seeker teams: points")
    assert "there are 4 now" in table.last()
    mark = table.mark()
    assert "exactly three teams" in reply(table, "Alice", "/begin").text
    assert hiders(table, mark) == set()
    table.send("Bob", "/team Owls")
    table.send("Carol", "/team Owls")
    status = reply(table, "Dave", "/status").text
    assert "two seeker teams" in status and "there are" not in status
    mark = table.mark()
    table.send("Alice", "/begin")
    assert len(hiders(table, mark)) in (1, 2)
    assert state_of(uow_factory, table).settings.mode == Mode.TEAMS_POINTS


# ----------------------------------------------------------------------------- settings


def test_the_settings_keyboard_sets_the_variants_and_the_rest_window(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    new_game(table, ("Alice", "Bob", "Carol"))
    screen = reply(table, "Alice", "/settings")
    assert "/settings timezone +2" in screen.text
    shown = labels(screen)
    for label in (
        "✓ No rest periods",
        "Rest 22:00–07:00",
        "Rest 23:00–08:00",
        "✓ 🚆 Transit",
        "🚗 Car",
        "🚶 On foot",
        "✓ Classic: one hider",
        "Two seeker teams: points",
        "Two seeker teams: time",
        "✓ Local game",
        "🌍 Global scale",
    ):
        assert label in shown, label

    # Only the admin changes them; the keyboard stays for the admin.
    before = events_count(uow_factory)
    table.press("Bob", "🚗 Car")
    assert table.toasts[-1][1] == "Only the game's admin can do that."
    assert events_count(uow_factory) == before and screen.buttons

    table.press("Alice", "🚗 Car")
    assert "Getting around: by car. Questions that need a ride on transit are left out" in (
        table.last()
    )
    assert "✓ 🚗 Car" in labels(screen) and "🚆 Transit" in labels(screen), "ticks follow"
    table.press("Alice", "🌍 Global scale")
    assert "Global scale: the hiding period lasts 1 d 0 h" in table.last()
    table.press("Alice", "Rest 22:00–07:00")
    # The table plays on the Stillwater map: the game's clock is Oklahoma's (CDT in May).
    assert (
        "Rest periods: 22:00-07:00. Every clock stops then (America/Chicago (CDT, UTC−5))."
    ) in table.last()

    # The game's time zone is typed; a bad one is a clear refusal that changes nothing.
    before = events_count(uow_factory)
    for typed, refusal in (
        ("/settings timezone Mars", "“Mars” isn't a time zone I know"),
        ("/settings timezone Europe/Atlantis", "Europe/Zurich"),
        ("/settings rest 25:00-07:00", "25:00-07:00"),
        ("/settings rest 22:00", "/settings rest 22:00-07:00"),
        ("/settings colour blue", "/settings rest 22:00-07:00"),
        ("/settings timezone +15", "time zone"),
    ):
        assert refusal in reply(table, "Alice", typed).text, typed
    assert events_count(uow_factory) == before
    table.send("Alice", "/settings timezone +2")
    assert "Every clock stops then (UTC+2)." in table.last()
    assert "Clock times are in UTC+2." in table.last()

    status = reply(table, "Bob", "/status").text
    for line in ("by car", "Rest periods: 22:00-07:00", "Global scale", "classic"):
        assert line in status, line
    settings = state_of(uow_factory, table).settings
    assert (settings.transport, settings.global_scale) == (Transport.CAR, True)
    assert (settings.rest_periods, settings.time_zone) == ([("22:00", "07:00")], "UTC+02:00")
    assert settings.time_zone_typed, "a typed zone stays when a map is chosen later"

    # On: the global hiding period (a day), and /status keeps the variants in view.
    mark = table.mark()
    table.send("Alice", "/begin")
    assert any("The hiding period lasts 1 d 0 h" in x.text for x in table.said(since=mark))
    status = reply(table, "Bob", "/status").text
    assert "by car" in status and "Global scale" in status and "22:00-07:00" in status
    assert "Size: small" not in status, "during a round only the variants are listed"

    # During a round the settings keyboard holds no game settings; an old one is stale.
    during = reply(table, "Alice", "/settings")
    assert "settings stay as they are" in during.text
    assert not any("Car" in label or "Rest" in label for label in labels(during))
    assert "Deutsch" in " ".join(labels(during))
    before = events_count(uow_factory)
    table.press_data("Alice", screen.buttons[3][2].data, screen)  # On foot, under /settings
    assert "already under way" in table.toasts[-1][1]
    assert screen.buttons == () and events_count(uow_factory) == before

    # The rest window, in the game's time zone: 22:00 at UTC+2 is 20:00 UTC.
    table.wait(datetime(2026, 5, 2, 19, 59, tzinfo=UTC) - table.now)
    assert not any("😴 Rest period" in x.text for x in table.said(since=mark))
    table.wait(timedelta(minutes=2))
    rest = next(x.text for x in table.said(since=mark) if "😴 Rest period" in x.text)
    assert "until 07:00" in rest
    assert "⏸ Paused" in reply(table, "Bob", "/status").text


def test_the_rest_presets_and_the_old_night_button_still_work(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    new_game(table, ("Alice", "Bob"))
    screen = reply(table, "Alice", "/settings")
    table.press("Alice", "Rest 23:00–08:00")
    assert state_of(uow_factory, table).settings.rest_periods == [("23:00", "08:00")]
    assert "✓ Rest 23:00–08:00" in labels(screen)
    night = screen.buttons[2][0].data.replace(":rest:none", ":rest:night")
    assert decode(night).verb == Verb.SET
    table.press_data("Alice", night, screen)
    assert state_of(uow_factory, table).settings.rest_periods == [("22:00", "08:00")]
    table.press("Alice", "No rest periods")
    assert state_of(uow_factory, table).settings.rest_periods == []
    table.send("Alice", "/settings rest 13:00-14:00, 22:00-07:00")
    assert state_of(uow_factory, table).settings.rest_periods == [
        ("13:00", "14:00"),
        ("22:00", "07:00"),
    ]
    table.send("Alice", "/settings rest none")
    assert state_of(uow_factory, table).settings.rest_periods == []


# ----------------------------------------------------------------------------- /abort


def test_abort_asks_first_and_ends_the_game_without_a_winner(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    new_game(table, ("Alice", "Bob", "Carol"))
    table.send("Alice", "/begin")
    table.wait(timedelta(minutes=45))  # 15 minutes of seeking
    before = events_count(uow_factory)
    assert reply(table, "Bob", "/abort").text == "Only the game's admin can do that."
    ask = reply(table, "Alice", "/abort")
    assert ask.text.startswith("🛑 End the game now? Nobody wins")
    assert labels(ask) == ["🛑 Yes, end the game", "Keep playing"]
    assert events_count(uow_factory) == before, "asking changes nothing"

    table.press("Bob", "Yes, end the game")
    assert table.toasts[-1][1] == "Only the game's admin can do that."
    assert ask.buttons, "a refused press leaves the question for the admin"
    table.press("Alice", "Keep playing")
    assert table.last() == "The game goes on."
    assert ask.buttons == () and state_of(uow_factory, table).phase == Phase.SEEKING

    older = reply(table, "Alice", "/abort")
    ask = reply(table, "Alice", "/abort")
    mark = table.mark()
    table.press("Alice", "Yes, end the game")
    assert ask.buttons == () and older.buttons
    over = next(x.text for x in table.said(since=mark) if "Game aborted" in x.text)
    lines = over.splitlines()
    assert lines[:3] == [
        "🛑 Game aborted.",
        "The admin ended the game early, so there is no winner.",
        "Scores so far:",
    ]
    assert any(": 15 min" in line for line in lines[3:]), over
    assert "wins" not in over
    result = next(x.text for x in table.said(since=mark) if "cut short" in x.text)
    assert "Time hidden: 15 min" in result
    state = state_of(uow_factory, table)
    assert state.phase == Phase.GAME_OVER
    assert reply(table, "Alice", "/abort").text.startswith("There is no game running to abort")
    # The older question's buttons are stale now: the press is refused and they go.
    table.press_data("Alice", older.buttons[0][1].data, older)
    assert table.toasts[-1][1].startswith("There is no game running to abort.")
    assert older.buttons == ()
    assert state_of(uow_factory, table).phase == Phase.GAME_OVER


def test_a_stale_keyboard_gets_a_toast_and_is_removed(table: Table) -> None:
    new_game(table, ("Alice", "Bob"))
    created = next(x for x in table.said() if "set up a new game" in x.text)
    table.send("Alice", "/begin")
    table.send("Alice", "/abort")
    table.press("Alice", "Yes, end the game")
    table.send("Alice", "/newgame small metric")
    # The first game's Join button belongs to an earlier game now.
    assert created.buttons
    table.press_data("Bob", created.buttons[0][0].data, created)
    assert table.toasts[-1][1] == "That button belongs to an earlier game."
    assert created.buttons == ()


# ----------------------------------------------------------------------------- keyboards


def test_a_used_keyboard_is_removed_and_a_shared_one_stays(table: Table) -> None:
    table.send("Alice", "/newgame small metric")
    created = table.said()[-1]
    table.press("Bob", "Join the game")
    assert created.buttons, "the Join button stays for the next player"
    table.press("Carol", "Join the game")
    table.send("Alice", "/begin")
    hider = next(n for n in ("Alice", "Bob", "Carol") if hiders(table, 0) == {n})
    seeker = next(n for n in ("Alice", "Bob", "Carol") if n != hider)
    table.wait(timedelta(minutes=31))
    reply(table, seeker, "/ask")
    table.press(seeker, "Radar")
    menu = table.said()[-1]
    table.press(seeker, "1 km")
    assert menu.buttons == (), "the question menu is spent once a question is asked"
    assert all(not line.buttons for line in table.said() if "Radar" in line.text)
    question = table.said(hider)[-1]
    assert "Radar 1 km" in question.text and question.buttons
    table.press(hider, "No")
    assert question.buttons == (), "the answer buttons go once the hider answered"
    offer = next(x for x in reversed(table.said(hider)) if any("🃏" in b for b in labels(x)))
    table.press(hider, "🃏")
    assert offer.buttons == ()
    with pytest.raises(ButtonNotFound):
        table.press(hider, "Radar 1 km: No")


# ----------------------------------------------------------------------------- /help


def test_help_lists_the_commands_of_each_kind_of_chat(table: Table) -> None:
    group = reply(table, "Alice", "/help").text
    private = reply(table, "Alice", "/help", private=True).text
    for name, _ in routes.menu(routes.Where.GROUP):
        assert f"\n/{name} — " in group, name
    for name, _ in routes.menu(routes.Where.PRIVATE):
        assert f"\n/{name} — " in private, name
    assert "/team — make or join a team" in group and "/abort — end the game now" in group
    assert "/answer — " not in group and "/track — " not in group
    assert "/join — " not in private and "/answer — hider: type an answer" in private
    assert "send /help in our private chat" in group.lower()
    assert "send /help in the game's group" in private.lower()


@pytest.mark.parametrize("kind", [routes.Where.GROUP, routes.Where.PRIVATE])
def test_every_listed_command_works_in_its_kind_of_chat(table: Table, kind: routes.Where) -> None:
    """A command a menu lists is never refused as belonging to the other kind of chat."""
    new_game(table, ("Alice", "Bob"))
    wrong = {
        routes.Where.GROUP: "Please send me this in our private chat",
        routes.Where.PRIVATE: "Please do this in the game's group chat",
    }[kind]
    for name, _ in routes.menu(kind):
        if name in ("newgame", "abort", "begin", "leave"):
            continue  # they would end or change the game under test
        private = kind == routes.Where.PRIVATE
        mark = table.mark()
        table.send("Alice", f"/{name}", private=private)
        said = table.said("Alice" if private else None, since=mark)
        assert not any(wrong in x.text for x in said), name
        assert not any("I don't know" in x.text for x in said), name
    assert all(routes.BY_NAME[n].description for n, _ in routes.menu(kind))


def test_a_channel_that_cannot_edit_keeps_its_keyboards_but_refuses_stale_presses(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = Table(
        Conversation(uow_factory, seeds=lambda: 11),
        START,
        capabilities=Capabilities(edit_messages=False, pictures=False),
    )
    for name in ("Alice", "Bob"):
        table.person(name)
    new_game(table, ("Alice", "Bob"))
    ask = reply(table, "Alice", "/abort")
    table.press("Alice", "Keep playing")
    assert ask.buttons, "no edits on this channel: the keyboard stays"
    mark = table.mark()
    table.press("Alice", "Yes, end the game")
    assert any("Game aborted" in x.text for x in table.said(since=mark))
    table.press("Alice", "Keep playing")
    assert table.toasts[-1][1].startswith("There is no game running to abort.")
    assert ask.buttons
