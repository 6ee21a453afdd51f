"""The bounds every inbound value is held to before a handler sees it.

A channel hands over what its platform allows, but a forged update, another channel or a
bug may hand over more: a name of a thousand characters (a botnet seat's column holds 128),
a text longer than any message, a caption longer than any caption. ``bounded`` cuts each to
what the platform itself would allow, so that no handler, column or message template meets
a value larger than a person could send. Values with a meaning (coordinates, distances,
numbers in button data) are checked where they are read, with a refusal of their own.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from hideseek_chat.chat.model import CommandIn, FileIn, Inbound, PhotoIn, Sender, TextIn

#: A person's name as the group knows them (Telegram: a first name of at most 64).
MAX_NAME = 64
#: A message (Telegram's limit for a text).
MAX_TEXT = 4096
#: A photo's caption (Telegram's limit).
MAX_CAPTION = 1024
#: A file's name (most file systems).
MAX_FILENAME = 255
#: A command's name.
MAX_COMMAND = 64


def bounded(msg: Inbound) -> Inbound:
    """``msg`` with every free text cut to the size its platform allows."""
    sender = _sender(msg.sender)
    if sender != msg.sender:
        msg = replace(msg, sender=sender)
    if isinstance(msg, TextIn) and len(msg.text) > MAX_TEXT:
        return replace(msg, text=msg.text[:MAX_TEXT])
    if isinstance(msg, CommandIn):
        args, length = [], len(msg.name)
        for arg in msg.args:
            length += len(arg) + 1
            if length > MAX_TEXT:
                break
            args.append(arg)
        if len(args) < len(msg.args) or len(msg.name) > MAX_COMMAND:
            return replace(msg, name=msg.name[:MAX_COMMAND], args=tuple(args))
    if isinstance(msg, PhotoIn) and len(msg.caption) > MAX_CAPTION:
        return replace(msg, caption=msg.caption[:MAX_CAPTION])
    if isinstance(msg, FileIn) and len(msg.filename) > MAX_FILENAME:
        return replace(msg, filename=msg.filename[-MAX_FILENAME:])  # keep the extension
    return msg


def _sender(sender: Sender) -> Sender:
    """A name on one line, without control characters, at most ``MAX_NAME`` long."""
    name = sender.name
    if len(name) <= MAX_NAME and name.isprintable() and len(sender.username or "") <= MAX_NAME:
        return sender
    printable = "".join(c if unicodedata.category(c)[0] != "C" else " " for c in name)
    name = " ".join(printable.split())[:MAX_NAME].strip() or sender.ref
    username = (sender.username or "")[:MAX_NAME] or None
    return replace(sender, name=name, username=username)
