"""Build hook: compile the gettext catalogues into the package (everything else is pyproject.toml).

``locales/<lang>/LC_MESSAGES/hideseek_chat.po`` becomes
``hideseek_chat/locales/<lang>/LC_MESSAGES/hideseek_chat.mo`` in the build directory, where
``hideseek_chat.chat.i18n.translations`` finds it in an installed package. The ``.mo``
files are never committed; a checkout compiles the ``.po`` files on first use instead.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import setup
from setuptools.command.build_py import build_py

DOMAIN = "hideseek_chat"
ROOT = Path(__file__).resolve().parent


class BuildWithCatalogues(build_py):
    """``build_py`` that also compiles every ``.po`` file to a ``.mo`` in the package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's .po files directly
        for po in sorted((ROOT / "locales").glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
            language = po.parent.parent.name
            target = Path(self.build_lib) / DOMAIN / "locales" / language / "LC_MESSAGES"
            target.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as source:
                catalog = read_po(source, locale=language, domain=DOMAIN)
            with (target / f"{DOMAIN}.mo").open("wb") as mo:
                write_mo(mo, catalog, use_fuzzy=False)


setup(cmdclass={"build_py": BuildWithCatalogues})
