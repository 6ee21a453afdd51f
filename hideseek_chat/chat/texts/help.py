"""The /help text, built from the commands the routing table passes in.

Each section is a heading msgid and its commands, each a name and a description msgid
(the same descriptions a channel's command menu shows); notes follow after a blank line.
Every msgid is marked with ``N_`` where it is written and translated here.
"""

from __future__ import annotations

from collections.abc import Sequence

from hideseek_chat.chat.i18n import N_, Formatter

#: A heading msgid and its commands: ``(name, description msgid)``.
HelpSection = tuple[str, Sequence[tuple[str, str]]]

HELP_TITLE = N_("🕵️ Hide+Seek referee — commands")
IN_GROUP = N_("In the group:")
IN_PRIVATE = N_("In our private chat:")
ANYWHERE = N_("Anywhere:")
LOCATION_NOTE = N_(
    "Share your live location: seekers in the group or in our private chat, the hider only "
    "in our private chat."
)
LANGUAGE_NOTE = N_(
    "The admin chooses the language I speak in the group; each of you chooses your own in "
    "our private chat with /language."
)
#: The notes under the commands unless the caller gives others.
HELP_NOTES = (LOCATION_NOTE, LANGUAGE_NOTE)
#: Where the other chat's commands are, under the group's /help and the private chat's.
FROM_GROUP_NOTE = N_(
    "Send /help in our private chat for what you can do there (your hand, typed answers, /track)."
)
FROM_PRIVATE_NOTE = N_("Send /help in the game's group for the group's commands.")


def command_line(name: str, description: str, fmt: Formatter) -> str:
    """One command as /help lists it: ``/join — join the game``."""
    return f"/{name} — {fmt.t(description)}"


def help_text(
    sections: Sequence[HelpSection], fmt: Formatter, notes: Sequence[str] = HELP_NOTES
) -> str:
    """The /help text: the title, each section's heading and commands, then ``notes``.

    A section without commands is left out.
    """
    lines = [fmt.t(HELP_TITLE)]
    for heading, commands in sections:
        if not commands:
            continue
        lines.append(fmt.t(heading))
        lines.extend(command_line(name, description, fmt) for name, description in commands)
    text = "\n".join(lines)
    if notes:
        text += "\n\n" + "\n".join(fmt.t(note) for note in notes)
    return text
