"""``hideseek-chat console`` (type as any player) and ``hideseek-chat simulate`` (replay a script).

Both play at a ``Table`` on the real conversation, engine and store, with simulated time
that only moves with ``wait`` (or a script's ``at``), and print each chat's new lines.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from hideseek_chat.chat.map_clients import MapClients
from hideseek_chat.console.session import DEFAULT_START, open_session
from hideseek_chat.console.steps import (
    HELP,
    StepError,
    check_name,
    parse_line,
    perform,
    read_script,
)
from hideseek_chat.console.table import Table
from hideseek_chat.console.transcript import CONSOLE_ZONE, Transcript

Write = Callable[[str], None]


def prompted(read: Callable[[str], str]) -> Iterator[str]:
    """Lines typed at a terminal, with a prompt, until end of input."""
    while True:
        try:
            yield read("> ")
        except EOFError:
            return
        except KeyboardInterrupt:
            return


def run_console(
    lines: Iterable[str],
    write: Write = print,
    *,
    seed: int | None = None,
    database_url: str | None = None,
    map_clients: MapClients | None = None,
) -> int:
    """Read console lines until ``quit`` or the end; every bad line is a one-line error.
    With ``map_clients``, /map find fetches maps from OpenStreetMap (over the network)."""
    seed = seed if seed is not None else secrets.randbelow(10**6)
    with open_session(seed=seed, database_url=database_url, map_clients=map_clients) as session:
        table = session.table
        transcript = Transcript(table, write, pin_every=None)
        write(
            f"Hide+Seek console (seed {seed}); simulated time "
            f"{table.now.astimezone(CONSOLE_ZONE):%Y-%m-%d %H:%M} ({CONSOLE_ZONE.key})."
            " Type help for the commands; start with: @alice /newgame"
        )
        for raw in lines:
            step = None
            try:
                step = parse_line(raw)
                if step is None:
                    continue
                if step.kind == "quit":
                    break
                if step.kind == "help":
                    write(HELP)
                    continue
                if step.kind == "show":
                    show(table, step.text, write)
                    continue
                perform(table, step)
            except StepError as error:
                write(f"error: {error}")
            except Exception as error:  # a bug in the bot: say so, keep the table going
                write(f"error: the bot failed on that ({type(error).__name__}: {error})")
            transcript.flush(final=True)
            if step is not None and step.kind == "wait":
                write(f"[{table.now.astimezone(CONSOLE_ZONE):%H:%M}] (simulated time)")
    return 0


def show(table: Table, chat: str, write: Write) -> None:
    """Print a whole chat: the group or a person's private chat with the bot."""
    if chat.lower() == "group":
        key = table.group
    else:
        person = table.people.get(check_name(chat).lower())
        if person is None:
            raise StepError(f"nobody called {chat!r} is at the table")
        key = person.ref
    printer = Transcript(table, write, pin_every=None, show_status=True)
    lines = [line for line in table.lines if line.chat == key]
    if not lines:
        write(f"({chat} is empty)")
    for line in lines:
        printer.print_line(line)


def run_simulate(
    path: Path,
    write: Write = print,
    error: Write = print,
    *,
    seed: int | None = None,
    database_url: str | None = None,
) -> int:
    """Replay a JSON-lines script; 2 for a malformed script, 1 if a step cannot be done."""
    try:
        script = read_script(path)
    except StepError as problem:
        error(f"{path}: {problem}")
        return 2
    seed = seed if seed is not None else (script.seed if script.seed is not None else 1)
    start = script.start or DEFAULT_START
    with open_session(seed=seed, start=start, database_url=database_url) as session:
        table = session.table
        transcript = Transcript(table, write, pin_every=None)
        for number, step in script.steps:
            try:
                perform(table, step, files=path.parent)
            except StepError as problem:
                transcript.flush(final=True)
                error(f"{path}: line {number}: {problem}")
                return 1
            transcript.flush()
        transcript.flush(final=True)
    return 0
