"""The text registry: every key says something, unknown keys fall back, /help lists the
commands it is given, reasons are grouped as the group is told them, and every msgid is
still found by the extractor."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

import hideseek_chat.chat.texts as texts_package
import hideseek_chat.rules as rules_package
from hideseek_chat.chat import texts
from hideseek_chat.chat.catalogue import KEYWORDS, template_path
from hideseek_chat.chat.i18n import LANGUAGES, N_, Formatter
from hideseek_chat.chat.texts import reasons
from hideseek_chat.rules import load_ruleset
from hideseek_chat.store.checks import CheckVerdict

TEXTS_DIR = Path(texts_package.__file__).parent
RULES_DIR = Path(rules_package.__file__).parent
REPO = TEXTS_DIR.parents[2]

#: The msgids this package added (the /help headings and notes); every other one it uses
#: was already in the catalogues.
NEW_MSGIDS = {
    "🕵️ Hide+Seek referee — commands",
    "In the group:",
    "In our private chat:",
    "Anywhere:",
    "Share your live location: seekers in the group or in our private chat, the hider only "
    "in our private chat.",
    "The admin chooses the language I speak in the group; each of you chooses your own in "
    "our private chat with /language.",
}

#: Where the texts lived before this package; their msgids must all be found here now.
OLD_TEXT_FILES = {
    f"hideseek_chat/chat/{name}.py"
    for name in (
        "messages",
        "notices_play",
        "text_parts",
        "errors_text",
        "views",
        "botnet_text",
        "review",
        "outgoing",
    )
}
#: Msgids of those files that are not texts of this package: button labels (keyboards),
#: and the fixed /help paragraphs that ``help_text`` now builds from the commands.
NOT_TEXTS = {
    "📍 We've arrived",
    "✅ Yes, they found me",
    "❌ No",
    "✅ Curse done",
    "▶️ Start my hiding period now",
    "🚫 Veto",
    "🎲 Randomize",
}
OLD_HELP_STARTS = ("🕵️ Hide+Seek referee — commands\n", "Two of you with time to spare?")


def fmt(language: str = "en") -> Formatter:
    return Formatter(language, ruleset=load_ruleset("metric"))


# ----- every key says something, and nothing raises -----


def test_the_families_of_keys_are_all_there() -> None:
    assert {"game.created", "question.asked", "curse.cast", "game.over"} <= texts.notice_keys()
    assert {"error.only_admin", "error.rule", "error.keep_count"} <= texts.refusal_keys()
    assert {"chat.no_game", "chat.check_agreed", "chat.map_bad_file"} <= texts.chat_keys()
    assert {"botnet.illegal", "botnet.not_seated"} <= texts.botnet_keys()
    families = (texts.notice_keys(), texts.refusal_keys(), texts.chat_keys(), texts.botnet_keys())
    assert sum(len(f) for f in families) == len(set().union(*families))
    assert len(texts.notice_keys()) >= 55 and len(texts.refusal_keys()) >= 80
    assert all(texts.has_text(key) for family in families for key in family)


def _engine_keys() -> tuple[set[str], set[str]]:
    """The Notify keys and the refusal keys written in rules/ (a literal at each site)."""
    notices: set[str] = set()
    errors: set[str] = set()
    for path in sorted(RULES_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name == "Notify" and len(node.args) > 1:
                    key = node.args[1]
                    if isinstance(key, ast.Constant):
                        notices.add(str(key.value))
                for keyword in node.keywords:
                    value = keyword.value
                    if keyword.arg == "key" and isinstance(value, ast.Constant):
                        errors.add(str(value.value))
            elif (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and any(isinstance(t, ast.Name) and t.id == "key" for t in node.targets)
            ):
                errors.add(str(node.value.value))
    return notices, {k for k in errors if k.startswith("error.")}


def test_every_key_the_engine_sends_has_its_own_text() -> None:
    notices, errors = _engine_keys()
    assert len(notices) >= 55 and len(errors) >= 80
    assert sorted(notices - texts.notice_keys()) == []
    assert sorted(errors - texts.refusal_keys()) == []


ODD_PARAMS: list[dict[str, Any]] = [
    {},
    {"by": None, "name": 3, "count": "x", "cards": None, "question": 12},
    {"options": "abc", "limit": "big", "reason": None, "names": "Ann"},
    {"round": 1, "rounds": 2, "minutes": "ten", "ends_at": "noon", "radius_m": None},
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_say_never_raises_whatever_the_params(language: str) -> None:
    every = texts.notice_keys() | texts.refusal_keys() | texts.chat_keys() | texts.botnet_keys()
    for key in sorted(every | {"nothing.known", "error.unknown", "chat.unknown"}):
        for params in ODD_PARAMS:
            assert isinstance(texts.say(key, params, fmt(language)), str), key


def test_an_unknown_key_falls_back_to_its_familys_generic_text() -> None:
    f = fmt()
    assert texts.say("nothing.known", {}, f) == "ℹ️ Game update: nothing.known"
    assert (
        texts.say("error.from_the_future", {"x": 1}, f) == "Sorry, that isn't possible right now."
    )
    assert texts.say("botnet.from_the_future", {}, f) == "Sorry, that isn't possible right now."
    assert texts.say("chat.from_the_future", {}, f) == "Sorry, that did not work."
    assert not texts.has_text("chat.from_the_future")


def test_a_text_that_cannot_be_rendered_is_logged_and_falls_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    f = fmt()
    assert texts.say("question.asked", {}, f) == "ℹ️ Game update: question.asked"
    assert texts.say("error.thermometer_short", {}, f) == "Sorry, that isn't possible right now."
    assert texts.say("error.rounds", {}, f) == "Sorry, that isn't possible right now."
    assert texts.say("botnet.must_move", {"x": 1}, f) == "Sorry, that isn't possible right now."
    assert "cannot render question.asked" in caplog.text
    assert "cannot render error.rounds" in caplog.text


def test_a_text_that_cannot_be_rendered_logs_its_parameters_names_not_their_values(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A notice that fails to render may carry the hider's station: only names are logged.
    texts.say("zone.fixed", {"station": "Gallagher-Iba", "lat": 36.1267}, fmt())
    assert "cannot render zone.fixed" in caplog.text and "station" in caplog.text
    assert "Gallagher" not in caplog.text and "36.12" not in caplog.text


def test_a_chat_sentence_missing_a_value_is_shown_up_to_it() -> None:
    f = fmt()
    assert texts.say("chat.map_set", {"name": "Stillwater"}, f) == (
        "🗺 The game will use the map “Stillwater”."
    )
    assert texts.say("chat.map_set", {"other": 1}, f) == "🗺 The game will use the map “"
    assert texts.say("chat.pin_saved", {}, f) == "Got your location."


def test_prepared_values_read_as_words() -> None:
    f = fmt()
    options = {"options": ["matching-zoo", "radar"]}
    assert texts.say("chat.ask_ambiguous", options, f) == (
        "Which one do you mean? /ask matching zoo, /ask radar"
    )
    bad = {"filename": "x.kml", "reason": "not_kml"}
    assert (
        texts.say("chat.map_bad_file", bad, f)
        == "I could not use “x.kml” as a map (it is not KML)."
    )
    bad["reason"] = "from_mars"
    assert texts.say("chat.map_bad_file", bad, f).endswith("(I can't read it).")
    assert texts.say("chat.map_too_big", {"limit": 20 * 1024 * 1024}, f) == (
        "That file is too big for a map (at most 20 MB)."
    )
    names = {"names": ["Ann", "Ben"]}
    assert texts.say("botnet.not_seated", names, f) == "Only Ann and Ben play this match."


def test_texts_speak_the_chats_language() -> None:
    params = {"name": "Ann"}
    said = {lang: texts.say("game.left", params, fmt(lang)) for lang in LANGUAGES}
    assert said["en"] == "👋 Ann left the game."
    assert len(set(said.values())) == len(LANGUAGES)
    assert all("Ann" in text for text in said.values())


# ----- /help -----

#: Commands as a routing table would pass them (the channel menu's descriptions).
SECTIONS: list[texts.HelpSection] = [
    (
        texts.IN_GROUP,
        [
            ("newgame", N_("start a new game in this group")),
            ("join", N_("join the game")),
            ("ask", N_("ask the hider a question")),
            ("review", N_("review a finished round's answers")),
        ],
    ),
    (
        texts.IN_PRIVATE,
        [
            ("hand", N_("show your cards (in private)")),
            ("track", N_("hider: where the seekers were last seen")),
        ],
    ),
    (texts.ANYWHERE, [("help", N_("how to play with this bot"))]),
    (N_("In the group:"), []),
]


def test_help_lists_every_command_it_is_given_under_its_heading() -> None:
    text = texts.help_text(SECTIONS, fmt())
    rows = text.splitlines()
    assert rows[0] == "🕵️ Hide+Seek referee — commands"
    assert rows[1:9] == [
        "In the group:",
        "/newgame — start a new game in this group",
        "/join — join the game",
        "/ask — ask the hider a question",
        "/review — review a finished round's answers",
        "In our private chat:",
        "/hand — show your cards (in private)",
        "/track — hider: where the seekers were last seen",
    ]
    assert rows[9:11] == ["Anywhere:", "/help — how to play with this bot"]
    assert rows.count("In the group:") == 1, "a section without commands is left out"
    assert rows[11] == ""
    assert rows[12:] == [fmt().t(note) for note in texts.HELP_NOTES]


@pytest.mark.parametrize("language", LANGUAGES)
def test_help_in_every_language_names_every_command(language: str) -> None:
    f = fmt(language)
    text = texts.help_text(SECTIONS, f, notes=())
    for _, commands in SECTIONS:
        for name, description in commands:
            assert f"/{name} — {f.t(description)}" in text.splitlines()
    assert not text.endswith("\n")
    if language != "en":
        assert "/join — join the game" not in text, "the descriptions are translated"


# ----- reasons -----


def test_reasons_are_grouped_as_the_group_is_told_them() -> None:
    assert reasons.codes_in(reasons.LOCATION) == {
        "no_live_pin",
        "stale_pin",
        "forwarded",
        "future_pin",
        "no_seeker_pin",
        "stale_seeker_pin",
        "no_pin",
        "no_zone",
    }
    assert reasons.codes_in(reasons.MAP) == {
        "no_map",
        "no_map_data",
        "no_elevation_data",
        "unsupported_subject",
        "unsupported",
        "needs_line",
        "unnamed_street",
        "not_in_any_division",
    }
    assert "unreadable" in reasons.codes_in(reasons.MAP_FILE)
    assert texts.unchecked_key("stale_pin", False) == "chat.check_no_location"
    assert texts.unchecked_key("needs_line", False) == "chat.check_no_map"
    assert texts.unchecked_key("too_close", False) == "chat.check_too_close"
    assert texts.unchecked_key("no_map", True) == "chat.check_too_close"
    assert texts.unchecked_key("not_far_enough", False) == "chat.check_unknown"
    assert texts.unchecked_key("bad_kind", False) == "chat.check_unknown"
    assert texts.unchecked_key("from_mars", False) == "chat.check_unknown"
    assert all(texts.has_text(key) for key in reasons.UNCHECKED_KEYS.values())


def test_reason_words_come_from_their_own_group_only() -> None:
    f = fmt()
    assert texts.why_no_answer("stale_pin", f) == "your last location is too old"
    assert texts.why_no_answer("no_pin", f) == "not enough data", "a code without words"
    assert texts.why_no_answer("bad_kind", f) == "not enough data", "a map file's problem"
    assert texts.map_problem("bad_kind", f) == "a feature has a kind I don't know"
    assert texts.map_problem("stale_pin", f) == "I can't read it", "not a map file's problem"


def test_the_group_reads_a_verdict_never_a_number() -> None:
    f = fmt()
    assert texts.verdict_note(CheckVerdict.AGREED, "ok", False, f) == "🛰 Checked against the pins ✓"
    assert texts.verdict_note(CheckVerdict.UNCHECKED, "no_map", False, f) == (
        "🛰 Could not be checked against the pins (no map data)."
    )
    assert texts.verdict_note(CheckVerdict.CONFIRMING, "ok", False, f) is None
    assert texts.claim_note([], f) is None


# ----- for translators -----


@cache
def _extracted_here() -> set[str]:
    found: set[str] = set()
    for path in sorted(TEXTS_DIR.glob("*.py")):
        for _, msgid, _, _ in extract_from_file("python", str(path), keywords=KEYWORDS):
            found.add(msgid if isinstance(msgid, str) else msgid[0])
    return found


@cache
def _template() -> dict[str, set[str]]:
    """Each msgid of the committed template, with the files it was found in."""
    with template_path().open("rb") as fileobj:
        catalog = read_po(fileobj)
    return {
        (m.id if isinstance(m.id, str) else m.id[0]): {f for f, _ in m.locations}
        for m in catalog
        if m.id
    }


def test_every_msgid_of_the_old_text_modules_is_extracted_from_this_package() -> None:
    here = (TEXTS_DIR.relative_to(REPO)).as_posix()
    wanted = {
        msgid
        for msgid, files in _template().items()
        if any(f in OLD_TEXT_FILES or f.startswith(here) for f in files)
        and msgid not in NOT_TEXTS
        and not msgid.startswith(OLD_HELP_STARTS)
    }
    assert len(wanted) > 380
    assert sorted(wanted - _extracted_here()) == []


def test_this_package_adds_only_the_help_msgids_to_the_catalogues() -> None:
    assert sorted(_extracted_here() - set(_template()) - NEW_MSGIDS) == []


def test_every_translated_call_names_its_msgid_where_the_extractor_sees_it() -> None:
    """``fmt.t``/``fmt.n`` take a literal, a msgid marked with ``N_`` elsewhere in the
    package (a name, a lookup), or ruleset data (an attribute); ``N_`` always takes a
    literal. The one expression is a chat sentence cut at its first placeholder."""
    calls = 0
    for path in sorted(TEXTS_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name == "N_":
                assert isinstance(node.args[0], ast.Constant), ast.unparse(node)
            elif name in ("t", "n") and node.args:
                calls += 1
                ids = node.args[:2] if name == "n" else node.args[:1]
                for msgid in ids:
                    ok = isinstance(
                        msgid, ast.Constant | ast.Name | ast.Attribute | ast.Subscript | ast.Call
                    )
                    ok = ok or ast.unparse(msgid) == "msgid.split('{')[0].strip() or msgid"
                    assert ok, f"{path.name}: {ast.unparse(node)}"
    assert calls > 200


# ----- the package's shape -----

OLD_MODULES = (
    "messages",
    "notices_play",
    "errors_text",
    "text_parts",
    "views",
    "botnet_text",
    "outgoing",
    "checks",
    "review",
    "endgame",
    "actions",
    "service",
    "botnet",
)


def test_the_package_is_pure_and_stands_on_its_own() -> None:
    allowed_store = {"hideseek_chat.store.checks"}
    for path in sorted(TEXTS_DIR.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert len(source.splitlines()) <= 500, path.name
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module
                names = [f"{module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                module = node.names[0].name
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in [module, *names]:
                for old in OLD_MODULES:
                    assert not name.startswith(f"hideseek_chat.chat.{old}"), (path.name, name)
            if module.startswith("hideseek_chat.store"):
                assert module in allowed_store, (path.name, module)
            assert not module.startswith(("sqlalchemy", "hideseek_chat.telegram")), path.name
