"""What a person at the console table does, from a typed line or a script's JSON object.

Both ``hideseek-chat console`` and ``hideseek-chat simulate`` turn their input into
``Step`` values and run them at a ``Table``; a line that cannot be read raises
``StepError`` with a one-line message (docs/console.md lists the forms).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hideseek_chat.console.table import ButtonNotFound, Table
from hideseek_chat.console.transcript import CONSOLE_ZONE

#: Things a person does; "wait", "show", "help" and "quit" belong to nobody.
PERSON_KINDS = ("say", "pin", "live", "press", "photo", "upload")

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
_SPAN = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class StepError(ValueError):
    """A line or a step that cannot be read or done; the message says why, in one line."""


@dataclass(frozen=True)
class Step:
    kind: str  # one of PERSON_KINDS, "wait", "show", "help", "quit"
    who: str | None = None
    private: bool = False
    text: str = ""  # what is said, the button label, the photo, the file, the chat to show
    lat: float = 0.0
    lon: float = 0.0
    wait: timedelta | None = None  # for "wait"; or how long to wait before a person's step
    until: tuple[int, int] | None = None  # wait until this time of day (hh, mm) first
    caption: str = ""  # what is written under a photo


# ----------------------------------------------------------------- reading values


def parse_span(text: str) -> timedelta:
    """``10m``, ``1h30m``, ``90s``, ``+5m`` (a leading + is allowed) as a timedelta."""
    raw = text.strip().lstrip("+").lower()
    match = _SPAN.match(raw)
    if not raw or match is None:
        raise StepError(f"not a duration: {text!r} (try 10m, 1h30m or 45s)")
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    span = timedelta(hours=hours, minutes=minutes, seconds=seconds)
    if span > timedelta(days=2):
        raise StepError(f"{text!r} is longer than two days")
    return span


def parse_point(text: str) -> tuple[float, float]:
    """``36.12,-97.06`` or ``36.12 -97.06`` as (lat, lon)."""
    parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
    try:
        if len(parts) != 2:
            raise ValueError
        lat, lon = float(parts[0]), float(parts[1])
    except ValueError:
        raise StepError(f"not a position: {text!r} (try 36.12,-97.06)") from None
    return check_point(lat, lon)


def check_point(lat: float, lon: float) -> tuple[float, float]:
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise StepError(f"not a position on Earth: {lat}, {lon}")
    return lat, lon


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise StepError(f"not a player name: {name!r} (letters, digits, - and _)")
    return name


# ----------------------------------------------------------------- console lines

HELP = """\
@NAME TEXT                 NAME writes TEXT (a /command or chat) in the group
@NAME private TEXT         ... in their private chat with the bot
@NAME pin LAT,LON          NAME shares a location in the group
@NAME live LAT,LON         NAME shares a live location (repeat it to move)
@NAME private live LAT,LON ... with the bot only (also: private pin)
@NAME press LABEL          NAME presses the newest button they see whose label has LABEL
@NAME photo FILE [TEXT]    NAME sends a photo to the bot (private), TEXT under it
@NAME upload FILE          NAME sends a map file (GeoJSON, GTFS zip, KML) to the group
wait 10m                   let time pass (10m, 1h30m, 45s); timers fire on the way
show group | show NAME     print a whole chat so far
help                       this text
quit                       leave"""


def parse_line(line: str) -> Step | None:
    """A console line as a Step; None for a blank line or a ``#`` comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    word, _, rest = text.partition(" ")
    rest = rest.strip()
    lower = word.lower()
    if lower in ("quit", "exit"):
        return Step("quit")
    if lower in ("help", "?"):
        return Step("help")
    if lower == "wait":
        if not rest:
            raise StepError("wait how long? e.g. wait 10m")
        return Step("wait", wait=parse_span(rest))
    if lower == "show":
        if not rest or " " in rest:
            raise StepError("show what? show group, or show NAME")
        return Step("show", text=rest)
    if not word.startswith("@"):
        raise StepError(f"unknown command {word!r}: start with @NAME, wait, show, help or quit")
    who = check_name(word[1:])
    if not rest:
        raise StepError(f"what does {who} do? e.g. @{who} /join")
    private = False
    verb, _, arg = rest.partition(" ")
    if verb.lower() == "private":
        private = True
        rest = arg.strip()
        if not rest:
            raise StepError(f"what does {who} say privately? e.g. @{who} private /hand")
        verb, _, arg = rest.partition(" ")
    verb_l = verb.lower()
    arg = arg.strip()
    if verb_l in ("pin", "live"):
        lat, lon = parse_point(arg)
        return Step(verb_l, who, private, lat=lat, lon=lon)
    if verb_l in ("press", "photo", "upload"):
        if not arg:
            raise StepError(f"{verb_l} what? e.g. @{who} {verb_l} {_EXAMPLES[verb_l]}")
        if private and verb_l != "photo":
            raise StepError(f"{verb_l} does not take 'private'")
        if verb_l == "photo":
            name, _, caption = arg.partition(" ")
            return Step(verb_l, who, True, text=name, caption=caption.strip())
        return Step(verb_l, who, private, text=arg)
    return Step("say", who, private, text=rest)


_EXAMPLES = {"press": "Yes", "photo": "tree.jpg", "upload": "map.geojson"}


# ----------------------------------------------------------------- script objects

_ACTIONS = ("say", "pin", "live", "press", "photo", "upload", "wait")
_KEYS = frozenset(_ACTIONS) | {"at", "who", "private", "caption"}
_HEADER_KEYS = frozenset({"seed", "start"})


