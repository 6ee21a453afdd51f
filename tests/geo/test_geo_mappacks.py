"""Map packs: the shipped Stillwater pack, GeoJSON/GTFS/KML imports, limits and bad files."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from shapely.geometry import box

from hideseek_chat.geo import (
    MapImportError,
    MapIndex,
    builtin_map_packs,
    import_geojson,
    import_gtfs,
    import_kml,
    load_map_pack,
    pack_from_geojson,
    pack_to_geojson,
)
from hideseek_chat.geo.stillwater import build_stillwater_pack, parse_stop_name

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
CAIRNS = SHARED / "cairns" / "gtfs.zip"
#: The Cairns feed is shared data beside the checkout, not part of the repository.
needs_cairns = pytest.mark.skipif(
    not CAIRNS.is_file(), reason=f"the Cairns GTFS sample is not at {CAIRNS} (../shared is absent)"
)
STILLWATER_SOURCE = SHARED / "stillwater"


def test_stillwater_pack_contents() -> None:
    assert "stillwater" in builtin_map_packs()
    pack = load_map_pack("stillwater")
    assert len(pack.stations) == 171
    assert "OpenStreetMap" in pack.attribution
    assert pack.station("157").name == "Hester & 4th South"
    assert pack.station("157").routes == ("Scarlet",)
    assert pack.station("2").routes == ("Brown", "Scarlet", "White", "Orange", "Black", "Gold")
    assert pack.station("45").name == "Stillwater Airport"
    assert pack.station("45-2").name == "Washington & Airport"  # stop number 45 used twice
    assert set(pack.routes) == {"Black", "Blue", "Brown", "Gold", "Gray", "Green", "Orange",
                                "Purple", "Scarlet", "White"}
    assert len(pack.features_of("restaurant")) == 92
    # The OSU Experimental Farm school and two parks lie outside the city limits.
    assert len(pack.features_of("school")) == 19
    assert len(pack.features_of("park")) == 31
    assert {f.name for f in pack.features_of("admin-4")} == {"NE", "NW", "SE", "SW"}
    total = sum(f.geometry.area for f in pack.features_of("admin-4"))
    assert total == pytest.approx(pack.boundary.area, rel=1e-9)
    assert pack.has_data_for("road") and not pack.has_data_for("museum")


def test_shipped_pack_matches_a_rebuild_from_the_source() -> None:
    if not STILLWATER_SOURCE.is_dir():
        pytest.skip(f"the Stillwater source data is not at {STILLWATER_SOURCE} (../shared is absent)")
    assert build_stillwater_pack(STILLWATER_SOURCE) == load_map_pack("stillwater")
    readme = Path(__file__).resolve().parents[2] / "hideseek_chat/geo/maps/stillwater/README.md"
    assert "OpenStreetMap contributors" in readme.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "name", "number", "routes"),
    [
        ("Hester & 4th South (157) (Scarlet)", "Hester & 4th South", "157", ("Scarlet",)),
        ("*Student Union (2) (Brown,Scarlet,White)", "Student Union", "2",
         ("Brown", "Scarlet", "White")),
        ("*Stillwater Medical Center (77)", "Stillwater Medical Center", "77", ()),
        ("*MMTT", "MMTT", "", ()),
    ],
)
def test_stop_names(text: str, name: str, number: str, routes: tuple[str, ...]) -> None:
    assert parse_stop_name(text) == (name, number, routes)


def test_round_trip_through_geojson() -> None:
    pack = load_map_pack("stillwater")
    text = json.dumps(pack_to_geojson(pack))
    again = pack_from_geojson(json.loads(text))
    assert again == pack
    assert again.kinds == pack.kinds and again.routes == pack.routes
    assert again.attribution == pack.attribution


@needs_cairns
def test_cairns_gtfs() -> None:
    pack = import_gtfs(CAIRNS, name="cairns", attribution="gtfstk sample, Translink")
    assert len(pack.stations) == 416
    assert len(pack.routes) == 22
    assert all(station.routes for station in pack.stations)
    palm_cove = pack.station("750000")
    assert palm_cove.name == "Cedar Rd (Palm Cove) - Hail and Ride Location"
    assert palm_cove.routes == ("110", "110N")
    assert max(len(s.routes) for s in pack.stations) > 3
    # The default boundary is the stops' hull plus 1 km: every stop is inside it.
    index = MapIndex(pack)
    assert all(index.is_in_boundary(s.lat, s.lon) for s in pack.stations)
    same = import_gtfs(CAIRNS.read_bytes(), name="cairns")
    assert same.stations == pack.stations


def _write_feed(folder: Path, stops: list[list[str]], *, drop: str | None = None) -> None:
    files = {
        "stops.txt": [["stop_id", "stop_name", "stop_lat", "stop_lon", "location_type",
                       "parent_station"], *stops],
        "routes.txt": [["route_id", "route_short_name", "route_long_name"], ["r1", "", "Red"],
                       ["r2", "2", "Blue"]],
        "trips.txt": [["route_id", "service_id", "trip_id"], ["r1", "s", "t1"],
                      ["r2", "s", "t2"]],
        "stop_times.txt": [["trip_id", "stop_id", "stop_sequence"], ["t1", "a1", "1"],
                           ["t1", "b", "2"], ["t2", "a2", "1"], ["t2", "far", "2"]],
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        if name == drop:
            continue
        with (folder / name).open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows(rows)


def test_gtfs_folder_parent_stations_and_boundary_dropping(tmp_path: Path) -> None:
    _write_feed(tmp_path, [
        ["A", "Central", "10.0", "20.0", "1", ""],
        ["a1", "Central platform 1", "10.0001", "20.0", "0", "A"],
        ["a2", "Central platform 2", "10.0002", "20.0", "0", "A"],
        ["e1", "Central entrance", "10.0003", "20.0", "2", "A"],
        ["b", "Market", "10.01", "20.01", "", ""],
        ["far", "Far away", "11.0", "21.0", "0", ""],
    ])
    pack = import_gtfs(tmp_path, name="t", boundary=box(19.9, 9.9, 20.1, 10.1))
    assert [s.id for s in pack.stations] == ["A", "b"]  # "far" is outside the boundary
    assert pack.station("A").routes == ("2", "Red")
    assert pack.station("b").routes == ("Red",)


@pytest.mark.parametrize("missing", ["stops.txt", "stop_times.txt", "routes.txt", "trips.txt"])
def test_gtfs_missing_file(tmp_path: Path, missing: str) -> None:
    _write_feed(tmp_path, [["b", "Market", "10.01", "20.01", "", ""]], drop=missing)
    with pytest.raises(MapImportError) as caught:
        import_gtfs(tmp_path, name="t")
    assert (caught.value.reason, caught.value.detail) == ("bad_gtfs", f"{missing} missing")


@needs_cairns
def test_gtfs_bad_files(tmp_path: Path) -> None:
    with pytest.raises(MapImportError) as caught:
        import_gtfs(b"this is not a zip", name="t")
    assert caught.value.reason == "bad_gtfs"
    _write_feed(tmp_path, [["b", "Market", "north", "20.01", "", ""]])
    with pytest.raises(MapImportError) as caught:
        import_gtfs(tmp_path, name="t")
    assert caught.value.reason == "bad_gtfs" and "line 2" in caught.value.detail
    with pytest.raises(MapImportError) as caught:
        import_gtfs(CAIRNS, name="t", max_bytes=100_000)
    assert caught.value.reason == "too_large"
    with pytest.raises(MapImportError) as caught:
        import_gtfs(CAIRNS, name="t", max_unzipped=1_000_000)  # 3.6 MB inside
    assert caught.value.reason == "too_large"


def _geojson() -> dict[str, object]:
    def feature(kind: str | None, name: str | None, geometry: dict[str, object],
                **extra: object) -> dict[str, object]:
        return {"type": "Feature", "properties": {"kind": kind, "name": name, **extra},
                "geometry": geometry}

    square = [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]
    return {
        "type": "FeatureCollection",
        "features": [
            feature("boundary", "Test town", {"type": "Polygon", "coordinates": square}),
            feature("bus-stop", "Main St", {"type": "Point", "coordinates": [0.5, 0.5]},
                    id="7", routes="Red, Blue"),
            feature("station", "Outside", {"type": "Point", "coordinates": [2, 2]}),
            feature("museum", "Museum of Tests", {"type": "Point", "coordinates": [0.2, 0.2]}),
            feature("museum", "Far museum", {"type": "Point", "coordinates": [5, 5]}),
            feature("road", "Long Road",
                    {"type": "LineString", "coordinates": [[-1, 0.5], [2, 0.5]]}),
            feature(None, "no kind", {"type": "Point", "coordinates": [0.3, 0.3]}),
        ],
    }


def test_geojson_import_drops_and_clips_outside_features(tmp_path: Path) -> None:
    path = tmp_path / "town.geojson"
    path.write_text(json.dumps(_geojson()), encoding="utf-8")
    pack = import_geojson(path, name="town", kinds=["zoo"])
    assert [(s.id, s.name, s.routes) for s in pack.stations] == [("7", "Main St",
                                                                  ("Red", "Blue"))]
    assert [f.name for f in pack.features_of("museum")] == ["Museum of Tests"]
    road = pack.features_of("road")[0]
    assert road.geometry.bounds == (0.0, 0.5, 1.0, 0.5)  # clipped to the boundary
    assert pack.has_data_for("zoo") and not pack.features_of("zoo")
    assert pack_from_geojson(pack_to_geojson(pack)) == pack


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"{not json", "not_geojson"),
        (b"\xff\xfe\x00garbage", "not_geojson"),
        (json.dumps({"type": "Feature"}).encode(), "not_geojson"),
        (json.dumps({"type": "FeatureCollection", "features": {}}).encode(), "not_geojson"),
        (json.dumps({"type": "FeatureCollection", "features": []}).encode(), "no_boundary"),
        (json.dumps({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"kind": "park"},
             "geometry": {"type": "Point", "coordinates": ["x", 1]}}]}).encode(),
         "bad_geometry"),
        (json.dumps({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"kind": "DROP TABLE;"},
             "geometry": {"type": "Point", "coordinates": [1, 1]}}]}).encode(),
         "bad_kind"),
    ],
)
def test_geojson_bad_files(payload: bytes, reason: str) -> None:
    with pytest.raises(MapImportError) as caught:
        import_geojson(payload, name="bad")
    assert caught.value.reason == reason


def test_file_size_limit() -> None:
    payload = json.dumps(_geojson()).encode()
    with pytest.raises(MapImportError) as caught:
        import_geojson(payload, name="big", max_bytes=len(payload) - 1)
    assert caught.value.reason == "too_large"
    assert import_geojson(payload, name="ok", max_bytes=len(payload)).stations


KML = """<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
<Document><name>Test map</name>
  <Placemark><name>Town</name>
    <ExtendedData><Data name="kind"><value>boundary</value></Data></ExtendedData>
    <Polygon><outerBoundaryIs><LinearRing><coordinates>
      0,0,0 1,0,0 1,1,0 0,1,0 0,0,0
    </coordinates></LinearRing></outerBoundaryIs></Polygon>
  </Placemark>
  <Folder><name>museum</name>
    <Placemark><name>Museum of Tests</name><Point><coordinates>0.2,0.2</coordinates></Point>
    </Placemark>
    <Placemark><name>Far museum</name><Point><coordinates>3,3</coordinates></Point></Placemark>
  </Folder>
  <Folder><name>Stops</name>
    <Placemark><name>Main St</name>
      <ExtendedData><Data name="kind"><value>station</value></Data>
        <Data name="id"><value>s7</value></Data>
        <Data name="routes"><value>Red,Blue</value></Data></ExtendedData>
      <Point><coordinates>0.5,0.5,0</coordinates></Point></Placemark>
  </Folder>
  <Placemark><name>River</name>
    <ExtendedData><Data name="kind"><value>body-of-water</value></Data></ExtendedData>
    <LineString><coordinates>0.1,0.9 0.9,0.9 1.5,0.9</coordinates></LineString></Placemark>
  <Placemark><name>Unlabelled</name><Point><coordinates>0.4,0.4</coordinates></Point></Placemark>
