"""Hostile input through the whole conversation (hypothesis): no exception escapes.

Each test brings a table of three to one moment of a game (setup, hiding, seeking, the end
game, over) and then lets hypothesis throw what any person could send at
``Conversation.handle``: every command with arguments of any kind (unicode, huge numbers,
NaN, inf, ``1/0``, negatives, nothing, 5,000 characters), button data forged from real
buttons and from nothing, locations off the Earth or not numbers at all, files and photos of
any name and content. Each input must be answered (or ignored) without an exception, the
announcements it queued must render, and the game must still load from the store.

The examples per moment are few (40, the same on every run) so that the suite adds well
under a minute to CI; ``HIDESEEK_FUZZ_EXAMPLES=2000`` runs a long, random version (with
``HIDESEEK_TEST_POSTGRES_URL`` set, on PostgreSQL too, whose bounded columns SQLite does not
check).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hideseek_chat.chat import routes
from hideseek_chat.chat.keyboards import Verb
from hideseek_chat.chat.model import (
    ButtonIn,
    ChatKind,
    CommandIn,
    FileIn,
    Inbound,
    LocationIn,
    PhotoIn,
    Sender,
    TextIn,
)
from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.maps_fakes import clients, map_table
from tests.chat.play import HIDER_SPOT, SEEKERS_START, begin, new_table, state_of

EXAMPLES = int(os.environ.get("HIDESEEK_FUZZ_EXAMPLES", "40"))

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 100,  # the short run is the same on every CI run
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)

# ----------------------------------------------------------------- what people type

NASTY_WORDS = (
    "1/0",
    "0/0",
    "1/0 mi",
    "1/0mi",
    "0/0 km",
    "nan",
    "NaN km",
    "inf",
    "-inf",
    "infinity m",
    "1e309",
    "1e309 m",
    "-1",
    "-1 km",
    "0",
    "0 m",
    "0.0000001 m",
    "99999999999999999999999999",
    "99999999999999999999999999 km",
    str(2**31),
    str(2**63),
    str(-(2**63)),
    "1" * 400,
    "",
    " ",
    "½ km",
    "٣ km",
    "１ km",
    "3.2.1 km",
    "1,5 km",
    "25:99",
    "22:00-07:00",
    "99:99-88:88",
    "-12:00",
    "+99",
    "+14",
    "-13",
    "UTC+99",
    "Mars/Olympus_Mons",
    "../../etc/passwd",
    "\x00",
    "\u202e",
    "🙂",
    "e6",
    "z99",
    "yes",
    "no",
    "radar",
    "thermometer",
    "matching",
    "measuring",
    "tentacle",
    "photo",
    "small",
    "large",
    "us",
    "rest",
    "timezone",
    "ruleset",
    "find",
    "stations",
    "refresh",
    "map",
    "de",
    "es",
    "xx",
    "@",
    "@somebody",
)

words = st.one_of(
    st.sampled_from(NASTY_WORDS),
    st.text(max_size=12),
    st.integers().map(str),
    st.floats().map(str),
    st.sampled_from(["radar", "thermometer", "tentacle"]).flatmap(
        lambda c: st.sampled_from(NASTY_WORDS).map(lambda w: f"{c} {w}")
    ),
)
argument_lists = st.one_of(
    st.lists(words, max_size=5),
    st.just(["x" * 5000]),
    st.just(["ü" * 2500, "1/0"]),
)
#: The first words each command reads, so that a nasty value reaches the parser behind them.
GRAMMAR: dict[str, tuple[str, ...]] = {
    "newgame": ("small", "medium", "large", "metric", "us"),
    "ask": ("radar", "thermometer", "tentacle", "matching", "measuring", "photo", "radar-1km"),
    "answer": ("yes", "no", "named", "photo"),
    "settings": ("rest", "timezone", "tz", "ruleset", "units", "rounds"),
    "map": ("find", "stations", "refresh", "stillwater", "use"),
    "play": ("1", "2", "0", "-1", "99"),
    "review": ("1", "0", "-1", str(2**63)),
    "team": ("Red", "x" * 300, ""),
    "claim": ("e6", "a1", "z9"),
    "move": ("e5", "a1", "z9"),
    "language": ("de", "es", "en", "xx"),
    "found": ("Alice", "Bob"),
}
grammar_commands = st.sampled_from(sorted(GRAMMAR)).flatmap(
    lambda name: st.tuples(
        st.just(name),
        st.lists(st.sampled_from(GRAMMAR[name]), min_size=1, max_size=2),
        st.lists(words, max_size=3),
    )
)
command_names = st.one_of(
    st.sampled_from([c.name for c in routes.COMMANDS]),
    st.text(max_size=10).map(str.lower),
)
long_texts = st.one_of(st.text(max_size=50), st.just("x" * 5000), st.just("🙂" * 4096))

PEOPLE = ("Alice", "Bob", "Carol", "Mallory")  # Mallory never joined
ids = st.one_of(
    st.integers(min_value=-3, max_value=12),
    st.sampled_from([2**31 - 1, 2**31, -(2**31), 2**63, 10**30]),
)
arg_words = st.one_of(
    ids.map(str),
    st.sampled_from(["y", "n", "s", "a", "r", "d", "", "d1,2", "t3", "c", "g1", "1,2,3", "ü"]),
    st.tuples(st.sampled_from(["d", "t", "g", "d1."]), ids).map(lambda t: f"{t[0]}{t[1]}"),
    st.lists(ids, min_size=1, max_size=3).map(lambda xs: ",".join(map(str, xs))),
    st.sampled_from(["nan", "inf", "-inf", "1e300", "1e-300", "-0.0", "500.0", "radar-custom"]),
    st.text(max_size=6).filter(lambda s: ":" not in s),
)


# ----------------------------------------------------------------- building inputs


class Fuzzer:
    """Builds inputs for the table's people and runs them straight into the conversation."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.counter = itertools.count(1)

    def game_id(self) -> int:
        with self.table.conversation.uow_factory() as uow:
            loaded = uow.games.for_chat(self.table.group)
            return loaded.id if loaded is not None else 0

    def common(self, who: str, private: bool, name: str | None = None) -> dict[str, object]:
        person = self.table.person(who)
        n = next(self.counter)
        chat, kind = (
            (person.ref, ChatKind.PRIVATE) if private else (self.table.group, ChatKind.GROUP)
        )
        return {
            "chat": chat,
            "kind": kind,
            "sender": Sender(
                person.ref, name if name is not None and who == "Mallory" else person.name
            ),
            "at": self.table.now,
            "update_id": f"fuzz:{n}",
            "message_ref": str(900_000 + n),
        }

    def run(self, msg: Inbound) -> None:
        """Handle ``msg``, render what it announced, and load the game again."""
        conversation = self.table.conversation
        conversation.handle(msg)
        if conversation.has_map_jobs:  # a search or a fetch a press queued runs now
            while conversation.run_map_job(lambda: self.table.now):
                pass
        for delivery in conversation.outgoing(self.table.now):
            conversation.delivered(delivery.id, self.table.now)
        with conversation.uow_factory() as uow:
            loaded = uow.games.for_chat(self.table.group)
            if loaded is not None:
                uow.games.get(loaded.id)  # straight from the rows, not the cache

    def wait(self, minutes: int) -> None:
        """Let ``minutes`` pass: fire what fell due, render what it announced."""
        table = self.table
        table.now += timedelta(minutes=minutes)
        conversation = table.conversation
        conversation.tick(table.now)
        for delivery in conversation.outgoing(table.now):
            conversation.delivered(delivery.id, table.now)

    def real_buttons(self) -> list[str]:
        return [b.data for line in self.table.lines for row in line.buttons for b in row if b.data]


