"""Buttons: what a press means (a verb and its arguments) and the keyboards the bot shows.

Button data reads ``verb:game_id:arg:arg`` in at most 64 bytes (Telegram's limit). The game
id makes a button from an earlier game harmless: a press is refused when it does not name
the chat's current game, or in a private chat one of the presser's unfinished games (a
botnet button names its match instead). ``Verb`` gives each verb
a readable name; its values are the short words already sent in buttons that players may
still press, so they never change.

Every keyboard the Hide+Seek game shows is built here, from values the caller read; nothing
here reads the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any

from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.i18n import LANGUAGES, N_, Formatter, language_name
from hideseek_chat.chat.model import Button
from hideseek_chat.rules.questions import QuestionOffer, is_transit_line
from hideseek_chat.rules.ruleset import (
    CATEGORY_ANSWERS,
    NULL_ANSWER,
    PLACE_CATEGORIES,
    CardKind,
    Category,
    Ruleset,
)
from hideseek_chat.rules.state import ActiveCurse, Card, Question

MAX_BYTES = 64

Rows = tuple[tuple[Button, ...], ...]


class Verb(StrEnum):
    """What a button does; the value is what its data starts with (never change one)."""

    JOIN = "join"  # (join the game)
    ANSWER = "ans"  # record_id, answer word (or 's' for the suggested tentacle place)
    VETO = "veto"  # record_id
    RANDOMIZE = "rnd"  # record_id
    KEEP_CARDS = "keep"  # cycle_id, comma-separated card ids
    PLAY_CARD = "play"  # card_id, then the casting steps chosen (d<ids>, t<card>, c, g<team>)
    DISCARD_CARD = "disc"  # card_id
    ANSWER_CATCH = "catch"  # the claimer's player id (absent on older buttons), y / n
    CLEAR_CURSE = "clear"  # curse_id
    ARRIVED = "arrive"  # record_id (a thermometer's seekers arrived)
    ASK = "ask"  # question id, then (a distance of one's choice) the distance in metres
    # or (the transit-line question) "l" and the key of the line ridden
    ASK_MENU = "askm"  # the /ask menu's screen: none (the categories), a category, then
    # the id of its question whose distance (or line) the seeker chooses
    SET = "set"  # setting, value
    CHOOSE_MAP = "map"  # map pack name
    MAP_PLACE = "mplace"  # search job id, position of the place found
    MAP_RADIUS = "mrad"  # search job id, place position, radius in metres (a point result)
    MAP_MODE = "mmode"  # job id, place, radius (0: an area), modes chosen (bits), mode toggled
    MAP_FETCH = "mfetch"  # job id, place position, radius (0: an area), modes chosen (bits)
    STATIONS_PAGE = "mstp"  # the map's tag (``pack_tag``), page of /map stations
    STATION = "mstn"  # the map's tag, the station's position in the map
    DROP_STATION = "mdrop"  # the map's tag, the station's position, d (drop) / r (restore)
    SHOW_HAND = "hand"  # (show the hand)
    NEXT_ROUND = "next"  # (start the next round now)
    CONFIRM_ANSWER = "chk"  # record_id, a (send the held answer anyway) / s (the pins' answer)
    DECIDE_CLAIM = "claim"  # claim_id, y / n (the hider accepts or refuses an end-game claim)
    REPORT_PENALTY = "pen"  # curse_id (a seeker reports that the curse struck: a bonus)
    CONFIRM_PENALTY = "penok"  # curse_id, bonuses awarded when reported (the hider confirms)
    REPORT_LOSS = "lost"  # curse_id (a seeker reports a lost curse game)
    CONFIRM_LOSS = "lostok"  # curse_id, losses counted when reported (the hider confirms)
    ABORT = "abort"  # y (the admin confirms ending the game now) / n (keep playing)
    TEAM = "team"  # team_id to join, or 0 to play on one's own
    SPOTTED = "spot"  # (a seeker whose /found the pins put far off claims it anyway)
    OFF_TRANSIT = "offtr"  # claim_id (the seekers confirm they left transit: the end game)
    DECIDE_CATCH = "dcatch"  # player id (the admin decides that this seeker found the hider)
    CHOOSE_GAME = "focus"  # (the id is the game the presser's private messages are about)
    SEEKMAP_STATIONS = "skst"  # page of the seekers' candidate stations (/stations)
    SEEKMAP_GEOJSON = "skgj"  # (send the seekers' map as a GeoJSON file)
    FORGET_ME = "forget"  # (no game: 0) y (erase what the bot stores about the presser) / n
    TRACKER = "trk"  # (id 0) r: a new tracker URL, o: tracker off (``handlers.trackers``)
    # the botnet game: the id is the match's (for ACCEPT_CHALLENGE, the newest match id or 0)
    ACCEPT_CHALLENGE = "bnok"  # challenger ref (':' as '.'), @username it is for or ''
    CHOOSE_FIRST = "bnfirst"  # seat 0 / 1 who moves first, or r for a coin toss
    MOVE_PROXY = "bnm"  # turns played, device to move the proxy to
    CLAIM_DEVICE = "bnc"  # turns played, device to claim


#: The verbs of the botnet game: their id names a match, not the chat's game.
BOTNET_VERBS = frozenset(
    {Verb.ACCEPT_CHALLENGE, Verb.CHOOSE_FIRST, Verb.MOVE_PROXY, Verb.CLAIM_DEVICE}
)


@dataclass(frozen=True)
class Press:
    """A decoded button press: its verb, the game (or match) it names and its arguments."""

    verb: Verb
    game_id: int
    args: tuple[str, ...]

    def arg(self, index: int) -> str:
        try:
            return self.args[index]
        except IndexError:
            raise ChatError("chat.button_unknown") from None

    def int_arg(self, index: int) -> int:
        return _int(self.arg(index))


#: The largest number a button may carry: the database's integer (a forged press with a
#: larger one would be an SQL error, not a refusal).
MAX_INT = 2**31 - 1


def _int(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise ChatError("chat.button_unknown") from None
    if not -MAX_INT <= number <= MAX_INT:
        raise ChatError("chat.button_unknown")
    return number


def encode(verb: Verb, game_id: int, *args: object) -> str:
    """Button data for ``verb`` in game ``game_id``; raise ValueError if over 64 bytes."""
    data = ":".join([Verb(verb).value, str(game_id), *(str(a) for a in args)])
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"button data too long: {data!r}")
    return data


def decode(data: str) -> Press:
    """Read button data; anything malformed or forged raises ChatError."""
    parts = data.split(":")
    if len(parts) < 2 or len(data.encode()) > MAX_BYTES:
        raise ChatError("chat.button_unknown")
    try:
        verb = Verb(parts[0])
    except ValueError:
        raise ChatError("chat.button_unknown") from None
    return Press(verb, _int(parts[1]), tuple(parts[2:]))


def button(label: str, verb: Verb, game_id: int, *args: object) -> Button:
    return Button(label, encode(verb, game_id, *args))


def column(buttons: Iterable[Button]) -> Rows:
    """One button per row."""
    return tuple((b,) for b in buttons)


# ----------------------------------------------------------------- joining and private chats


def open_private(label: str) -> Button:
    """A button that opens the person's private chat with the bot."""
    return Button(label, private_link=True)


