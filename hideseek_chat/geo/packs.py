"""The map packs shipped with the package (``geo/maps/<name>/pack.geojson``)."""

from __future__ import annotations

import json
from importlib import resources

from hideseek_chat.geo.imports import MapImportError, import_geojson
from hideseek_chat.geo.mappack import MapPack

_CACHE: dict[str, MapPack] = {}


def builtin_map_packs() -> tuple[str, ...]:
    """Return the names of the shipped map packs."""
    maps = resources.files("hideseek_chat.geo") / "maps"
    return tuple(
        sorted(item.name for item in maps.iterdir() if (item / "pack.geojson").is_file())
    )


def load_map_pack(name: str) -> MapPack:
    """Load a shipped map pack by name (cached); raises MapImportError ``unknown_map``."""
    if name not in _CACHE:
        if name not in builtin_map_packs():
            raise MapImportError("unknown_map", name)
        text = (resources.files("hideseek_chat.geo") / "maps" / name / "pack.geojson").read_text(
            encoding="utf-8"
        )
        _CACHE[name] = import_geojson(json.loads(text), name=name)
    return _CACHE[name]
