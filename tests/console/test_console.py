"""The interactive console and ``simulate``: reading lines and scripts, playing them."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

from hideseek_chat.cli import main
from hideseek_chat.console.repl import run_console, run_simulate
from hideseek_chat.console.steps import Step, StepError, parse_line, parse_script, parse_span

DOCS = Path(__file__).resolve().parents[2] / "docs" / "console.md"


# ----------------------------------------------------------------- console lines


@pytest.mark.parametrize(
    ("line", "step"),
    [
        ("@alice /ask radar 1km", Step("say", "alice", text="/ask radar 1km")),
        ("@bob private /hand", Step("say", "bob", private=True, text="/hand")),
        ("@bob pin 36.12,-97.06", Step("pin", "bob", lat=36.12, lon=-97.06)),
        ("@carol live 36.121, -97.061", Step("live", "carol", lat=36.121, lon=-97.061)),
        ("@bob private live 36.1 -97.1", Step("live", "bob", True, lat=36.1, lon=-97.1)),
        ("@bob press Yes, they found me", Step("press", "bob", text="Yes, they found me")),
        ("@bob photo tree.jpg", Step("photo", "bob", True, text="tree.jpg")),
        ("wait 10m", Step("wait", wait=timedelta(minutes=10))),
        ("wait 1h30m", Step("wait", wait=timedelta(hours=1, minutes=30))),
        ("show group", Step("show", text="group")),
        ("help", Step("help")),
        ("quit", Step("quit")),
    ],
)
def test_console_lines_are_read(line: str, step: Step) -> None:
    assert parse_line(line) == step


def test_blank_lines_and_comments_are_nothing() -> None:
    assert parse_line("   ") is None
    assert parse_line("# a note") is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("hello", "unknown command 'hello'"),
        ("alice /join", "unknown command 'alice'"),
        ("@", "not a player name"),
        ("@9lives /join", "not a player name"),
        ("@bob", "what does bob do?"),
        ("@bob private", "what does bob say privately?"),
        ("@bob pin", "not a position"),
        ("@bob pin 36.1", "not a position"),
        ("@bob live north,south", "not a position"),
        ("@bob pin 91,0", "not a position on Earth"),
        ("@bob press", "press what?"),
        ("@bob private press Yes", "does not take 'private'"),
        ("wait", "wait how long?"),
        ("wait soon", "not a duration"),
        ("wait 3d", "not a duration"),
        ("wait 72h", "longer than two days"),
        ("show", "show what?"),
        ("show a b", "show what?"),
    ],
)
def test_bad_console_lines_are_one_clear_error(line: str, message: str) -> None:
    with pytest.raises(StepError) as raised:
        parse_line(line)
    text = str(raised.value)
    assert message in text and "\n" not in text


def test_durations() -> None:
    assert parse_span("+5m") == timedelta(minutes=5)
    assert parse_span("45s") == timedelta(seconds=45)
    assert parse_span("2h") == timedelta(hours=2)


def play(lines: list[str], seed: int = 3) -> list[str]:
    out: list[str] = []
    assert run_console(lines, out.append, seed=seed) == 0
    return out


def test_the_console_plays_and_keeps_going_after_bad_lines() -> None:
    out = play(
        [
            "@alice /newgame small",
            "@bob press Join",
            "nonsense here",
            "@bob pin 95,0",
            "@alice /begin",
            "@bob press No such button",
            "wait 31m",
            "show zed",
            "@alice private /status",
            "quit",
            "@alice /abort",
        ]
    )
    text = "\n".join(out)
    assert out[0].startswith("Hide+Seek console (seed 3)")
    assert "[09:00] group              alice: /newgame small" in text
    assert "bob pressed [Join the game]" in text and "bob joined" in text
    assert "error: unknown command 'nonsense'" in text
    assert "error: not a position on Earth" in text
    assert "error: bob sees no button labelled 'No such button'" in text
    assert "error: nobody called 'zed' is at the table" in text
    assert "seekers, off you go!" in text and "[09:31] (simulated time)" in text
    assert "/abort" not in text, "nothing is read after quit"
    errors = [line for line in out if line.startswith("error:")]
    assert len(errors) == 4 and all("\n" not in e for e in errors)


def test_show_prints_a_whole_chat() -> None:
    out = play(["@alice /newgame", "@bob /join", "show group", "show bob", "help"])
    shown = out[out.index(next(o for o in out if "bob joined" in o)) + 1 :]
    assert any("alice: /newgame" in line for line in shown), "the group so far"
    assert any("→ bob (private)" in line and "/start" in line for line in shown)
    assert any(line.startswith("@NAME TEXT") for line in shown)


def test_a_hider_pin_and_a_live_location_at_the_console() -> None:
    out = play(
        [
            "@alice /newgame",
            "@bob /join",
            "@alice /begin",
            "@alice private live 36.1267,-97.0644",
            "@bob live 36.14,-97.08",
            "@bob private live 36.14,-97.08",
            "wait 30m",
            "@alice private live 36.1267,-97.0644",
        ],
        seed=1,
    )
    text = "\n".join(out)
    hider = "alice" if "Round 1 of 2: alice hides" in text else "bob"
    assert "📍 live 36.12670, -97.06440" in text
    assert f"→ {hider} (private)" in text and "Your zone is set" in text


# ----------------------------------------------------------------- simulate

SCRIPT = [
    {"seed": 7},
    {"who": "alice", "say": "/newgame small"},
    {"who": "bob", "press": "Join"},
    {"who": "alice", "say": "/begin"},
    {"who": "bob", "live": [36.1267, -97.0644], "private": True},
    {"who": "alice", "live": [36.14, -97.08]},
    {"wait": "30m"},
    {"at": "+1m", "who": "alice", "say": "/ask radar 1km"},
    {"at": "09:33", "who": "bob", "press": "No"},
]


def write_script(path: Path, objects: list[object], extra: str = "") -> Path:
    path.write_text("\n".join(json.dumps(o) for o in objects) + "\n" + extra, encoding="utf-8")
    return path


def simulate(path: Path) -> tuple[int, list[str], list[str]]:
    out: list[str] = []
    err: list[str] = []
    return run_simulate(path, out.append, err.append), out, err


def test_simulate_replays_a_script(tmp_path: Path) -> None:
    code, out, err = simulate(write_script(tmp_path / "game.jsonl", SCRIPT))
    text = "\n".join(out)
    assert code == 0 and err == []
    assert "Round 1 of 2: bob hides" in text  # the script's seed
    assert re.search(r"^\[09:31\] group +alice: /ask radar 1km$", text, re.M)
    assert re.search(r"^\[09:33\] → bob \(private\) +bob pressed \[👉 No\]$", text, re.M)
    assert "✅ Radar 1 km: No" in text
    again = simulate(tmp_path / "game.jsonl")[1]
    assert again == out


def test_the_documented_script_replays(tmp_path: Path) -> None:
    block = re.search(r"```json\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert block is not None
    path = tmp_path / "doc.jsonl"
    path.write_text(block.group(1), encoding="utf-8")
    code, out, err = simulate(path)
    assert code == 0 and err == [] and "Into your hand" in "\n".join(out)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("not json", "line 4: not JSON"),
        ("[1, 2]", "line 4: expected a JSON object"),
        ('{"press": "Yes"}', "line 4: 'press' needs 'who'"),
        ('{"who": "bob"}', "line 4: give exactly one of"),
        ('{"who": "bob", "say": "hi", "press": "Yes"}', "line 4: give exactly one of"),
        ('{"who": "bob", "shout": "hi"}', "line 4: unknown key 'shout'"),
        ('{"who": "bob", "live": [36.1]}', "line 4: 'live' must be [lat, lon]"),
        ('{"who": "bob", "pin": [99, 0]}', "line 4: not a position on Earth"),
        ('{"wait": "soon"}', "line 4: not a duration"),
        ('{"wait": "5m", "who": "bob"}', "line 4: 'wait' takes no 'who'"),
        ('{"at": "later", "who": "bob", "say": "hi"}', "line 4: 'at' must be"),
        ('{"who": "bob", "say": "hi", "private": "yes"}', "line 4: 'private' must be true"),
        ('{"who": "bob", "press": "Yes", "private": true}', "line 4: 'press' does not take"),
        ('{"who": "b b", "say": "hi"}', "line 4: not a player name"),
    ],
)
def test_a_malformed_script_names_the_line(tmp_path: Path, bad: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    good = "\n".join(json.dumps(o) for o in SCRIPT[1:3])
    path.write_text(f"{good}\n\n{bad}\n{json.dumps(SCRIPT[3])}\n", encoding="utf-8")
    code, out, err = simulate(path)
    assert code == 2 and out == [], "nothing runs"
    assert err == [f"{path}: {err[0].split(': ', 1)[1]}"] and message in err[0]


def test_a_header_only_comes_first() -> None:
    with pytest.raises(StepError, match="line 2: unknown key 'seed'"):
        parse_script('{"who": "a", "say": "/newgame"}\n{"seed": 3}\n')
    with pytest.raises(StepError, match="line 1: 'start' needs a time zone"):
        parse_script('{"start": "2026-05-02T09:00"}\n')
    script = parse_script('# comment\n{"seed": 3, "start": "2026-05-02T18:00:00Z"}\n')
    assert script.seed == 3 and script.start is not None and script.start.hour == 18


def test_a_step_that_cannot_be_done_stops_with_its_line(tmp_path: Path) -> None:
    path = write_script(tmp_path / "stuck.jsonl", [*SCRIPT[1:3], {"who": "bob", "press": "Nope"}])
    code, out, err = simulate(path)
    assert code == 1 and err == [f"{path}: line 3: bob sees no button labelled 'Nope'"]
    assert any("bob joined" in line for line in out), "what happened before is printed"


def test_the_simulate_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    path = write_script(tmp_path / "game.jsonl", SCRIPT)
    assert main(["simulate", str(path)]) == 0
    assert "✅ Radar 1 km: No" in capsys.readouterr().out
    broken = write_script(tmp_path / "broken.jsonl", SCRIPT[1:2], "{oops\n")
    assert main(["simulate", str(broken)]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"hideseek-chat: {broken}: line 2: not JSON (Expecting property name enclosed in double quotes)"
    )
    assert main(["simulate", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_console_command_reads_piped_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("@alice /newgame\nbogus\n@bob /join\n"))
    assert main(["console", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "(seed 5)" in out and "error: unknown command 'bogus'" in out and "bob joined" in out


def test_the_console_reads_the_clock_of_its_default_map() -> None:
    """The transcript's timestamps are in the zone a game on the Stillwater map gets."""
    from hideseek_chat.console.transcript import CONSOLE_ZONE
    from hideseek_chat.geo import load_map_pack, pack_time_zone

    assert pack_time_zone(load_map_pack("stillwater")) == CONSOLE_ZONE.key