def join_game(game_id: int, join_label: str, private_label: str) -> Rows:
    return ((button(join_label, Verb.JOIN, game_id),), (open_private(private_label),))


def choose_game(games: Sequence[tuple[str, int]], current: int | None = None) -> Rows:
    """One button per game a person plays in (``(label, game id)``), ``current`` ticked:
    which game their private messages are about."""
    return column(
        button(("✓ " if game_id == current else "") + label[:60], Verb.CHOOSE_GAME, game_id)
        for label, game_id in games
    )


# ----------------------------------------------------------------- setting up


#: The rest-period presets of the settings keyboard: button value -> (start, end), read in
#: the game's time zone ("night" is what older keyboards still send).
REST_PRESETS: dict[str, tuple[tuple[str, str], ...]] = {
    "none": (),
    "2207": (("22:00", "07:00"),),
    "2308": (("23:00", "08:00"),),
    "night": (("22:00", "08:00"),),
}


def settings(
    game_id: int,
    fmt: Formatter,
    automatic_label: str,
    automatic: bool,
    current: Mapping[str, str] | None = None,
) -> Rows:
    """The settings keyboard. ``current`` (each game setting's value as its buttons send
    it) adds the game's own settings, the chosen ones ticked; without it (a game under
    way) only the chat's language, units and automatic answers are offered."""
    g = game_id
    chat_rows: Rows = (
        tuple(button(language_name(c), Verb.SET, g, "lang", c) for c in LANGUAGES),
        (
            button(fmt.t("Metric"), Verb.SET, g, "units", "metric"),
            button(fmt.t("Imperial"), Verb.SET, g, "units", "imperial"),
        ),
        (button(automatic_label, Verb.SET, g, "auto", "off" if automatic else "on"),),
    )
    if current is None:
        return chat_rows

    def choice(label: str, what: str, value: object) -> Button:
        mark = "✓ " if current.get(what) == str(value) else ""
        return button(mark + label, Verb.SET, g, what, value)

    return (
        tuple(
            choice(fmt.n("{count} round each", "{count} rounds each", n), "rounds", n)
            for n in (1, 2, 3)
        ),
        tuple(
            choice(label, "timer", minutes)
            for label, minutes in (
                (fmt.t("No time limit"), 0),
                ("4 h", 240),
                ("8 h", 480),
                ("24 h", 1440),
            )
        ),
        (
            choice(fmt.t("No rest periods"), "rest", "none"),
            choice(fmt.t(N_("Rest 22:00–07:00")), "rest", "2207"),
            choice(fmt.t(N_("Rest 23:00–08:00")), "rest", "2308"),
        ),
        (
            choice(fmt.t(N_("🚆 Transit")), "transport", "transit"),
            choice(fmt.t(N_("🚗 Car")), "transport", "car"),
            choice(fmt.t(N_("🚶 On foot")), "transport", "foot"),
        ),
        (choice(fmt.t(N_("Classic: one hider")), "mode", "standard"),),
        (
            choice(fmt.t(N_("Two seeker teams: points")), "mode", "teams_points"),
            choice(fmt.t(N_("Two seeker teams: time")), "mode", "teams_time"),
        ),
        (
            choice(fmt.t(N_("Local game")), "global", "off"),
            choice(fmt.t(N_("🌍 Global scale")), "global", "on"),
        ),
        *chat_rows[:2],
        (button(fmt.t("Choose the map"), Verb.SET, g, "map", "list"),),
        *chat_rows[2:],
    )


