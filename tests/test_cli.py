import io
import json
from pathlib import Path

import pytest

from hideseek_chat import cli_maps
from hideseek_chat.cli import main
from hideseek_chat.config import Config, ConfigError
from hideseek_chat.maps import pbf
from hideseek_chat.rules.ruleset import ruleset_paths
from tests.maps import osm_extract


def test_rulesets_lists_every_shipped_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulesets"]) == 0
    out = capsys.readouterr().out
    for name in ("metric", "us", "stillwater"):
        assert f"{name}:" in out
    assert "tentacle 0" in out and "100 cards" in out


def test_rulesets_check_reports_a_broken_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = ruleset_paths()["metric"].read_text(encoding="utf-8")
    broken = tmp_path / "metric.toml"
    broken.write_text(good.replace("hand_limit = 6", "hand_limit = -1"), encoding="utf-8")
    assert main(["rulesets", "--check", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "rules.hand_limit" in err and "at least 1" in err


def test_unknown_ruleset_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulesets", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "known: metric, stillwater, us" in err


def test_config_reads_the_environment() -> None:
    config = Config.from_env({"HIDESEEK_CLOCK_SPEED": "60", "DATABASE_URL": "postgresql://x/y"})
    assert config.clock_speed == 60
    assert config.effective_database_url == "postgresql+psycopg://x/y"
    assert Config.from_env({}).effective_database_url.startswith("sqlite:///")
    with pytest.raises(ConfigError, match="HIDESEEK_CLOCK_SPEED"):
        Config.from_env({"HIDESEEK_CLOCK_SPEED": "fast"})
    with pytest.raises(ConfigError):
        Config.from_env({"HIDESEEK_CLOCK_SPEED": "0"})


def test_db_upgrade_then_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HIDESEEK_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["db", "upgrade"]) == 0
    assert (tmp_path / "hideseek.sqlite3").is_file()
    assert main(["db", "check"]) == 0
    assert "agree" in capsys.readouterr().out


# --- hideseek-chat map ... ---------------------------------------------------------------


@pytest.fixture
def map_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HIDESEEK_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    return tmp_path


def test_map_build_list_export_import_round_trip(
    map_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extract = osm_extract.write_extract(map_db / "testland.osm.pbf")
    assert (
        main(["map", "build", str(extract), "--boundary", "Testland", "--modes", "rail,subway"])
        == 0
    )
    captured = capsys.readouterr()
    assert "stored map pack testland: 2 stations, 7 features" in captured.out
    # Not a terminal: one line per stage, in order.
    stages = [line.split(":")[0] for line in captured.err.splitlines()]
    reading = ["relations", "ways", "nodes", "geometry"]
    assert stages == [
        "boundary",
        *(f"boundary {stage}" for stage in reading),
        *(f"[{i}/4] {stage}" for i, stage in enumerate(reading, 1)),
        "storing",
    ]

    assert main(["map", "list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert listing[0].split() == ["name", "stations", "features", "source", "title"]
    assert any(line.split()[0] == "stillwater" and "shipped" in line for line in listing)
    (stored,) = [line for line in listing if line.startswith("testland")]
    assert stored.split()[1:4] == ["2", "7", "stored"] and stored.endswith("Testland")

    exported = map_db / "testland.geojson"
    assert main(["map", "export", "testland", "-o", str(exported)]) == 0
    data = json.loads(exported.read_text(encoding="utf-8"))
    assert {
        f["properties"]["name"] for f in data["features"] if f["properties"]["kind"] == "station"
    } == {"Alpha", "Beta"}
    assert main(["map", "import", str(exported), "--name", "copy"]) == 0
    assert "stored map pack copy: 2 stations, 7 features" in capsys.readouterr().out
    assert main(["map", "export", "copy"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["features"] == data["features"]
    assert main(["map", "export", "stillwater"]) == 0
    assert json.loads(capsys.readouterr().out)["hideseek_map"]["name"] == "stillwater"


def test_map_build_takes_a_geojson_boundary(
    map_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extract = osm_extract.write_extract(map_db / "testland.osm.pbf")
    around_alpha = map_db / "alpha-town.geojson"
    ring = [[138.99, 34.99], [139.003, 34.99], [139.003, 35.003], [138.99, 35.003], [138.99, 34.99]]
    around_alpha.write_text(
        json.dumps({"type": "Polygon", "coordinates": [ring]}), encoding="utf-8"
    )
    assert (
        main(["map", "build", str(extract), "--boundary", str(around_alpha), "--title", "Alpha"])
        == 0
    )
    assert "stored map pack alpha-town: 1 stations, 2 features" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["map", "build", "{tmp}/nope.osm.pbf", "--boundary", "Testland"], "no such file: "),
        (
            ["map", "build", "{extract}", "--boundary", "Atlantis"],
            "no boundary named 'Atlantis' in ",
        ),
        (["map", "build", "{extract}", "--boundary", "{tmp}/none.geojson"], "no such file: "),
        (["map", "export", "atlantis"], "no map pack 'atlantis' (known: stillwater)"),
        (["map", "import", "{tmp}/nope.geojson"], "no such file: "),
        (
            ["map", "import", "{tmp}/testland.osm.pbf"],
            "not a .geojson, .json, GTFS .zip or .kml file",
        ),
    ],
)
def test_map_errors_are_one_line_and_exit_non_zero(
    map_db: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    extract = osm_extract.write_extract(map_db / "testland.osm.pbf")
    argv = [a.format(tmp=map_db, extract=extract) for a in argv]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("hideseek-chat: ") and said in err


def test_map_build_refuses_unknown_modes(map_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["map", "build", "x.osm.pbf", "--boundary", "X", "--modes", "rail,hovercraft"])
    assert exited.value.code == 2
    assert (
        "unknown mode(s) hovercraft (known: rail, subway, tram, bus, ferry)"
        in capsys.readouterr().err
    )


def test_the_progress_line_redraws_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    ticks = iter([0.0, 1.5, 2.0, 2.25])
    line = cli_maps.ProgressLine(stream, clock=lambda: next(ticks))
    line("relations", 0)
    line("relations", 65536)
    line("ways", 10)
    line.finish()
    assert stream.getvalue() == (
        "\r[1/4] relations: 0 objects\r[1/4] relations: 65,536 objects"
        "\r[1/4] relations: 65,536 objects, 1.5 s\n"
        "\r[2/4] ways: 10 objects\r[2/4] ways: 10 objects, 0.2 s\n"
    )
    assert cli_maps.STAGES == pbf.STAGES


OLD_TOWN_KML = """<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Old Town</name>
  <Placemark><name>Town</name>
    <ExtendedData><Data name="kind"><value>boundary</value></Data></ExtendedData>
    <Polygon><outerBoundaryIs><LinearRing><coordinates>
      0,0,0 1,0,0 1,1,0 0,1,0 0,0,0
    </coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
  <Folder><name>museum</name>
    <Placemark><name>Museum of Tests</name><Point><coordinates>0.2,0.2</coordinates></Point>
    </Placemark></Folder>
  <Placemark><name>Main St</name>
    <ExtendedData><Data name="kind"><value>station</value></Data></ExtendedData>
    <Point><coordinates>0.5,0.5,0</coordinates></Point></Placemark>
  <Placemark><name>River</name>
    <ExtendedData><Data name="kind"><value>body-of-water</value></Data></ExtendedData>
    <LineString><coordinates>0.1,0.9 0.9,0.9</coordinates></LineString></Placemark>
</Document></kml>
"""


def test_map_import_reads_kml_and_plain_geojson_and_refuses_bad_files(
    map_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kml = map_db / "Old Town.kml"
    kml.write_text(OLD_TOWN_KML, encoding="utf-8")
    assert main(["map", "import", str(kml)]) == 0
    assert "stored map pack old-town: 1 stations, 2 features" in capsys.readouterr().out
    plain = map_db / "plain.geojson"
    square = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}
    plain.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [
                    {"type": "Feature", "properties": {"kind": "boundary"}, "geometry": square},
                    {
                        "type": "Feature",
                        "properties": {"kind": "station", "name": "Hub"},
                        "geometry": {"type": "Point", "coordinates": [0.5, 0.5]},
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    assert main(["map", "import", str(plain), "--name", "plain"]) == 0
    assert "stored map pack plain: 1 stations, 0 features" in capsys.readouterr().out
    broken = map_db / "broken.geojson"
    broken.write_text("{", encoding="utf-8")
    assert main(["map", "import", str(broken)]) == 1
    assert "is not JSON" in capsys.readouterr().err
    assert main(["map", "list"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert names == ["stillwater", "old-town", "plain"]


def test_map_build_reads_divisions_at_the_country_s_admin_levels(
    map_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Testland (admin_level 6) lies in Japan's time zone: there admin-2 is level 7, so it is
    no division; built as a US map (admin-2 = 6) it is."""
    from hideseek_chat.store import make_engine, unit_of_work_factory

    extract = osm_extract.write_extract(map_db / "testland.osm.pbf")
    args = ["map", "build", str(extract), "--boundary", "Testland", "--modes", "rail"]
    assert main([*args, "--name", "as-jp"]) == 0
    assert main([*args, "--name", "as-us", "--country", "us"]) == 0
    capsys.readouterr()
    engine = make_engine(Config.from_env().effective_database_url)
    try:
        with unit_of_work_factory(engine)() as uow:
            jp, us = uow.maps.load("as-jp"), uow.maps.load("as-us")
            assert jp is not None and us is not None
            assert not [f for f in jp.features if f.kind == "admin-2"]
            assert [f.name for f in us.features if f.kind == "admin-2"] == ["Testland"]
    finally:
        engine.dispose()
    with pytest.raises(SystemExit) as exited:
        main([*args, "--country", "Japan"])
    assert exited.value.code == 2
    assert "'Japan' is not a two-letter country code" in capsys.readouterr().err
