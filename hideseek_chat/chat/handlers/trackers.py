"""``/tracker`` in private: a personal secret link for a GPS tracker app, with set-up steps
for OwnTracks (its set-up link also as a QR code), Traccar Client and GPSLogger;
``/tracker off`` and ``/tracker reset`` (or the buttons) revoke it.

The store keeps only the link's fingerprint (``store.trackers``), so a link is shown once,
when it is made; asking again offers a new one. The pings themselves arrive through the
web server (``web.trackers``) as ``TrackerIn`` and are pins like a live location's
(``handlers.pins.tracker``).
"""

from __future__ import annotations

from hideseek_chat.chat import keyboards, texts, tracker_links
from hideseek_chat.chat.keyboards import Press, Verb
from hideseek_chat.chat.model import Button, Outbound, SendText
from hideseek_chat.chat.turn import Turn
from hideseek_chat.pictures.qr import qr_png

Args = tuple[str, ...]

#: The buttons' argument: a new link, or the link off.
RESET, OFF = "r", "o"


def tracker_command(turn: Turn, args: Args) -> list[Outbound]:
    """``/tracker [off|reset]``: make a link (or offer a new one), or revoke it."""
    word = args[0].lower() if args else ""
    if word == "off":
        return _off(turn)
    if turn.services.tracker_url is None:
        return [turn.reply(turn.say("chat.tracker_unavailable"))]
    if word in ("reset", "new"):
        return _issue(turn)
    existing = turn.uow.trackers.active(turn.by)
    if existing is None:
        return _issue(turn)
    age = None if existing.last_heard_at is None else (turn.msg.at - existing.last_heard_at)
    heard = texts.heard_text(
        existing.last_app, None if age is None else age.total_seconds(), turn.fmt
    )
    return [turn.reply(turn.say("chat.tracker_exists", heard=heard), _buttons(turn))]


def press(turn: Turn, pressed: Press) -> list[Outbound]:
    """The screen's buttons: a new link, or the link off."""
    if pressed.args[:1] == (OFF,):
        return _off(turn)
    if turn.services.tracker_url is None:
        return [turn.reply(turn.say("chat.tracker_unavailable"))]
    return _issue(turn)


def _issue(turn: Turn) -> list[Outbound]:
    """A new link (the old one revoked): the steps, then OwnTracks' set-up as a QR code."""
    base = turn.services.tracker_url
    assert base is not None
    token = turn.uow.trackers.issue(turn.by, turn.msg.at)
    turn.wrote()
    links = tracker_links.links(base, token)
    steps = texts.tracker_text(links, turn.fmt)
    off = ((keyboards.button(turn.say("chat.tracker_off_button"), Verb.TRACKER, 0, OFF),),)
    # By text there is no picture: the link alone, said so.
    shown = "chat.tracker_setup_link" if turn.fmt.by_text else "chat.tracker_qr"
    code = SendText(
        turn.msg.chat,
        text=turn.say(shown),
        image=qr_png(links.owntracks_setup),
        pre=links.owntracks_setup,
        private=True,
    )
    return [SendText(turn.msg.chat, text=steps, buttons=off, private=True), code]


def _off(turn: Turn) -> list[Outbound]:
    if not turn.uow.trackers.revoke(turn.by, turn.msg.at):
        return [turn.reply(turn.say("chat.tracker_none"))]
    turn.wrote()
    return [turn.reply(turn.say("chat.tracker_off"))]


def _buttons(turn: Turn) -> tuple[tuple[Button, ...], ...]:
    return (
        (
            keyboards.button(turn.say("chat.tracker_new_button"), Verb.TRACKER, 0, RESET),
            keyboards.button(turn.say("chat.tracker_off_button"), Verb.TRACKER, 0, OFF),
        ),
    )