def teams(game_id: int, choices: Sequence[tuple[str, int]], alone_label: str) -> Rows:
    """A button to join each team (``(label, team id)``), and one to play on one's own."""
    return (
        *column(button(label, Verb.TEAM, game_id, team_id) for label, team_id in choices),
        (button(alone_label, Verb.TEAM, game_id, 0),),
    )


def confirm_abort(game_id: int, yes_label: str, no_label: str) -> Rows:
    """The admin's last word before a game ends without a winner."""
    return (
        (button(yes_label, Verb.ABORT, game_id, "y"), button(no_label, Verb.ABORT, game_id, "n")),
    )


def map_choices(game_id: int, names: Sequence[str]) -> Rows:
    return column(button(name, Verb.CHOOSE_MAP, game_id, name) for name in names)


# ----------------------------------------------------------------- a map from OpenStreetMap


def map_places(game_id: int, job_id: int, labels: Sequence[str]) -> Rows:
    """One button per place a search found (at most five)."""
    return column(
        button(label[:60], Verb.MAP_PLACE, game_id, job_id, i) for i, label in enumerate(labels)
    )


def map_radii(game_id: int, job_id: int, place: int, radii: Sequence[tuple[str, int]]) -> Rows:
    """The radii around a point result, one button each (``(label, metres)``)."""
    return (tuple(button(label, Verb.MAP_RADIUS, game_id, job_id, place, m) for label, m in radii),)


def mode_bits(modes: Sequence[str], chosen: Iterable[str]) -> int:
    """``chosen`` as the bits of a button (bit i: ``modes[i]``)."""
    wanted = set(chosen)
    return sum(1 << i for i, mode in enumerate(modes) if mode in wanted)


