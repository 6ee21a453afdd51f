"""Speaking to one chat: gettext translation plus numbers, distances, times and names.

Every sentence the bot shows is a gettext msgid (English) with ``{name}`` placeholders,
translated and then filled by ``Formatter.t``. Mark msgids with ``N_`` where they are
defined away from the call that translates them, so ``pybabel extract -k N_ -k t`` finds them.
"""

from __future__ import annotations

import gettext
import io
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.numbers import format_decimal

from hideseek_chat.rules.localtime import UTC_NAME, fixed_offset_min, is_time_zone, zone_info
from hideseek_chat.rules.ruleset import Ruleset

DOMAIN = "hideseek_chat"
LANGUAGES = ("en", "de", "es")
UNITS = ("metric", "imperial")
METRES_PER_MILE = 1609.344
METRES_PER_FOOT = 0.3048


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction; it is translated where it is shown."""
    return msgid


def checkout_locales() -> Path | None:
    """The checkout's ``locales/`` (the ``.po`` sources) when running from a checkout."""
    here = Path(__file__).resolve()
    candidate = here.parents[2] / "locales"
    return candidate if (candidate / f"{DOMAIN}.pot").is_file() else None


def package_locales() -> Path:
    """Where a built package keeps its compiled ``.mo`` files (``setup.py`` puts them there)."""
    return Path(__file__).resolve().parents[1] / "locales"


def compile_po(path: Path) -> bytes:
    """The ``.mo`` bytes of the catalogue at ``path``; fuzzy entries are left out."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as fileobj:
        catalog = read_po(fileobj, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def supported_language(tag: str | None) -> str | None:
    """The shipped language an IETF tag names (``de-AT`` -> ``de``), or None."""
    if not tag:
        return None
    primary = tag.replace("_", "-").split("-", 1)[0].lower()
    return primary if primary in LANGUAGES else None


def language_name(language: str) -> str:
    """A language's own name for itself: ``English``, ``Deutsch``, ``Español``."""
    name = Locale.parse(language).get_display_name(language) or language
    return name[:1].upper() + name[1:]


@lru_cache(maxsize=16)
def translations(language: str) -> gettext.NullTranslations:
    """The catalogue for ``language``; English msgids when there is none.

    In a checkout the ``.po`` file is compiled in memory on first use, so a test run or an
    editable install always speaks the catalogue as committed; an installed package reads
    the ``.mo`` compiled when it was built.
    """
    if language == "en":
        return gettext.NullTranslations()
    source = checkout_locales()
    if source is not None:
        po = source / language / "LC_MESSAGES" / f"{DOMAIN}.po"
        if po.is_file():
            return gettext.GNUTranslations(io.BytesIO(compile_po(po)))
    try:
        return gettext.translation(DOMAIN, package_locales(), languages=[language])
    except FileNotFoundError:
        return gettext.NullTranslations()


def offset_text(offset_min: int) -> str:
    """An offset from UTC as people write it: ``UTC``, ``UTC+2``, ``UTC−5:30``."""
    if offset_min == 0:
        return "UTC"
    sign = "+" if offset_min > 0 else "−"
    hours, mins = divmod(abs(offset_min), 60)
    return f"UTC{sign}{hours}" + (f":{mins:02d}" if mins else "")


