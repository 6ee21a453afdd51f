"""The SMS channel's pure parts: numbers, segments, numbered choices, keywords."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hideseek_chat.chat.model import Button
from hideseek_chat.chat.parsing import phone_number as normalize
from hideseek_chat.sms import choices, segments
from hideseek_chat.sms.keywords import Keyword, Parsed, parse


def test_numbers_are_normalized_to_e164_or_refused() -> None:
    assert normalize("+41 79 123 45 67") == "+41791234567"
    assert normalize("079 123 45 67", "CH") == "+41791234567"
    assert normalize("(415) 555-0100", "US") == normalize("+14155550100")
    assert normalize("079 123 45 67") is None  # no country to read it in
    for junk in ("", "abc", "+999", "12", "+4179" + "1" * 40):
        assert normalize(junk) is None


def test_gsm_text_takes_160_per_segment_and_153_when_split() -> None:
    assert segments.segment_count("a" * 160) == 1
    assert segments.segment_count("a" * 161) == 2
    assert segments.segment_count("a" * 306) == 2
    assert segments.segment_count("a" * 307) == 3
    assert segments.segment_count("€" * 80) == 1  # an extension character takes two
    assert segments.segment_count("€" * 81) == 2


def test_ucs2_text_takes_70_per_segment_and_67_when_split() -> None:
    assert not segments.is_gsm("Привет")
    assert segments.segment_count("П" * 70) == 1
    assert segments.segment_count("П" * 71) == 2
    assert segments.segment_count("П" * 134) == 2
    assert segments.segment_count("😀" * 35) == 1  # an emoji is two UTF-16 units


def test_emoji_only_where_ucs2_is_needed_anyway() -> None:
    assert segments.prepare("✅ Radar 1 km: “No” · 3 left 🃏") == 'Radar 1 km: "No" - 3 left'
    assert segments.is_gsm(segments.prepare("👉 Yes… – fine"))
    assert segments.prepare("Привет 🃏") == "Привет 🃏"


def test_long_texts_split_at_words_within_the_cap() -> None:
    text = " ".join(f"word{i}" for i in range(400))
    parts = segments.split(text, max_segments=2, max_messages=20)
    assert all(segments.segment_count(p) <= 2 for p in parts)
    assert " ".join(parts) == text  # cut between words, nothing lost
    capped = segments.split(text, max_segments=1, max_messages=2)
    assert len(capped) == 2 and capped[-1].endswith("...")
    assert all(segments.segment_count(p) == 1 for p in capped)


@given(st.text(max_size=2000), st.integers(1, 5))
def test_split_never_exceeds_its_segments(text: str, cap: int) -> None:
    for part in segments.split(text, max_segments=cap, max_messages=100):
        assert segments.segment_count(part) <= max(cap, 1)


def _units_by_character(text: str) -> int:
    """``segments.units`` spelled out a character at a time (the definition)."""
    if all(ch in segments.GSM_BASIC or ch in segments.GSM_EXTENSION for ch in text):
        return sum(2 if ch in segments.GSM_EXTENSION else 1 for ch in text)
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


_SAMPLES = st.text(
    alphabet=st.sampled_from(
        sorted(segments.GSM_BASIC | segments.GSM_EXTENSION) + list("€“”…é😀👍🏽\u200dЖ中·°")
    )
)


@given(_SAMPLES)
def test_the_fast_counts_agree_with_counting_each_character(text: str) -> None:
    assert segments.units(text) == _units_by_character(text)
    prepared = segments.prepare(text)
    if segments.is_gsm(prepared):  # emoji left out only where the rest is GSM-7
        assert not any(ch in "😀👍🏽\u200d" for ch in prepared)
    else:
        assert any(ch in prepared for ch in "Ж中")


def test_buttons_become_numbered_choices() -> None:
    rows = (
        (Button("👉 Yes", "a:1"), Button("No", "a:2")),
        (Button("Veto", "a:3"), Button("Open chat", private_link=True)),
        (Button("Send location", share_location=True),),
    )
    offered = choices.numbered(rows)
    assert [(o.position, o.label) for o in offered] == [(1, "Yes"), (2, "No"), (3, "Veto")]
    assert choices.render(offered) == "1 Yes · 2 No · 3 Veto"
    long = [choices.Offered(i, "a long label " * 3, "x") for i in range(1, 5)]
    assert choices.render(long).count("\n") == 3


def test_a_reply_picks_by_number_or_words() -> None:
    assert choices.position_in(" 2 ") == 2
    assert choices.position_in("#3") == 3
    assert choices.position_in("2.") == 2
    assert choices.position_in("2 km") is None
    labels = [(1, "Yes, they found me"), (2, "No"), (3, "Veto")]
    assert choices.by_words("no", labels) == 2
    assert choices.by_words("VETO", labels) == 3
    assert choices.by_words("yes", labels) == 1  # the start of one label only
    assert choices.by_words("maybe", labels) is None
    assert choices.by_words("n", labels) is None  # too short to be sure


def test_keywords_in_any_case_with_or_without_a_slash_and_localized() -> None:
    assert parse("NEW small") == parse("/new small").__class__(Keyword.NEW, ("small",), "en")
    assert parse("neu s").keyword == Keyword.NEW and parse("neu s").language == "de"
    assert parse("Nuevo").language == "es"
    assert parse("JOIN k7qx").args == ("k7qx",)
    assert parse("unirse K7QX").keyword == Keyword.JOIN
    for word in ("STOP", "stop", "Stopp", "unsubscribe", "parar"):
        assert parse(word).keyword == Keyword.STOP, word
    assert parse("Stop the clock").keyword == Keyword.TEXT  # a carrier keyword is the whole text
    assert parse("start").keyword == Keyword.START
    assert parse("hilfe").keyword == Keyword.HELP
    assert parse("estado").keyword == Keyword.STATUS


def test_name_is_a_keyword_of_its_own_that_names_no_language_where_languages_share_it() -> None:
    assert parse("NAME Alex Smith") == Parsed(Keyword.NAME, ("Alex", "Smith"), None)
    assert parse("/name Alex").keyword == Keyword.NAME
    assert parse("Nombre Ana") == Parsed(Keyword.NAME, ("Ana",), "es")
    assert parse("nom Alex").keyword == Keyword.TEXT  # no French: just a text
    assert parse("named after the station").keyword == Keyword.TEXT


def test_every_command_of_the_routing_table_works_by_text() -> None:
    from hideseek_chat.chat.routes import COMMANDS

    special = {"newgame", "join", "start", "help", "status", "forgetme"}  # keywords of their own
    for command in COMMANDS:
        if command.name in special:
            continue
        parsed = parse(f"{command.name.upper()} x")
        assert parsed.keyword == Keyword.COMMAND and parsed.name == command.name
    assert parse("ask radar 1km").args == ("radar", "1km")
    assert parse("36.1, -97.0").keyword == Keyword.TEXT
    assert parse("x" * 400).keyword == Keyword.TEXT