def inputs(fuzzer: Fuzzer) -> st.SearchStrategy[Inbound]:
    """Any input any person (a player or a stranger) could send, in the group or in private."""
    # Mallory, a stranger, calls herself anything (an empty name, a thousand characters)
    where = st.tuples(
        st.sampled_from(PEOPLE), st.booleans(), st.one_of(st.none(), st.text(max_size=300))
    )

    @st.composite
    def command(draw: st.DrawFn) -> Inbound:
        who, private, name = draw(where)
        if draw(st.booleans()):
            name, first, rest = draw(grammar_commands)
            typed = [*first, *rest]
        else:
            name, typed = draw(command_names), draw(argument_lists)
        args = tuple(a for arg in typed for a in (arg.split() or [arg]) if a)
        return CommandIn(**fuzzer.common(who, private, name), name=name, args=args)  # type: ignore[arg-type]

    @st.composite
    def text(draw: st.DrawFn) -> Inbound:
        who, private, name = draw(where)
        return TextIn(**fuzzer.common(who, private, name), text=draw(long_texts))  # type: ignore[arg-type]

    @st.composite
    def press(draw: st.DrawFn) -> Inbound:
        # What is drawn never depends on the table (hypothesis replays draws): indices and
        # words are drawn, and read against the buttons the table shows only afterwards.
        who, private, name = draw(where)
        how = draw(st.sampled_from(["forged", "text", "real", "replaced", "added"]))
        verb = draw(st.sampled_from([v.value for v in Verb]))
        game = draw(st.one_of(st.none(), ids))  # None: the chat's current game
        words = draw(st.lists(arg_words, max_size=5))
        garbage = draw(st.one_of(st.text(max_size=80), st.sampled_from(["", ":", "::", "x" * 64])))
        which, part, back = (
            draw(st.integers(0, 10**6)),
            draw(st.integers(0, 6)),
            draw(st.integers(0, 5)),
        )
        real = fuzzer.real_buttons()
        if how == "text":
            data = garbage
        elif how in ("real", "replaced", "added") and real:
            parts = real[which % len(real)].split(":")
            if how == "replaced" and words:
                parts = [words[0] if i == part else w for i, w in enumerate(parts)]
            elif how == "added":
                parts = [*parts, *words]
            data = ":".join(parts)
        else:
            gid = fuzzer.game_id() if game is None else game
            data = ":".join([verb, str(gid), *words])
        lines = fuzzer.table.lines[-5:]
        common = fuzzer.common(who, private, name)
        if back and lines:
            common["message_ref"] = str(lines[-min(back, len(lines))].id)
        return ButtonIn(**common, data=data, press_ref=f"press:{next(fuzzer.counter)}")  # type: ignore[arg-type]

    anywhere = st.floats(allow_nan=True, allow_infinity=True)
    near = st.tuples(
        st.floats(36.10, 36.16), st.floats(-97.10, -97.04)
    )  # Stillwater, where the game is

    @st.composite
    def location(draw: st.DrawFn) -> Inbound:
        who, private, name = draw(where)
        lat, lon = draw(st.one_of(near, st.tuples(anywhere, anywhere)))
        accuracy = draw(st.one_of(st.none(), st.floats(0, 100), anywhere))
        live, edited = draw(st.booleans()), draw(st.booleans())
        return LocationIn(
            **fuzzer.common(who, private, name),  # type: ignore[arg-type]
            lat=lat,
            lon=lon,
            accuracy_m=accuracy,
            live=live,
            live_ended=draw(st.booleans()) if edited else False,
            edited=edited,
            forwarded=draw(st.booleans()),
        )

    @st.composite
    def file(draw: st.DrawFn) -> Inbound:
        who, private, name = draw(where)
        content = draw(
            st.one_of(
                st.none(),
                st.binary(max_size=300),
                st.sampled_from(
                    [b"{}", b"[]", b'{"name": 1}', b"\xff\xfe", b"name,lat,lon\nA,nan,inf\n"]
                ),
            )
        )
        size = draw(st.one_of(st.just(len(content or b"")), st.integers(-1, 2**40)))
        name = draw(
            st.one_of(
                st.text(max_size=30),
                st.sampled_from(["map.json", "stations.csv", "x.geojson", "a" * 300 + ".json"]),
            )
        )
        return FileIn(
            **fuzzer.common(who, private, name), filename=name, size=size, content=content
        )  # type: ignore[arg-type]

    @st.composite
    def photo(draw: st.DrawFn) -> Inbound:
        who, private, name = draw(where)
        return PhotoIn(
            **fuzzer.common(who, private, name),  # type: ignore[arg-type]
            file_ref=draw(st.text(max_size=20)),
            caption=draw(long_texts),
        )

    return st.one_of(command(), command(), text(), press(), press(), location(), file(), photo())


