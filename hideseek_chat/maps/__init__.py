"""Getting a map pack for any place: geocoding, Overpass, OpenStreetMap extracts, custom
station lists, and the OSM tag table that says which objects answer which question.

Everything here produces a ``geo.MapPack`` (and stores it through ``store``); nothing here
talks to a chat. Network clients are small classes with one obvious method each, built in
``app.py`` from the configuration, so a test hands in a fake server's URL:

- ``places.Geocoder.search(query)`` -> up to five ``Place`` (Nominatim, through geopy);
- ``overpass.Overpass.query(ql)`` -> the parsed JSON of one Overpass query, with endpoint
  fallback, retries on 429/504 (``Retry-After`` honoured) and "remark" errors raised;
- ``fetch.fetch_pack(...)`` -> a whole pack from Overpass, one query per kind, reporting
  each kind as it arrives; a kind whose download failed stays uncovered;
- ``pbf.build_from_pbf(...)`` -> the same pack from an ``.osm.pbf`` extract (osmium),
  streaming with bounded memory;
- ``build`` turns OSM elements (Overpass JSON's element shape, ``out geom``) into a pack:
  stations grouped by stop area then by name within ~100 m, lifecycle-prefixed objects
  left out, lines from route relations, features by the tag table in ``tags``;
- ``stations`` reads a custom station list (CSV, KML or GeoJSON points);
- ``modes`` names the transit modes and each game size's default set; ``tags`` is the tag
  table both the Overpass and the extract path classify objects with.

Failures a person must hear about are ``MapFetchError`` with a message key and values.
"""
