"""Printing a table's chats as a readable transcript with simulated timestamps.

::

    [09:31] group             Alice: /ask radar 1km
    [09:31] → Bob (private)   bot: ❓ A question for you: Radar 1 km. ...
                              [Yes] [👉 No]
    [09:32] → Bob (private)   Bob pressed [👉 No]

Live-location updates are many; by default a person's run of updates in a chat prints
every ``pin_every`` of game time and right before anything else is said, so the
transcript shows where people are when it matters without a line per minute.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta, tzinfo
from zoneinfo import ZoneInfo

from hideseek_chat.chat.model import STATUS_SLOT
from hideseek_chat.console.table import Line, Table

Write = Callable[[str], None]

#: The console's games play on the Stillwater map by default: their transcripts read its
#: clock, as its players do (``tests/console`` checks it is the map's zone).
CONSOLE_ZONE = ZoneInfo("America/Chicago")


def button_rows(line: Line) -> str:
    """``[Yes] [👉 No] | [Null]``: a line's buttons, rows separated by bars."""
    rows = [" ".join(f"[{b.label}]" for b in row) for row in line.buttons if row]
    return " | ".join(rows)


@dataclass
class Transcript:
    """Prints the lines of ``table`` it has not printed yet, in order."""

    table: Table
    write: Write
    #: None prints every live-location update
    pin_every: timedelta | None = timedelta(minutes=5)
    #: toast texts not worth a mention (the plain acknowledgement of a press)
    quiet_toasts: frozenset[str] = frozenset({"Done."})
    show_status: bool = False
    #: the zone of the timestamps
    time_zone: tzinfo = CONSOLE_ZONE
    printed: int = 0  # the id of the newest line looked at
    _held: dict[tuple[str, str], Line] = field(default_factory=dict)
    _last_pin: dict[tuple[str, str], Line] = field(default_factory=dict)
    _width: int = 0

    def chat_label(self, chat: str) -> str:
        if chat == self.table.group:
            return "group"
        for person in self.table.people.values():
            if person.ref == chat:
                return f"→ {person.name} (private)"
        return chat

    def flush(self, *, final: bool = False) -> None:
        """Print what is new; ``final`` also prints the held live-location updates."""
        for line in self.table.lines:
            if line.id <= self.printed:
                continue
            self.printed = line.id
            if line.slot == STATUS_SLOT and not self.show_status:
                continue
            if line.kind == "live" and self.pin_every is not None:
                key = (line.chat, line.author)
                last = self._last_pin.get(key)
                if last is not None and line.at - last.at < self.pin_every:
                    self._held[key] = line
                    continue
                self._held.pop(key, None)
                self.release()  # older updates first, so that times never go backwards
                self._last_pin[key] = line
                self.print_line(line)
                continue
            self.release()
            self.print_line(line)
        if final:
            self.release()

    def release(self) -> None:
        """Print the held live-location updates (each person's newest)."""
        for key, line in sorted(self._held.items(), key=lambda item: item[1].id):
            self._last_pin[key] = line
            self.print_line(line)
        self._held.clear()

    def print_line(self, line: Line) -> None:
        self.write(self.format(line))

    def format(self, line: Line) -> str:
        label = self.chat_label(line.chat)
        widest = max((len(f"→ {p.name} (private)") for p in self.table.people.values()), default=0)
        self._width = max(self._width, len(label), widest)
        head = f"[{line.at.astimezone(self.time_zone):%H:%M}] {label:<{self._width}}  "
        pad = " " * len(head)
        if line.kind == "press":
            text = f"{line.author} pressed [{line.text}]"
            if line.toast and line.toast not in self.quiet_toasts:
                text += f" — {line.toast}"
        else:
            body = line.text
            if line.author == "bot" and line.photo_ref:
                body = f"🖼 {line.photo_ref}\n{body}" if body else f"🖼 {line.photo_ref}"
            if line.kind == "live":
                body = body.replace("📍", "📍 live", 1)
            if line.note:
                body = f"{body} ({line.note})"
            author = f"{line.author} (edited)" if line.edit_of else line.author
            text = f"{author}: {body}"
        if line.deleted:
            text += " [deleted]"
        out = [head + text.split("\n")[0]]
        out.extend(pad + rest if rest else "" for rest in text.split("\n")[1:])
        if line.buttons:
            out.append(pad + button_rows(line))
        return "\n".join(out)