def modes_of(modes: Sequence[str], bits: int) -> frozenset[str]:
    """The modes a button's ``bits`` name."""
    return frozenset(mode for i, mode in enumerate(modes) if bits & (1 << i))


def map_modes(
    game_id: int,
    job_id: int,
    place: int,
    radius_m: int,
    modes: Sequence[tuple[str, str]],
    chosen: frozenset[str],
    fetch_label: str,
) -> Rows:
    """A toggle per transit mode (``(mode, label)``), the chosen ones ticked, and Fetch."""
    names = [mode for mode, _ in modes]
    bits = mode_bits(names, chosen)
    toggles = [
        button(
            ("✓ " if mode in chosen else "▫️ ") + label,
            Verb.MAP_MODE,
            game_id,
            job_id,
            place,
            radius_m,
            bits,
            i,
        )
        for i, (mode, label) in enumerate(modes)
    ]
    rows = [tuple(toggles[i : i + 3]) for i in range(0, len(toggles), 3)]
    fetch = button(fetch_label, Verb.MAP_FETCH, game_id, job_id, place, radius_m, bits)
    return (*rows, (fetch,))


def stations_page(
    game_id: int,
    tag: str,
    stations: Sequence[tuple[str, int]],
    page: int | None = None,
    pages: int = 1,
) -> Rows:
    """A button per station (``(label, position)``); ◀ ▶ when there are ``pages``."""
    rows = list(
        column(button(label[:60], Verb.STATION, game_id, tag, pos) for label, pos in stations)
    )
    if page is not None and pages > 1:
        nav = []
        if page > 0:
            nav.append(button("◀", Verb.STATIONS_PAGE, game_id, tag, page - 1))
        nav.append(button(f"{page + 1}/{pages}", Verb.STATIONS_PAGE, game_id, tag, page))
        if page < pages - 1:
            nav.append(button("▶", Verb.STATIONS_PAGE, game_id, tag, page + 1))
        rows.append(tuple(nav))
    return tuple(rows)


def station_actions(
    game_id: int, tag: str, position: int, dropped: bool, action_label: str, back_label: str
) -> Rows:
    """Drop (or Restore) one station, and back to the list."""
    act = button(action_label, Verb.DROP_STATION, game_id, tag, position, "r" if dropped else "d")
    return ((act,), (button(back_label, Verb.STATIONS_PAGE, game_id, tag, 0),))


def start_hiding(game_id: int, fmt: Formatter) -> Rows:
    return ((button(fmt.t(N_("▶️ Start my hiding period now")), Verb.NEXT_ROUND, game_id),),)


# ----------------------------------------------------------------- questions


#: The /ask menu puts up to ``n`` buttons on a row when none of their labels is longer
#: than ``ROW_CHARACTERS // n`` (a phone shows about that many characters across).
ROW_CHARACTERS = 36
ROW_BUTTONS = 3


def flow(buttons: Iterable[Button], width: int = ROW_CHARACTERS, most: int = ROW_BUTTONS) -> Rows:
    """Buttons in rows, several to a row while their labels are short."""
    rows: list[list[Button]] = []
    for b in buttons:
        row = rows[-1] if rows else None
        if row is not None and len(row) < most:
            longest = max(len(other.label) for other in [*row, b])
            if longest <= width // (len(row) + 1):
                row.append(b)
                continue
        rows.append([b])
    return tuple(tuple(row) for row in rows)


def ask_categories(game_id: int, categories: Sequence[tuple[Category, str]]) -> Rows:
    """The /ask menu's first screen: one button per category (with its label)."""
    return column(button(label, Verb.ASK_MENU, game_id, c.value) for c, label in categories)


def ask_questions(
    game_id: int,
    category: Category,
    offers: Sequence[QuestionOffer],
    labels: Sequence[str],
    back_label: str,
) -> Rows:
    """A category's questions (a distance of one's choice, a line: its own screen); Back."""
    buttons = [
        button(label, Verb.ASK_MENU, game_id, category.value, offer.question.id)
        if offer.question.custom_distance or is_transit_line(offer.question)
        else button(label, Verb.ASK, game_id, offer.question.id)
        for offer, label in zip(offers, labels, strict=True)
    ]
    return (*flow(buttons), (button(back_label, Verb.ASK_MENU, game_id),))