@dataclass(frozen=True)
class Script:
    steps: list[tuple[int, Step]]  # (line number, step)
    seed: int | None = None
    start: datetime | None = None


def parse_script(text: str) -> Script:
    """A JSON-lines script; raise StepError naming the first bad line."""
    steps: list[tuple[int, Step]] = []
    seed: int | None = None
    start: datetime | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise StepError(f"line {number}: not JSON ({error.msg})") from None
        if not isinstance(value, dict):
            raise StepError(f"line {number}: expected a JSON object {{...}}")
        try:
            if not steps and value and set(value) <= _HEADER_KEYS:
                seed, start = _header(value)
                continue
            steps.append((number, script_step(value)))
        except StepError as error:
            raise StepError(f"line {number}: {error}") from None
    return Script(steps, seed, start)


def read_script(path: Path) -> Script:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise StepError(f"cannot read {path}: {error}") from None
    return parse_script(text)


def _header(value: dict[str, Any]) -> tuple[int | None, datetime | None]:
    seed = value.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise StepError("'seed' must be a whole number")
    start = None
    if "start" in value:
        try:
            start = datetime.fromisoformat(str(value["start"]).replace("Z", "+00:00"))
        except ValueError:
            raise StepError(f"'start' is not an ISO time: {value['start']!r}") from None
        if start.tzinfo is None:
            raise StepError("'start' needs a time zone, e.g. 2026-05-02T09:00:00Z")
    return seed, start


def script_step(value: dict[str, Any]) -> Step:
    """One script object as a Step."""
    unknown = sorted(set(value) - _KEYS)
    if unknown:
        raise StepError(f"unknown key {unknown[0]!r}")
    actions = [k for k in _ACTIONS if k in value]
    if len(actions) != 1:
        raise StepError(f"give exactly one of {', '.join(_ACTIONS)}")
    action = actions[0]
    wait: timedelta | None = None
    until: tuple[int, int] | None = None
    if "at" in value:
        at = value["at"]
        if not isinstance(at, str):
            raise StepError('\'at\' must be a string like "+5m" or "09:35"')
        clock = _CLOCK.match(at.strip())
        if clock:
            until = (int(clock.group(1)), int(clock.group(2)))
        elif at.strip().startswith("+"):
            wait = parse_span(at)
        else:
            raise StepError(f'\'at\' must be "+DURATION" or "HH:MM", not {at!r}')
    private = value.get("private", action == "photo")
    if not isinstance(private, bool):
        raise StepError("'private' must be true or false")
    if action == "wait":
        if "who" in value or "private" in value:
            raise StepError("'wait' takes no 'who' or 'private'")
        span = value["wait"]
        if not isinstance(span, str):
            raise StepError("'wait' must be a string like \"10m\"")
        return Step("wait", wait=parse_span(span) + (wait or timedelta()), until=until)
    who = value.get("who")
    if not isinstance(who, str):
        raise StepError(f"'{action}' needs 'who' (a player name)")
    check_name(who)
    arg = value[action]
    if action in ("pin", "live"):
        if (
            not isinstance(arg, list)
            or len(arg) != 2
            or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in arg)
        ):
            raise StepError(f"'{action}' must be [lat, lon]")
        lat, lon = check_point(float(arg[0]), float(arg[1]))
        return Step(action, who, private, lat=lat, lon=lon, wait=wait, until=until)
    if not isinstance(arg, str) or not arg.strip():
        raise StepError(f"'{action}' must be a non-empty string")
    if action in ("press", "upload") and private:
        raise StepError(f"'{action}' does not take 'private'")
    caption = value.get("caption", "")
    if not isinstance(caption, str) or (caption and action != "photo"):
        raise StepError("'caption' is a string, and only for a photo")
    return Step(action, who, private, text=arg, wait=wait, until=until, caption=caption)


# ----------------------------------------------------------------- doing it


def perform(table: Table, step: Step, *, files: Path | None = None) -> None:
    """Do a person's step, or a wait, at ``table``; raise StepError if it cannot be done."""
    if step.until is not None:
        # A clock time is read as the transcript shows it: the console's zone, DST-aware.
        hour, minute = step.until
        local = table.now.astimezone(CONSOLE_ZONE)
        day = local.date()
        target = datetime(day.year, day.month, day.day, hour, minute, tzinfo=CONSOLE_ZONE)
        if target < local:
            day += timedelta(days=1)
            target = datetime(day.year, day.month, day.day, hour, minute, tzinfo=CONSOLE_ZONE)
        table.wait(target.astimezone(UTC) - table.now)
    if step.kind == "wait":
        if step.wait:
            table.wait(step.wait)
        return
    if step.wait:
        table.wait(step.wait)
    assert step.who is not None
    who = step.who
    if step.kind == "say":
        table.send(who, step.text, private=step.private)
    elif step.kind in ("pin", "live"):
        table.pin(who, step.lat, step.lon, live=step.kind == "live", private=step.private)
    elif step.kind == "press":
        try:
            table.press(who, step.text)
        except ButtonNotFound:
            raise StepError(f"{who} sees no button labelled {step.text!r}") from None
    elif step.kind == "photo":
        table.photo(who, step.text, private=step.private, caption=step.caption)
    elif step.kind == "upload":
        path = (files or Path.cwd()) / step.text
        try:
            content = path.read_bytes()
        except OSError as error:
            raise StepError(f"cannot read {path}: {error.strerror}") from None
        table.upload(who, path.name, content)
    else:
        raise StepError(f"{step.kind} is not something a person does")