</Document></kml>
"""


def test_kml_import(tmp_path: Path) -> None:
    path = tmp_path / "map.kml"
    path.write_text(KML, encoding="utf-8")
    pack = import_kml(path, name="kml")
    assert pack.boundary.bounds == (0.0, 0.0, 1.0, 1.0)
    assert [(s.id, s.name, s.routes) for s in pack.stations] == [("s7", "Main St",
                                                                  ("Red", "Blue"))]
    assert [f.name for f in pack.features_of("museum")] == ["Museum of Tests"]
    assert pack.features_of("body-of-water")[0].geometry.bounds == (0.1, 0.9, 1.0, 0.9)
    with_default = import_kml(KML.encode(), name="kml", default_kind="park")
    assert [f.name for f in with_default.features_of("park")] == ["Unlabelled"]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"<kml><Document>", "not_kml"),
        (b"<gpx></gpx>", "not_kml"),
        (b'<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY a "aaaa">]><kml>&a;</kml>', "not_kml"),
        (b'<kml><Placemark><ExtendedData><Data name="kind"><value>park</value></Data>'
         b"</ExtendedData><Point><coordinates>abc</coordinates></Point></Placemark></kml>",
         "bad_geometry"),
        (b"<kml><Document></Document></kml>", "no_boundary"),
    ],
)
def test_kml_bad_files(payload: bytes, reason: str) -> None:
    with pytest.raises(MapImportError) as caught:
        import_kml(payload, name="bad")
    assert caught.value.reason == reason


def test_unknown_builtin_pack() -> None:
    with pytest.raises(MapImportError) as caught:
        load_map_pack("atlantis")
    assert caught.value.reason == "unknown_map"


def test_zip_feed_from_bytes_with_nested_folder() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("feed/stops.txt", "stop_id,stop_name,stop_lat,stop_lon\nx,X,1,2\n")
        archive.writestr("feed/routes.txt", "route_id,route_short_name\nr,R\n")
        archive.writestr("feed/trips.txt", "route_id,trip_id\nr,t\n")
        archive.writestr("feed/stop_times.txt", "trip_id,stop_id\nt,x\n")
    pack = import_gtfs(buffer.getvalue(), name="zip")
    assert [(s.id, s.routes) for s in pack.stations] == [("x", ("R",))]


def test_geo_never_imports_chat_or_storage_libraries() -> None:
    package = Path(__file__).resolve().parents[2] / "hideseek_chat" / "geo"
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        for banned in ("import telegram", "from telegram", "import sqlalchemy",
                       "from sqlalchemy"):
            assert banned not in text, f"{source.name} uses {banned}"
