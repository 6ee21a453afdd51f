"""The message catalogues, for developers: extract the template, merge it, check the translations.

``hideseek-chat i18n extract`` rewrites ``locales/hideseek_chat.pot`` from the source and
merges it into every ``locales/<lang>/LC_MESSAGES/hideseek_chat.po`` (new texts arrive
untranslated, changed ones fuzzy); ``hideseek-chat i18n check`` lists what is missing, fuzzy
or has other placeholders than its msgid, and fails when the template is out of date.

Texts come from two places: the chat layer's Python (``t``, ``n`` and ``N_`` calls) and the
ruleset files (question labels, card names and card texts, which the chat shows through
``Formatter.t``). The ``.mo`` files are compiled when the package is built (``setup.py``)
or, in a checkout, when a language is first used (``i18n.translations``).
"""

from __future__ import annotations

import io
import json
import string
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import IO, Any

from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po

from hideseek_chat.chat.i18n import DOMAIN, LANGUAGES, checkout_locales

#: The translating calls: ``fmt.t(msgid)``, ``fmt.n(singular, plural, count)``, ``N_(msgid)``.
KEYWORDS: dict[str, Any] = {"t": None, "n": (1, 2), "N_": None}
#: A comment starting with this above a call is shown to translators.
COMMENT_TAGS = ("Translators:",)
PACKAGE = Path(__file__).resolve().parents[1]
SOURCE_ROOT = PACKAGE.parent
TEMPLATE_HEADER = """\
# The texts of hideseek_chat, the Hide+Seek referee bot: the template of every catalogue.
# Made by `hideseek-chat i18n extract`; never edit it by hand.
#"""
CATALOGUE_HEADER = """\
# The texts of hideseek_chat, the Hide+Seek referee bot, in {language}.
# Translate the msgstr lines; `hideseek-chat i18n extract` merges new texts in and
# `hideseek-chat i18n check` lists what is left. Keep every {{placeholder}} as it is.
#"""
#: Categories whose question label the chat shows (radars and thermometers show a distance).
LABELLED = {"matching", "measuring", "photo", "tentacle"}


# ----------------------------------------------------------------- extraction