# ----------------------------------------------------------------- the moments of a game


def at_setup(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    table.send("Alice", "/newgame small metric")
    table.press("Bob", "Join the game")
    table.send("Carol", "/join")


def at_hiding(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, _ = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)


def at_seeking(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, seekers = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    for seeker in seekers:
        table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes=31))
    assert state_of(uow_factory, table).phase == Phase.SEEKING


def at_end_game(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    at_seeking(table, uow_factory)
    hider = next(p.name for p in table.people.values() if _is_hider(table, uow_factory, p.ref))
    seeker = next(n for n in ("Alice", "Bob", "Carol") if n != hider)
    table.send(seeker, "/endgame")
    for line, button in table.buttons(hider):
        if button.data.startswith(f"{Verb.DECIDE_CLAIM.value}:") and button.data.endswith(":y"):
            table.press_data(hider, button.data, line)
            break
    assert state_of(uow_factory, table).phase in (Phase.END_GAME, Phase.SEEKING)


def at_game_over(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    begin(table)
    table.send("Alice", "/abort")
    table.press("Alice", "End")
    assert state_of(uow_factory, table).phase == Phase.GAME_OVER


def _is_hider(table: Table, uow_factory: UnitOfWorkFactory, ref: str) -> bool:
    state = state_of(uow_factory, table)
    player = state.player_by_ref(ref)
    return player is not None and player.team_id == state.hider_team_id()


def at_map_search(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    """Setting up, a search for a map done: its places are buttons (map jobs run)."""
    at_setup(table, uow_factory)
    table.send("Alice", "/map find Stillwater")
    table.press("Alice", "Stillwater · city · United States")


def no_game(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    """A group that never had a game (strangers' noise, a file with no map to go with)."""


MOMENTS: dict[str, Callable[[Table, UnitOfWorkFactory], None]] = {
    "no game": no_game,
    "setup": at_setup,
    "hiding": at_hiding,
    "seeking": at_seeking,
    "end game": at_end_game,
    "over": at_game_over,
    "map search": at_map_search,
}


@pytest.mark.parametrize("moment", list(MOMENTS))
def test_no_input_makes_the_conversation_raise(uow_factory: UnitOfWorkFactory, moment: str) -> None:
    table = map_table(uow_factory, clients()) if moment == "map search" else new_table(uow_factory)
    MOMENTS[moment](table, uow_factory)
    fuzzer = Fuzzer(table)

    @FUZZ
    @given(st.data())
    def one(data: st.DataObject) -> None:
        if data.draw(st.integers(0, 9)) == 0:  # now and then, time passes: timers fire
            fuzzer.wait(data.draw(st.integers(1, 45)))
        else:
            fuzzer.run(data.draw(inputs(fuzzer)))

    one()
