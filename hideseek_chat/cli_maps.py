"""``hideseek-chat map ...``: build a pack from an OpenStreetMap extract, import, export, list.

Packs go to the configured database (``DATABASE_URL`` or the SQLite file), migrated first,
through ``store.MapPacks``; the shipped packs are listed and exported beside them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from hideseek_chat.config import Config
from hideseek_chat.maps.errors import MapFetchError

if TYPE_CHECKING:
    from hideseek_chat.geo import MapPack
    from hideseek_chat.maps.pbf import Keep

# shapely, pyproj and osmium load only when a map command runs: ``rulesets`` stays quick.

#: The reading stages ``maps.pbf`` reports, numbered on the progress line.
STAGES = ("relations", "ways", "nodes", "geometry")

#: Largest file ``map import`` reads (the chat's upload limit is far smaller).
MAX_IMPORT_BYTES = 1_000_000_000
#: Modes ``map build`` takes without ``--modes``: a country-size pack without every bus stop.
DEFAULT_MODES = ("rail", "subway", "tram", "ferry")

_ERRORS = {
    "map.file_missing": "no such file: {path}",
    "map.file_unreadable": "{path} is not an OpenStreetMap file osmium can read ({reason})",
    "map.boundary_not_found": "no boundary named {name!r} in {path}",
    "map.boundary_open": "the boundary {name!r} does not close into a ring in this extract",
    "map.boundary_bad": "{path} holds no usable boundary polygon ({reason})",
}


class MapCommandError(Exception):
    """A ``map`` command cannot go on; the message is one line for the terminal."""


def _say(error: MapFetchError) -> str:
    template = _ERRORS.get(error.key)
    if template is None:
        return f"{error.key} {error.params}"
    return template.format(**error.params)


# --- the seams a test (or the merged tag table and builder) fills -----------------------


def known_modes() -> tuple[str, ...]:
    """The transit modes a pack can be built with."""
    from hideseek_chat.maps.modes import MODES

    return MODES


def find_keep(modes: tuple[str, ...]) -> Keep:
    """The predicate that selects the OSM objects a pack with ``modes`` needs (``maps.tags``):
    stops and their stop areas and lines, every kind of the tag table, and every
    administrative boundary (which level is which division is decided when building)."""
    from hideseek_chat.maps import tags

    def keep(found: Any) -> bool:
        return bool(
            tags.kinds_of(found)
            or tags.is_station_candidate(found, modes)
            or tags.route_mode(found) in modes
            or tags.is_stop_area(found)
            or (found.get("boundary") == "administrative" and "admin_level" in found)
        )

    return keep


def find_builder() -> Callable[..., MapPack]:
    """``maps.build.build_from_elements``, looked up when a build starts."""
    from hideseek_chat.maps.build import build_from_elements

    return build_from_elements


# --- progress -----------------------------------------------------------------------------


class ProgressLine:
    """Reports the reading stages on ``stream``: a counter redrawn in place on a terminal,
    one line per finished stage otherwise (logs stay readable)."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.live = stream.isatty()
        self.stage: str | None = None
        self.count = 0
        self.started = 0.0

    def _label(self, stage: str) -> str:
        number = STAGES.index(stage) + 1 if stage in STAGES else 0
        return f"[{number}/{len(STAGES)}] {stage}" if number else stage

    def __call__(self, stage: str, count: int) -> None:
        if stage != self.stage:
            self.finish()
            self.stage, self.started = stage, self.clock()
        self.count = count
        if self.live:
            self.stream.write(f"\r{self._label(stage)}: {count:,} objects")
            self.stream.flush()

    def finish(self) -> None:
        """End the current stage's line, if a stage is under way."""
        if self.stage is None:
            return
        seconds = self.clock() - self.started
        start = "\r" if self.live else ""
        self.stream.write(
            f"{start}{self._label(self.stage)}: {self.count:,} objects, {seconds:.1f} s\n"
        )
        self.stream.flush()
        self.stage = None


# --- the commands -------------------------------------------------------------------------


