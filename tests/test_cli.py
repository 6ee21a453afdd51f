from pathlib import Path

import pytest

from hideseek_chat.cli import main
from hideseek_chat.config import Config, ConfigError
from hideseek_chat.rules.ruleset import ruleset_paths


def test_rulesets_lists_every_shipped_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulesets"]) == 0
    out = capsys.readouterr().out
    for name in ("metric", "us", "stillwater"):
        assert f"{name}:" in out
    assert "tentacle 0" in out and "100 cards" in out


def test_rulesets_check_reports_a_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
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


def test_db_upgrade_then_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HIDESEEK_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["db", "upgrade"]) == 0
    assert (tmp_path / "hideseek.sqlite3").is_file()
    assert main(["db", "check"]) == 0
    assert "agree" in capsys.readouterr().out
