"""A map file of any content is imported or refused with ``MapImportError``, never another
exception (hypothesis): GeoJSON with geometries of any shape and numbers that are not
numbers, KML with any coordinates, zips that are no GTFS."""

from __future__ import annotations

import contextlib
import io
import json
import math
import zipfile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hideseek_chat.geo import MapImportError, import_geojson, import_gtfs, import_kml

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

numbers = st.one_of(
    st.floats(-200, 200),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, 0.0]),
    st.integers(-(2**70), 2**70),
    st.text(max_size=3),
    st.none(),
)
positions = st.one_of(st.lists(numbers, max_size=4), numbers)
coordinates = st.recursive(positions, lambda inner: st.lists(inner, max_size=5), max_leaves=30)
geometries = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                [
                    "Point",
                    "LineString",
                    "Polygon",
                    "MultiPoint",
                    "MultiLineString",
                    "MultiPolygon",
                    "GeometryCollection",
                    "Circle",
                    "",
                ]
            ),
            "coordinates": coordinates,
        },
        optional={"geometries": st.lists(st.dictionaries(st.text(max_size=5), positions))},
    ),
    st.dictionaries(st.text(max_size=8), positions, max_size=3),
)
kinds = st.sampled_from(["boundary", "station", "museum", "city_limits", "", "x" * 80])
features = st.fixed_dictionaries(
    {"type": st.just("Feature"), "geometry": geometries},
    optional={
        "properties": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {"kind": kinds}, optional={"name": st.text(max_size=10), "id": numbers}
            ),
        )
    },
)
collections = st.fixed_dictionaries(
    {"type": st.just("FeatureCollection"), "features": st.lists(features, max_size=4)}
)


def _refused_or_read(read: Any, content: bytes) -> None:
    with contextlib.suppress(MapImportError):
        read(content, name="fuzz", title="fuzz")


@FUZZ
@given(collections)
def test_any_geojson_is_read_or_refused(data: dict[str, Any]) -> None:
    _refused_or_read(import_geojson, json.dumps(data).encode())


@FUZZ
@given(st.binary(max_size=300))
@pytest.mark.parametrize("read", [import_geojson, import_kml, import_gtfs])
def test_any_bytes_are_refused(read: Any, content: bytes) -> None:
    _refused_or_read(read, content)


kml_coordinates = st.lists(
    st.tuples(numbers, numbers).map(lambda p: f"{p[0]},{p[1]}"), max_size=5
).map(" ".join)


@FUZZ
@given(st.sampled_from(["Point", "LineString", "Polygon", "MultiGeometry"]), kml_coordinates)
def test_any_kml_coordinates_are_read_or_refused(shape: str, text: str) -> None:
    inner = f"<coordinates>{text}</coordinates>"
    if shape == "Polygon":
        inner = f"<outerBoundaryIs><LinearRing>{inner}</LinearRing></outerBoundaryIs>"
    kml = (
        '<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>x</name>'
        f"<{shape}>{inner}</{shape}></Placemark></Document></kml>"
    )
    _refused_or_read(import_kml, kml.encode())


@FUZZ
@given(
    st.lists(st.tuples(st.text(max_size=8), numbers, numbers), max_size=4),
    st.sampled_from(["stop_id,stop_name,stop_lat,stop_lon", "stop_id,stop_lat", ""]),
)
def test_any_gtfs_stops_are_read_or_refused(stops: list[tuple[str, Any, Any]], header: str) -> None:
    lines = [header, *(f"s{i},{name},{lat},{lon}" for i, (name, lat, lon) in enumerate(stops))]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("stops.txt", "\n".join(lines))
    _refused_or_read(import_gtfs, buffer.getvalue())
