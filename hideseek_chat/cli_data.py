"""``hideseek-chat erase USER`` and ``hideseek-chat export GAME``: a person's right to erasure
and a game's history, for the person running the bot."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hideseek_chat.config import Config, ConfigError

#: A person as the store names them: a channel, a colon, the channel's id (``tg:42``).
PERSON_REF = re.compile(r"[a-z]{2,10}:[A-Za-z0-9_+\-]{1,64}")


def person_ref(text: str) -> str:
    """``tg:42`` as given, a Telegram user id (``42``) as ``tg:42``, or a phone number
    (``+41 79 123 45 67``: an SMS player, found in the store when erasing) as given."""
    word = text.strip()
    if word.startswith("+"):
        return word
    if word.isascii() and word.isdigit():
        return f"tg:{int(word)}"
    if PERSON_REF.fullmatch(word):
        return word
    raise argparse.ArgumentTypeError(
        f"not a person: {text!r} (a Telegram user id such as 42, a ref such as tg:42, "
        "or a phone number such as +41791234567)"
    )


def _game_id(text: str) -> int:
    if text.strip().isascii() and text.strip().isdigit() and int(text) > 0:
        return int(text)
    raise argparse.ArgumentTypeError(f"not a game number: {text!r}")


@contextmanager
def _store(config: Config) -> Iterator[Callable[[], Any]]:
    """The unit-of-work factory of the configured database, migrated first."""
    from hideseek_chat.store import make_engine, migrate, unit_of_work_factory

    url = config.effective_database_url
    migrate.upgrade(url)
    engine = make_engine(url)
    try:
        yield unit_of_work_factory(engine)
    finally:
        engine.dispose()


def e164(raw: str, region: str | None) -> str:
    """A phone number as E.164 (``+41791234567``), the form the store keeps."""
    from hideseek_chat.chat.parsing import phone_number

    number = phone_number(raw, region)
    if number is None:
        raise ConfigError(f"not a valid phone number: {raw!r}")
    return number


def _erase(args: argparse.Namespace, config: Config) -> int:
    from hideseek_chat.store import delete_player_data

    user = args.user
    with _store(config) as uow_factory:
        if user.startswith("+"):
            # Never printed: the number is named by the ref the store gave it.
            with uow_factory() as uow:
                region = config.sms.region if config.sms is not None else None
                known = uow.sms.number(e164(user, region), datetime.now(UTC), create=False)
            if known is None:
                print("nothing is stored about that number")
                return 0
            user = known.ref
        erasure = delete_player_data(uow_factory, user)
    if not (erasure.players or erasure.botnet_seats or erasure.people or erasure.numbers):
        print(f"nothing is stored about {user}")
        return 0
    print(
        f"erased {user}: {erasure.players} game membership(s) made nameless, "
        f"{erasure.pings} location ping(s) deleted, {erasure.events} event(s) and "
        f"{erasure.messages} message(s) struck, {erasure.botnet_seats} botnet seat(s), "
        f"{erasure.people} contact record(s), {erasure.numbers} phone number(s) deleted"
    )
    return 0


def _export(args: argparse.Namespace, config: Config) -> int:
    from hideseek_chat.store import GameNotFound
    from hideseek_chat.store.export import export_game

    with _store(config) as uow_factory:
        try:
            data = export_game(uow_factory, args.game)
        except GameNotFound:
            raise ConfigError(f"there is no game {args.game} in the database.") from None
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    path = Path(args.output)
    # It names the players and may hold their places: readable by its owner only.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(text)
    print(f"wrote game {args.game} ({len(data['events'])} events) to {path}", file=sys.stderr)
    return 0


def add_data_commands(commands: Any) -> None:
    """Add ``erase`` and ``export`` to the ``hideseek-chat`` subcommands."""
    erase = commands.add_parser(
        "erase",
        help="erase a person from every game (names, pings, their place in the event log)",
    )
    erase.add_argument(
        "user",
        type=person_ref,
        help="a Telegram user id (42), a person ref (tg:42) or an SMS player's number (+41…)",
    )
    erase.set_defaults(handler=_erase)
    export = commands.add_parser(
        "export", help="write a game's metadata, players and events as JSON"
    )
    export.add_argument("game", type=_game_id, help="the game's number")
    export.add_argument(
        "-o", "--output", help="a file to write (made readable by you only); default stdout"
    )
    export.set_defaults(handler=_export)
