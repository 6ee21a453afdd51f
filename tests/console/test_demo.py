"""The demo plays a whole game through the real conversation, engine and store."""

from __future__ import annotations

import os
import re
from functools import cache

import pytest

from hideseek_chat.cli import main
from hideseek_chat.console.demo import run_demo
from hideseek_chat.console.demo_players import RoundSecret
from hideseek_chat.console.demo_script import DemoResult
from hideseek_chat.rules.ruleset import Category
from tests.conftest import POSTGRES_ENV, _postgres_schema_url

SEEDS = (1, 2, 3)


@cache
def demo(seed: int) -> DemoResult:
    return run_demo(seed=seed, write=lambda _: None)


def text_of(result: DemoResult) -> str:
    return "\n".join(result.lines)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_demo_plays_a_whole_game(seed: int) -> None:
    result = demo(seed)
    goals = result.goals
    assert goals.answered == {
        Category.RADAR,
        Category.MATCHING,
        Category.MEASURING,
        Category.PHOTO,
        Category.THERMOMETER,
    }
    assert goals.photo_sent and goals.kept >= 5
    assert goals.curse_cast and goals.curse_cleared and goals.powerup
    assert goals.end_games == goals.catches == len(result.rounds) == 2
    assert goals.game_over and result.winner in ("Alice", "Bob")


@pytest.mark.parametrize("seed", SEEDS)
def test_the_transcript_shows_every_part_of_the_game(seed: int) -> None:
    text = text_of(demo(seed))
    for asked in ("/ask radar ", "/ask matching park", "/ask measuring park", "/ask photo "):
        assert f"group              Bob: {asked}" in text or f"Alice: {asked}" in text
    assert "/ask thermometer 1km" in text and "finished their thermometer" in text
    assert re.search(r"pressed \[🖼|: 🖼 photo-", text), "the photo answer"
    assert re.search(r"pressed \[🃏 [^\]]+\]", text), "a card kept"
    assert "A curse has been cast" in text and "pressed [✅ Curse done]" in text
    assert re.search(r"pressed \[(▶️ (Veto|Randomize|Draw 1|Discard)|🚫 Veto|🎲 Randomize)", text)
    assert text.count("the end game begins") == 2
    assert text.count("pressed [✅ Yes, they found me]") == 2
    assert "Game over!" in text and f"🏆 {demo(seed).winner} wins!" in text
    # every chat is there, with simulated times and buttons
    assert re.search(r"^\[09:00\] group +bot: ", text, re.M)
    assert re.search(r"^\[\d\d:\d\d\] → Alice \(private\) +bot: ", text, re.M)
    assert re.search(r"^\[\d\d:\d\d\] → Bob \(private\) +bot: ", text, re.M)
    assert re.search(r"^ +\[Yes\] \[👉 No\]|^ +\[👉 Yes\] \[No\]", text, re.M)


def test_the_same_seed_prints_the_same_transcript(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["demo", "--seed", "1"]) == 0
    assert capsys.readouterr().out == "\n".join(demo(1).lines) + "\n"
    assert demo(2).lines != demo(1).lines


def secret_fragments(secret: RoundSecret) -> list[str]:
    """The station and every hider pin, as printed and cut to three decimals (~100 m)."""
    found = {secret.station.casefold(), *secret.pins}
    for pin in secret.pins:
        for value in pin.split(", "):
            found.add(value.lstrip("-")[: value.lstrip("-").index(".") + 4])
    return sorted(found)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_group_and_seekers_never_learn_the_hiding_place_before_the_result(seed: int) -> None:
    result = demo(seed)
    checked = 0
    for secret in result.rounds:
        assert secret.station and secret.pins and secret.revealed_after > secret.first_line
        fragments = secret_fragments(secret)
        seeing = {result.group, *(result.refs[name] for name in secret.seekers)}
        hider_chat = result.refs[secret.hider]
        # the hider does see them: the check is not vacuous
        hider_text = "\n".join(
            line.text for line in result.chats if line.chat == hider_chat
        ).casefold()
        assert secret.station.casefold() in hider_text and secret.pins[-1] in hider_text
        for line in [*result.chats, *result.statuses]:
            if not secret.first_line < line.id <= secret.revealed_after:
                continue
            if line.chat not in seeing or line.author != "bot":
                continue
            shown = "\n".join(
                [line.text, *(b.label for row in line.buttons for b in row)]
            ).casefold()
            leaks = [f for f in fragments if f in shown]
            assert not leaks, f"line {line.id} to {line.chat} gives away {leaks}: {line.text}"
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("seed", SEEDS)
def test_the_printed_group_and_seeker_chats_keep_the_secret(seed: int) -> None:
    """The same check on the transcript as printed (every line, not only the bot's)."""
    result = demo(seed)
    entries: list[tuple[str, str]] = []  # (chat label, text with continuation lines)
    for printed in result.lines:
        head = re.match(r"^\[\d\d:\d\d\] (group|→ \w+ \(private\)) +(.*)$", printed)
        if head:
            entries.append((head.group(1), head.group(2)))
        elif entries and printed.startswith(" "):
            entries[-1] = (entries[-1][0], entries[-1][1] + "\n" + printed.strip())
        elif printed.startswith("==="):
            entries.append(("heading", printed))
    rounds = iter(result.rounds)
    secret: RoundSecret | None = None
    for label, text in entries:
        if label == "heading":
            secret = next(rounds)
            continue
        if secret is None or (label != "group" and secret.hider in label):
            continue
        if f"{secret.hider} pressed [✅ Yes, they found me]" in text:
            secret = None  # the result may name the station
            continue
        assert secret.station.casefold() not in text.casefold(), text
        assert not any(pin in text for pin in secret.pins), text


@pytest.mark.postgres
def test_the_demo_on_postgresql_prints_what_it_prints_on_sqlite() -> None:
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"{POSTGRES_ENV} is not set")
    schema = _postgres_schema_url(base)
    url = next(schema)
    try:
        on_postgres = run_demo(seed=1, write=lambda _: None, database_url=url)
    finally:
        next(schema, None)
    assert on_postgres.lines == demo(1).lines


def test_the_demo_speaks_the_language_it_is_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["demo", "--seed", "2", "--size", "s", "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Hide+Seek demo: seed 2, ruleset metric, small game")
    assert "Alice: /settings" in out and "Alice pressed [Deutsch]" in out
    assert out.rstrip().splitlines()[-1].startswith("Demo over: 2 rounds;")
    assert "2 end games, 2 catches" in out


def test_the_demo_refuses_an_unknown_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--ruleset", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--size", "XL"], "not a game size"), (["--lang", "fr"], "no such language")],
)
def test_the_demo_refuses_bad_options(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["demo", *args])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