def extract_ruleset(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """Babel extractor for a ruleset TOML file: the texts the chat shows from it."""
    raw = fileobj.read().decode("utf-8")
    data = tomllib.loads(raw)
    rows = raw.splitlines()

    def line_of(text: str) -> int:
        needle = json.dumps(text, ensure_ascii=False)  # a TOML basic string, as written
        return next((i for i, row in enumerate(rows, start=1) if needle in row), 0)

    for question in data.get("questions", []):
        if question.get("category") in LABELLED and question.get("label"):
            label = question["label"]
            yield line_of(label), None, label, [f"question label ({question['category']})"]
    for kind, cards in data.get("deck", {}).items():
        for card in cards:
            if card.get("name"):
                yield line_of(card["name"]), None, card["name"], [f"card name ({kind})"]
            if card.get("text"):
                note = "card text; {placeholders} are filled with this game's values"
                yield line_of(card["text"]), None, card["text"], [note]


def _sources() -> Iterator[tuple[Path, Any]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, "python"
    for path in sorted((PACKAGE / "rules" / "rulesets").glob("*.toml")):
        yield path, extract_ruleset


def extract_catalog() -> Catalog:
    """Every translatable text of the package, as a template catalogue."""
    catalog = Catalog(
        project=DOMAIN,
        version=_version(),
        header_comment=TEMPLATE_HEADER,
        copyright_holder="the hideseek_chat authors",
        msgid_bugs_address="",
        charset="utf-8",
        fuzzy=False,
    )
    for path, method in _sources():
        with path.open("rb") as fileobj:
            found = extract(method, fileobj, KEYWORDS, COMMENT_TAGS, strip_comment_tags=True)
            relative = path.relative_to(SOURCE_ROOT).as_posix()
            for lineno, message, comments, context in found:
                flags = ("python-brace-format",) if _has_fields(message) else ()
                catalog.add(
                    message,
                    None,
                    [(relative, lineno)],
                    auto_comments=comments,
                    flags=flags,
                    context=context,
                )
    return catalog


def _version() -> str:
    try:
        return version("hideseek-chat")
    except PackageNotFoundError:
        return ""


def _has_fields(message: str | tuple[str, ...]) -> bool:
    texts = message if isinstance(message, tuple) else (message,)
    return any(fields(text) for text in texts)


# ----------------------------------------------------------------- files


def template_path(root: Path | None = None) -> Path:
    return (root or checkout_locales() or SOURCE_ROOT / "locales") / f"{DOMAIN}.pot"


def po_path(language: str, root: Path | None = None) -> Path:
    base = root or checkout_locales() or SOURCE_ROOT / "locales"
    return base / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def shipped_languages() -> tuple[str, ...]:
    """The languages with a catalogue (English is the msgids themselves)."""
    return tuple(lang for lang in LANGUAGES if lang != "en")


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as fileobj:
        return read_po(fileobj, locale=locale, domain=DOMAIN)


def _render(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, include_lineno=False, ignore_obsolete=True)
    return buffer.getvalue()


def _body(data: bytes) -> bytes:
    """A .po/.pot file without its header, which holds dates that change on every run."""
    return data.split(b"\n\n", 1)[-1]


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and _body(path.read_bytes()) == _body(data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def update(root: Path | None = None) -> list[Path]:
    """Re-extract the template and merge it into every catalogue; return the files changed."""
    template = extract_catalog()
    changed = []
    if _write_if_changed(template_path(root), _render(template)):
        changed.append(template_path(root))
    for language in shipped_languages():
        path = po_path(language, root)
        if path.exists():
            catalog = read_catalog(path, language)
        else:
            catalog = Catalog(
                locale=language,
                domain=DOMAIN,
                project=DOMAIN,
                version=template.version,
                header_comment=CATALOGUE_HEADER.format(
                    language=Locale.parse(language).english_name
                ),
                copyright_holder=template.copyright_holder,
                language_team=Locale.parse(language).english_name,
                last_translator="the hideseek_chat authors",
                fuzzy=False,
            )
        catalog.update(template, update_header_comment=False)
        if _write_if_changed(path, _render(catalog)):
            changed.append(path)
    return changed


# ----------------------------------------------------------------- checks


def fields(text: str) -> set[str]:
    """The ``{placeholders}`` of a ``str.format`` text, with their format specs."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return {"<malformed>"}
    return {
        name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "")
        for _, name, spec, conv in parsed
        if name is not None
    }


@dataclass(frozen=True)
class Problem:
    language: str
    msgid: str
    what: str

    def __str__(self) -> str:
        return f"{self.language}: {self.what}: {self.msgid!r}"


def _key(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def message_ids(catalog: Catalog) -> set[str | tuple[str, ...]]:
    return {m.id if isinstance(m.id, str) else tuple(m.id) for m in catalog if m.id}


def check_template(root: Path | None = None) -> list[Problem]:
    """The texts the source has and the template lacks, and the other way round."""
    path = template_path(root)
    if not path.exists():
        return [Problem("pot", str(path), "no template")]
    have = message_ids(read_catalog(path))
    want = message_ids(extract_catalog())
    problems = [Problem("pot", _first(m), "not extracted yet") for m in want - have]
    problems += [Problem("pot", _first(m), "no longer in the source") for m in have - want]
    return sorted(problems, key=str)


def _first(msgid: str | tuple[str, ...]) -> str:
    return msgid if isinstance(msgid, str) else msgid[0]


def check_language(language: str, root: Path | None = None) -> list[Problem]:
    """What keeps ``language``'s catalogue from covering the template, entry by entry."""
    template = read_catalog(template_path(root))
    path = po_path(language, root)
    if not path.exists():
        return [Problem(language, str(path), "no catalogue")]
    catalog = read_catalog(path, language)
    problems: list[Problem] = []
    for wanted in template:
        if not wanted.id:
            continue
        found = catalog.get(wanted.id, context=wanted.context)
        key = _key(wanted)
        if found is None or not found.string or not all(found.string):
            problems.append(Problem(language, key, "not translated"))
            continue
        if found.fuzzy:
            problems.append(Problem(language, key, "fuzzy"))
        problems.extend(Problem(language, key, why) for why in placeholder_problems(found, catalog))
    return problems


def placeholder_problems(message: Message, catalog: Catalog) -> list[str]:
    """Where a translation's placeholders differ from its msgid's (every plural form)."""
    strings = _strings(message)
    if isinstance(message.id, str):
        want = fields(message.id)
        return [
            f"placeholders {sorted(fields(s))} instead of {sorted(want)}"
            for s in strings
            if fields(s) != want
        ]
    singular, plural = message.id[0], message.id[1]
    forms = strings
    problems = []
    if len(forms) != catalog.num_plurals:
        problems.append(f"{len(forms)} plural forms instead of {catalog.num_plurals}")
    for index, form in enumerate(forms):
        want = fields(plural) if index else fields(singular)
        got = fields(form)
        if index == 0 and single_form_count(catalog):
            # The singular may say "once" instead of "{count} time" (and the reverse).
            got, want = got - {"count"}, want - {"count"}
        if got != want:
            problems.append(f"plural form {index}: placeholders {sorted(got)} not {sorted(want)}")
    return problems


def _strings(message: Message) -> list[str]:
    if isinstance(message.string, str):
        return [message.string]
    return [form or "" for form in message.string or ()]


def single_form_count(catalog: Catalog) -> bool:
    """Whether plural form 0 is only used for a count of 1 (so it may leave ``{count}`` out)."""
    return catalog.plural_expr in ("(n != 1)", "n != 1")


def check(root: Path | None = None) -> list[Problem]:
    """Every problem of the template and of every shipped catalogue."""
    problems = check_template(root)
    for language in shipped_languages():
        problems += check_language(language, root)
    return problems
