"""``hideseek-chat demo``: two scripted players play a whole game on the Stillwater map.

Everything goes through the real conversation, engine and store, at a ``Table``: the
players type commands, share live locations, press buttons and send photos, and the
simulated clock fires the game's timers. The script plays like people would: the hider
rides along real streets to a station during the hiding period, the seekers ride and walk
towards the zone, and every decision is read off the game as the players would see it
(their hand, the buttons under the bot's messages).

It adapts to the deck the seed deals: the hider keeps a curse it can cast and clear, and
a powerup it can play, when they are offered (otherwise the best time bonus), and the
seekers keep asking questions until both were seen, in either round. The same seed
prints the same transcript: the game's seed, the start time and every choice are fixed.

This module opens the session and runs the demo. The players and what they see are in
``demo_players``, their card play in ``demo_cards``, the game script and its result in
``demo_script``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.texts import say
from hideseek_chat.console.demo_script import Demo, DemoResult
from hideseek_chat.console.session import DEFAULT_START, open_session
from hideseek_chat.rules.ruleset import Size


def run_demo(
    *,
    seed: int = 1,
    ruleset: str = "metric",
    size: Size = Size.SMALL,
    lang: str | None = None,
    write: Callable[[str], None] = print,
    database_url: str | None = None,
    rulesets_dirs: tuple[Path, ...] = (),
    start: datetime = DEFAULT_START,
) -> DemoResult:
    """Play the demo game and print its transcript with ``write``."""
    with open_session(
        seed=seed, start=start, database_url=database_url, rulesets_dirs=rulesets_dirs
    ) as session:
        demo = Demo(session, seed=seed, ruleset=ruleset, size=size, lang=lang, write=write)
        if lang:
            demo.transcript.quiet_toasts = frozenset(
                {"Done.", say("chat.done", {}, Formatter(lang))}
            )
        return demo.run()