def ask_distances(
    game_id: int,
    category: Category,
    question_id: str,
    distances: Sequence[tuple[float, str]],
    back_label: str,
) -> Rows:
    """Distances to choose for ``question_id`` (metres and label); Back to the category."""
    buttons = [
        button(label, Verb.ASK, game_id, question_id, repr(float(metres)))
        for metres, label in distances
    ]
    back = button(back_label, Verb.ASK_MENU, game_id, category.value)
    return (*flow(buttons, most=4), (back,))


def arrived(game_id: int, record_id: object, fmt: Formatter) -> Rows:
    return ((button(fmt.t(N_("📍 We've arrived")), Verb.ARRIVED, game_id, record_id),),)


def answers(
    game_id: int,
    record: Question,
    suggested: str | None,
    suggested_place: str | None,
    powers: Mapping[str, bool],
    fmt: Formatter,
) -> Rows:
    """The hider's answer buttons, the suggested answer marked; Veto/Randomize when held."""
    rows: list[tuple[Button, ...]] = []
    answer_row = []
    if record.category == Category.TENTACLE and suggested_place:
        answer_row.append(button(f"👉 {suggested_place}", Verb.ANSWER, game_id, record.id, "s"))
    for word in CATEGORY_ANSWERS[record.category]:
        if word in ("named", "photo"):
            continue
        mark = "👉 " if word == suggested else ""
        answer_row.append(button(mark + fmt.answer(word), Verb.ANSWER, game_id, record.id, word))
    rows.append(tuple(answer_row))
    if record.category in PLACE_CATEGORIES:
        mark = "👉 " if suggested == NULL_ANSWER else ""
        label = mark + fmt.answer(NULL_ANSWER)
        rows.append((button(label, Verb.ANSWER, game_id, record.id, NULL_ANSWER),))
    power_row = []
    if powers.get("veto"):
        power_row.append(button(fmt.t(N_("🚫 Veto")), Verb.VETO, game_id, record.id))
    if powers.get("randomize"):
        power_row.append(button(fmt.t(N_("🎲 Randomize")), Verb.RANDOMIZE, game_id, record.id))
    if power_row:
        rows.append(tuple(power_row))
    return tuple(rows)


def held_answer(game_id: int, record_id: int, anyway_label: str, suggested_label: str) -> Rows:
    """The hider's choice when the pins contradict their answer."""
    return (
        (button(anyway_label, Verb.CONFIRM_ANSWER, game_id, record_id, "a"),),
        (button(suggested_label, Verb.CONFIRM_ANSWER, game_id, record_id, "s"),),
    )


# ----------------------------------------------------------------- cards and curses


def keep_cards(
    game_id: int, params: Mapping[str, Any], fmt: Formatter, labels: Sequence[str] = ()
) -> Rows:
    """One button per choice of cards to keep from a draw (at most 20); ``labels`` name
    the offered cards in order (default: their names)."""
    ids = [int(i) for i in params.get("card_ids", [])]
    names = list(labels) or [fmt.card(str(n)) for n in params.get("cards", [])]
    keep = int(params.get("keep", 1))
    cycle = params.get("cycle_id")
    rows = []
    for combo in combinations(range(len(ids)), keep):
        label = " + ".join(names[i] for i in combo)
        chosen = ",".join(str(ids[i]) for i in combo)
        rows.append((button(f"🃏 {label}", Verb.KEEP_CARDS, game_id, cycle, chosen),))
    return tuple(rows[:20])


