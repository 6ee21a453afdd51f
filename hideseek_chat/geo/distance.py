"""The one distance function of the project: geodesic on the WGS84 ellipsoid.

Every distance the bot reports or compares goes through :func:`distance_m`. It calls
pyproj's ``Geod.inv`` on plain floats (about a microsecond), so it is cheap enough for the
answer hot paths; nothing here builds a shapely geometry.
"""

from __future__ import annotations

from pyproj import Geod

#: The WGS84 ellipsoid, shared by every geodesic computation in ``geo``.
WGS84 = Geod(ellps="WGS84")

_inv = WGS84.inv
_fwd = WGS84.fwd


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Return the geodesic distance in metres between two points given in degrees."""
    return float(_inv(lon1, lat1, lon2, lat2)[2])


def bearing_deg(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Return the initial bearing (degrees clockwise from north, 0 to 360) from 1 towards 2."""
    azimuth = float(_inv(lon1, lat1, lon2, lat2)[0])
    return azimuth % 360.0


def destination(lat: float, lon: float, bearing: float, distance: float) -> tuple[float, float]:
    """Return ``(lat, lon)`` reached by going ``distance`` metres from a point on ``bearing``."""
    lon2, lat2, _ = _fwd(lon, lat, bearing, distance)
    return float(lat2), float(lon2)