class Formatter:
    """How to say things in one chat: its language, its units and its clock."""

    def __init__(
        self,
        language: str = "en",
        units: str = "metric",
        time_zone: str = UTC_NAME,
        ruleset: Ruleset | None = None,
        now: datetime | None = None,
        *,
        by_text: bool = False,
        trackers: bool = False,
    ) -> None:
        self.language = language if language in LANGUAGES else "en"
        #: the reader plays by text message (SMS): no buttons, no attachment menu, so how
        #: to send a location is said differently
        self.by_text = by_text
        #: the bot hands out tracker links (``/tracker``): a prompt by text may name them
        self.trackers = trackers
        self.units = units if units in UNITS else "metric"
        self.time_zone = time_zone if is_time_zone(time_zone) else UTC_NAME
        self.zone = zone_info(self.time_zone)
        #: the moment the message is about: a zone's name is shown with its offset then
        self.now = now
        self.ruleset = ruleset
        self.locale = Locale.parse(self.language)
        self._tr = translations(self.language)

    # ----- sentences -----

    def t(self, msgid: str, **params: Any) -> str:
        """Translate ``msgid`` and fill its ``{placeholders}`` with ``params``."""
        text = self._tr.gettext(msgid)
        return text.format(**params) if params else text

    def n(self, singular: str, plural: str, count: int, **params: Any) -> str:
        """Translate with the plural form for ``count`` (also available as ``{count}``)."""
        text = self._tr.ngettext(singular, plural, count)
        return text.format(count=count, **params)

    # ----- values -----

    def number(self, value: float, digits: int = 1) -> str:
        pattern = "#,##0" + ("." + "#" * digits if digits else "")
        return str(format_decimal(value, format=pattern, locale=self.locale))

    def distance(self, metres: float) -> str:
        """A distance in the chat's units: ``350 m``, ``1.2 km``, ``500 ft``, ``0.8 mi``."""
        if self.units == "imperial":
            miles = metres / METRES_PER_MILE
            if miles >= 0.1:
                return self._unit(miles, "mi", 2 if miles < 10 else 1)
            return self._unit(round(metres / METRES_PER_FOOT), "ft", 0)
        if metres >= 1000:
            return self._unit(metres / 1000, "km", 2 if metres < 10_000 else 1)
        return self._unit(round(metres), "m", 0)

    def _unit(self, value: float, symbol: str, digits: int) -> str:
        # The number in the locale's notation, the unit as its international symbol: CLDR's
        # German short forms mix symbols and words ("1 Meter", "1 Meilen").
        return f"{self.number(value, digits)} {symbol}"

    def duration(self, seconds: float) -> str:
        """A span of time: ``45 s``, ``12 min``, ``1 h 05 min``, ``2 d 3 h``."""
        total = max(0, round(seconds))
        days, rest = divmod(total, 86400)
        hours, rest = divmod(rest, 3600)
        minutes, secs = divmod(rest, 60)
        if days:
            return self.t("{d} d {h} h", d=days, h=hours)
        if hours:
            return self.t("{h} h {m:02d} min", h=hours, m=minutes)
        if minutes:
            return self.t("{m} min", m=minutes + (1 if secs >= 30 and minutes < 10 else 0))
        return self.t("{s} s", s=secs)

    def clock(self, at: datetime) -> str:
        """The time of day of ``at`` on the game's clock (its zone, DST included), ``HH:MM``."""
        return at.astimezone(self.zone).strftime("%H:%M")

    def zone_name(self, at: datetime | None = None) -> str:
        """The game's zone as people read it: ``America/Chicago (CDT, UTC−5)`` at ``at``
        (else the formatter's ``now``), ``UTC+2`` for a fixed offset, ``UTC``."""
        fixed = fixed_offset_min(self.time_zone)
        if fixed is not None:
            return offset_text(fixed)
        at = at or self.now
        if at is None:
            return self.time_zone
        local = at.astimezone(self.zone)
        offset = local.utcoffset() or timedelta(0)
        label = offset_text(round(offset.total_seconds() / 60))
        abbreviation = local.tzname() or ""
        if abbreviation and abbreviation[0].isalpha() and abbreviation != label:
            return f"{self.time_zone} ({abbreviation}, {label})"
        return f"{self.time_zone} ({label})"  # zones without letters say "+0530"

    def names(self, items: list[str]) -> str:
        """``A``, ``A and B``, ``A, B and C`` in the chat's language."""
        if not items:
            return ""
        if len(items) == 1:
            return items[0]
        return self.t("{first} and {last}", first=", ".join(items[:-1]), last=items[-1])

    # ----- the game's vocabulary -----

    def category(self, category: str) -> str:
        labels = {
            "matching": N_("Matching"),
            "measuring": N_("Measuring"),
            "radar": N_("Radar"),
            "thermometer": N_("Thermometer"),
            "photo": N_("Photo"),
            "tentacle": N_("Tentacle"),
        }
        return self.t(labels.get(category, category))

    def question(self, question_id: str, distance_m: float | None = None) -> str:
        """A question's name: ``Radar 1 km``, ``Matching: Zoo``."""
        if self.ruleset is None:
            return question_id
        try:
            definition = self.ruleset.question(question_id)
        except KeyError:
            return question_id
        category = self.category(definition.category.value)
        distance = distance_m if distance_m is not None else definition.distance_m
        if definition.category.value in ("radar", "thermometer") and distance is not None:
            return f"{category} {self.distance(distance)}"
        if definition.category.value == "tentacle" and distance is not None:
            return f"{category} {self.distance(distance)}: {self.t(definition.label)}"
        return f"{category}: {self.t(definition.label)}"

    def card(self, def_id: str) -> str:
        if self.ruleset is None:
            return def_id
        try:
            return self.t(self.ruleset.card(def_id).name)
        except KeyError:
            return def_id

    def answer(self, answer: str, detail: str | None = None) -> str:
        """An answer word as players read it: ``Yes``, ``Hotter``, ``Not in reach``."""
        words = {
            "yes": N_("Yes"),
            "no": N_("No"),
            "hotter": N_("Hotter"),
            "colder": N_("Colder"),
            "closer": N_("Closer"),
            "further": N_("Further"),
            "null": N_("No such place near either of us"),
            "not_in_reach": N_("Not in reach"),
            "photo": N_("Photo sent"),
            "cannot_answer": N_("Can't answer"),
        }
        if answer == "named" and detail:
            return detail
        if answer in words:
            return self.t(words[answer])
        return detail or answer