def _modes(text: str) -> tuple[str, ...]:
    known = known_modes()
    modes = tuple(dict.fromkeys(m.strip().lower() for m in text.split(",") if m.strip()))
    unknown = [m for m in modes if m not in known]
    if unknown or not modes:
        raise argparse.ArgumentTypeError(
            f"unknown mode(s) {', '.join(unknown) or '(none given)'} (known: {', '.join(known)})"
        )
    return modes


def slug(text: str) -> str:
    """A pack name from a place or file name: lower case, letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:48] or "map"


@contextmanager
def _packs(config: Config) -> Iterator[Any]:
    """A unit of work on the configured database, migrated first."""
    from hideseek_chat.store import make_engine, migrate, unit_of_work_factory

    url = config.effective_database_url
    migrate.upgrade(url)
    engine = make_engine(url)
    try:
        with unit_of_work_factory(engine)() as uow:
            yield uow
    finally:
        engine.dispose()


def _store(config: Config, pack: MapPack) -> None:
    from hideseek_chat.chat.maps import to_data

    with _packs(config) as uow:
        uow.maps.save(to_data(pack), datetime.now(UTC))
        uow.commit()


def _describe(pack: MapPack) -> str:
    kinds = ", ".join(sorted(pack.kinds)) or "none"
    return (
        f"{len(pack.stations):,} stations, {len(pack.features):,} features; "
        f"{len(pack.routes):,} lines; kinds: {kinds}"
    )


def _country(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z]{2}", text.strip()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a two-letter country code like JP")
    return text.strip().upper()


def _boundary_country(boundary: Any) -> str:
    """The country whose time zone holds a point inside ``boundary`` ("" at sea)."""
    from hideseek_chat.geo import country_of_time_zone, time_zone_at

    point = boundary.representative_point()
    zone = time_zone_at(point.y, point.x)
    return country_of_time_zone(zone) if zone else ""


def _build(args: argparse.Namespace, config: Config) -> int:
    from hideseek_chat.maps import pbf

    extract = Path(args.extract)
    if not extract.is_file():
        raise MapFetchError("map.file_missing", path=str(extract))
    build = find_builder()
    keep = find_keep(args.modes)
    progress = ProgressLine(sys.stderr)
    progress("boundary", 0)
    boundary = pbf.read_boundary(
        extract, args.boundary, progress=lambda stage, count: progress(f"boundary {stage}", count)
    )
    country = args.country or _boundary_country(boundary)
    is_file = Path(args.boundary).is_file()
    place = Path(args.boundary).stem if is_file else args.boundary
    name = args.name or slug(place)
    pack = pbf.build_from_pbf(
        extract,
        boundary,
        name=name,
        title=args.title or place,
        modes=args.modes,
        keep=keep,
        build=partial(build, country_code=country),
        progress=progress,
        member_geometry=pbf.not_routes,
    )
    progress("storing", 0)
    _store(config, pack)
    progress.finish()
    print(f"stored map pack {pack.name}: {_describe(pack)}")
    return 0


def _read_pack_file(path: Path, name: str | None) -> MapPack:
    from hideseek_chat import geo
    from hideseek_chat.geo.mappack import PACK_KEY

    if not path.is_file():
        raise MapFetchError("map.file_missing", path=str(path))
    lower = path.name.lower()
    content = path.read_bytes()
    stem = name or slug(path.name.split(".", 1)[0])
    try:
        if lower.endswith((".geojson", ".json")):
            data = json.loads(content)
            own = data.get(PACK_KEY, {}).get("name") if isinstance(data, dict) else None
            chosen = name or (str(own) if own else stem)
            pack = geo.import_geojson(
                data, name=chosen, title=path.name, max_bytes=MAX_IMPORT_BYTES
            )
            return pack if pack.name == chosen else replace(pack, name=chosen)
        if lower.endswith(".zip"):
            return geo.import_gtfs(content, name=stem, title=path.name, max_bytes=MAX_IMPORT_BYTES)
        if lower.endswith(".kml"):
            return geo.import_kml(content, name=stem, title=path.name, max_bytes=MAX_IMPORT_BYTES)
    except json.JSONDecodeError as err:
        raise MapCommandError(f"{path} is not JSON: {err}") from None
    except geo.MapImportError as err:
        raise MapCommandError(f"{path} was refused: {err}") from None
    raise MapCommandError(f"{path}: not a .geojson, .json, GTFS .zip or .kml file")


def _import(args: argparse.Namespace, config: Config) -> int:
    from hideseek_chat import geo

    pack = _read_pack_file(Path(args.file), args.name)
    if pack.name in geo.builtin_map_packs():
        pack = replace(pack, name=f"{pack.name}-imported")
    _store(config, pack)
    print(f"stored map pack {pack.name}: {_describe(pack)}")
    return 0


def _export(args: argparse.Namespace, config: Config) -> int:
    from hideseek_chat import geo
    from hideseek_chat.chat.maps import from_data

    pack: MapPack | None = None
    stored: list[str] = []
    if args.name in geo.builtin_map_packs():
        pack = geo.load_map_pack(args.name)
    else:
        with _packs(config) as uow:
            data = uow.maps.load(args.name)
            pack = from_data(data) if data is not None else None
            stored = uow.maps.names()
    if pack is None:
        known = ", ".join(sorted({*geo.builtin_map_packs(), *stored}))
        raise MapCommandError(f"no map pack {args.name!r} (known: {known})")
    text = json.dumps(geo.pack_to_geojson(pack), ensure_ascii=False)
    if args.output in (None, "-"):
        print(text)
    else:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.output}: {_describe(pack)}", file=sys.stderr)
    return 0


def _list(args: argparse.Namespace, config: Config) -> int:
    from hideseek_chat import geo

    with _packs(config) as uow:
        summaries = uow.maps.summaries()
    rows = [("name", "stations", "features", "source", "title")]
    for name in geo.builtin_map_packs():
        pack = geo.load_map_pack(name)
        rows.append(
            (name, f"{len(pack.stations):,}", f"{len(pack.features):,}", "shipped", pack.title)
        )
    for s in summaries:
        stored = f"stored {s.imported_at:%Y-%m-%d %H:%M}"
        rows.append((s.name, f"{s.stations:,}", f"{s.features:,}", stored, s.title))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [
            row[0].ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(row[1:3], widths[1:3], strict=True)),
        ]
        print("  ".join([*cells, row[3].ljust(widths[3]), row[4]]).rstrip())
    return 0


def _run(handler: Callable[[argparse.Namespace, Config], int]) -> Callable[..., int]:
    def run(args: argparse.Namespace, config: Config) -> int:
        try:
            return handler(args, config)
        except MapFetchError as err:
            raise MapCommandError(_say(err)) from None

    return run


def add_map_commands(commands: Any) -> None:
    """Add ``map build|import|export|list`` to the ``hideseek-chat`` subcommands."""
    maps = commands.add_parser(
        "map", help="map packs: build from an OSM extract, import, export, list"
    )
    actions = maps.add_subparsers(dest="action", required=True)
    build = actions.add_parser(
        "build", help="build a pack from an OpenStreetMap extract (.osm.pbf) and store it"
    )
    build.add_argument("extract", help="the .osm.pbf (or .osm, .osm.bz2) file")
    build.add_argument(
        "--boundary",
        required=True,
        help="the name of a boundary relation in the extract, or a GeoJSON file",
    )
    build.add_argument(
        "--modes",
        type=_modes,
        default=DEFAULT_MODES,
        help=f"comma-separated transit modes (default {','.join(DEFAULT_MODES)})",
    )
    build.add_argument("--name", help="the pack's name (default: from the boundary)")
    build.add_argument("--title", help="the pack's title (default: the boundary's name)")
    build.add_argument(
        "--country",
        type=_country,
        help="ISO country code, for its admin levels (default: from the boundary's time zone)",
    )
    build.set_defaults(handler=_run(_build))
    imports = actions.add_parser(
        "import",
        help="store a pack from a GeoJSON (a pack from 'map export' or any), GTFS zip or KML",
    )
    imports.add_argument("file")
    imports.add_argument("--name", help="the pack's name (default: its own, or the file's)")
    imports.set_defaults(handler=_run(_import))
    export = actions.add_parser("export", help="write a pack as GeoJSON")
    export.add_argument("name")
    export.add_argument("-o", "--output", help="the file to write (default: standard output)")
    export.set_defaults(handler=_run(_export))
    listing = actions.add_parser("list", help="the shipped and stored packs")
    listing.set_defaults(handler=_run(_list))