def hand(
    game_id: int,
    cards: Sequence[Card],
    ruleset: Ruleset,
    fmt: Formatter,
    labels: Sequence[str] = (),
) -> Rows:
    """Play (not a time bonus) and discard buttons for each card in a hand; ``labels``
    name the cards in order (default: their names)."""
    names = list(labels) or [fmt.card(card.def_id) for card in cards]
    rows: list[tuple[Button, ...]] = []
    for card, name in zip(cards, names, strict=True):
        row = []
        if ruleset.card(card.def_id).kind != CardKind.TIME_BONUS:
            row.append(button(f"▶️ {name}", Verb.PLAY_CARD, game_id, card.id))
        row.append(button(f"🗑 {name}", Verb.DISCARD_CARD, game_id, card.id))
        rows.append(tuple(row))
    return tuple(rows)


def casting_choices(
    game_id: int, steps_so_far: Sequence[str], options: Sequence[tuple[str, str]]
) -> Rows:
    """The next casting step's options: each press adds its step to the card's steps."""
    return column(
        button(label, Verb.PLAY_CARD, game_id, *steps_so_far, step) for label, step in options
    )


def curse_done(game_id: int, curse_id: object, fmt: Formatter) -> Rows:
    return ((button(fmt.t(N_("✅ Curse done")), Verb.CLEAR_CURSE, game_id, curse_id),),)


def curse_actions(
    game_id: int,
    curse_id: object,
    fmt: Formatter,
    *,
    clearable: bool,
    penalty_label: str | None = None,
    loss_label: str | None = None,
) -> Rows:
    """The seekers' buttons under a cast curse: done, it struck (a bonus), a lost game."""
    rows = curse_done(game_id, curse_id, fmt) if clearable else ()
    if penalty_label is not None:
        rows += ((button(penalty_label, Verb.REPORT_PENALTY, game_id, curse_id),),)
    if loss_label is not None:
        rows += ((button(loss_label, Verb.REPORT_LOSS, game_id, curse_id),),)
    return rows


def curses_to_report(
    game_id: int, verb: Verb, curses: Sequence[ActiveCurse], fmt: Formatter
) -> Rows:
    """One button per curse a seeker may report (``verb``: a bonus or a lost game)."""
    return column(button(fmt.card(c.def_id), verb, game_id, c.id) for c in curses)


def confirm_report(game_id: int, verb: Verb, curse_id: int, count: int, label: str) -> Rows:
    """The confirming player's button; ``count`` is what was counted when it was reported."""
    return ((button(label, verb, game_id, curse_id, count),),)


def curses_to_clear(game_id: int, curses: Sequence[ActiveCurse], fmt: Formatter) -> Rows:
    return column(button(fmt.card(c.def_id), Verb.CLEAR_CURSE, game_id, c.id) for c in curses)


# ----------------------------------------------------------------- the end game


def confirm_catch(game_id: int, fmt: Formatter, claimer: int | None = None) -> Rows:
    """The hider's answer to the catch claim of the player ``claimer``."""
    whose = () if claimer is None else (claimer,)
    return (
        (
            button(fmt.t(N_("✅ Yes, they found me")), Verb.ANSWER_CATCH, game_id, *whose, "y"),
            button(fmt.t(N_("❌ No")), Verb.ANSWER_CATCH, game_id, *whose, "n"),
        ),
    )


def spotted_anyway(game_id: int, label: str) -> Rows:
    return ((button(label, Verb.SPOTTED, game_id),),)


def off_transit(game_id: int, claim_id: int, label: str) -> Rows:
    return ((button(label, Verb.OFF_TRANSIT, game_id, claim_id),),)


def choose_seeker(game_id: int, seekers: Iterable[tuple[int, str]]) -> Rows:
    """One button per seeker: who found the hider (the admin's decision)."""
    return column(button(name, Verb.DECIDE_CATCH, game_id, pid) for pid, name in seekers)


def decide_claim(game_id: int, claim_id: int, accept_label: str, refuse_label: str) -> Rows:
    return (
        (
            button(accept_label, Verb.DECIDE_CLAIM, game_id, claim_id, "y"),
            button(refuse_label, Verb.DECIDE_CLAIM, game_id, claim_id, "n"),
        ),
    )


def share_location(fmt: Formatter) -> Rows:
    """One button that sends the presser's current location (private chats; a channel
    without such buttons leaves it out, the text saying how to share)."""
    return ((Button(fmt.t(N_("📍 Send my location now")), share_location=True),),)
