"""Settings from the environment over an optional ``.env`` file, and ``.env.example``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from hideseek_chat import config as config_module
from hideseek_chat.cli import main
from hideseek_chat.config import Config, ConfigError, environment, read_env_file
from tests.telegram.factories import TOKEN

ROOT = Path(__file__).resolve().parents[1]


def test_a_dotenv_file_fills_what_the_environment_leaves_unset(tmp_path: Path) -> None:
    dotenv = tmp_path / "bot.env"
    dotenv.write_text(
        "# the bot\n"
        f"TELEGRAM_BOT_TOKEN={TOKEN}\n"
        "export PORT=9001\n"
        "WEBHOOK_URL='https://bot.example.org/hook'  \n"
        'HIDESEEK_USER_AGENT="my bot (me@example.org)"\n'
        "HIDESEEK_CLOCK_SPEED=2 # rehearsal\n"
        "\n"
        "DATABASE_URL=sqlite:////from/the/file.sqlite3\n",
        encoding="utf-8",
    )
    env = environment({"HIDESEEK_ENV_FILE": str(dotenv), "DATABASE_URL": "postgres://u@db/hs"})
    config = Config.from_env(env)
    assert config.telegram_token == TOKEN
    assert config.port == 9001
    assert config.webhook_url == "https://bot.example.org/hook"
    assert config.user_agent == "my bot (me@example.org)"
    assert config.clock_speed == 2
    # The environment wins over the file.
    assert config.effective_database_url == "postgresql+psycopg://u@db/hs"


def test_dotenv_in_the_working_directory_is_read_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HIDESEEK_ENV_FILE", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    assert Config.from_env().port == 8080
    (tmp_path / ".env").write_text("PORT=9123\n", encoding="utf-8")
    assert Config.from_env().port == 9123
    monkeypatch.setenv("PORT", "9124")
    assert Config.from_env().port == 9124


def test_a_named_env_file_must_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="HIDESEEK_ENV_FILE"):
        environment({"HIDESEEK_ENV_FILE": str(tmp_path / "missing.env")})
    monkeypatch.chdir(tmp_path)
    assert environment({"HIDESEEK_ENV_FILE": " ", "PORT": "1"}) == {
        "HIDESEEK_ENV_FILE": " ",
        "PORT": "1",
    }


def test_a_malformed_line_is_named_without_echoing_it(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"PORT=1\nthis is {TOKEN}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 2") as caught:
        read_env_file(dotenv)
    assert TOKEN not in str(caught.value)


#: The modules that read the environment: the settings, the logs, the migrations' location.
READERS = ("config.py", "logs.py", "store/migrate.py")


def _variables_read() -> set[str]:
    """Every variable name the package reads from the environment (found in the source)."""
    names: set[str] = set()
    package = Path(config_module.__file__).parent
    for reader in READERS:
        source = (package / reader).read_text(encoding="utf-8")
        names |= set(re.findall(r'env(?:iron)?\.get\(\s*"([A-Z][A-Z0-9_]+)"', source))
        names |= set(re.findall(r'_(?:http|checked)_url\((?:env, )?"([A-Z][A-Z0-9_]+)"', source))
        for group in re.findall(r"names = \(([^)]*)\)", source):  # read together (SMS)
            names |= set(re.findall(r'"([A-Z][A-Z0-9_]+)"', group))
        for choice in re.findall(r'port_name = "([A-Z_]+)" if .* else "([A-Z_]+)"', source):
            names |= set(choice)
    return names - {"HIDESEEK_ENV_FILE"}


def test_no_other_module_reads_the_environment() -> None:
    package = Path(config_module.__file__).parent
    readers = {
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if re.search(r"os\.environ|os\.getenv|getenv\(", path.read_text(encoding="utf-8"))
    }
    assert readers <= set(READERS), readers - set(READERS)


#: Variables of ``.env.example`` that compose.yaml reads, not the bot.
COMPOSE_ONLY = {"BOT_MODE", "POSTGRES_PASSWORD"}


def test_env_example_documents_every_variable_the_config_reads() -> None:
    example = read_env_file(ROOT / ".env.example")
    read = _variables_read()
    assert {
        "TELEGRAM_BOT_TOKEN",
        "DATABASE_URL",
        "HIDESEEK_TILE_URL",
        "PORT",
        "HIDESEEK_LOG_FORMAT",
        "HIDESEEK_MIGRATIONS",
    } <= read
    assert read - set(example) == set(), "variables missing from .env.example"
    assert set(example) - read == COMPOSE_ONLY, ".env.example names variables nobody reads"
    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    assert all(f"${{{name}:-" in compose for name in COMPOSE_ONLY)


def test_env_example_as_it_ships_is_a_valid_configuration() -> None:
    example = read_env_file(ROOT / ".env.example")
    settings = {k: v for k, v in example.items() if k not in COMPOSE_ONLY}
    config = Config.from_env({**settings, "TELEGRAM_BOT_TOKEN": TOKEN})
    # The example shows the defaults; its PORT has long polling serve /healthz too.
    assert config == Config(telegram_token=TOKEN, serve_web=True)


def _unset(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Unset ``names`` for the test; whatever the test sets under them goes afterwards."""
    for name in names:
        monkeypatch.setenv(name, "-")
        monkeypatch.delenv(name)


def test_the_command_line_reads_dotenv_for_the_log_settings_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _unset(monkeypatch, "TELEGRAM_BOT_TOKEN", "HIDESEEK_LOG_FORMAT", "HIDESEEK_ENV_FILE", "PORT")
    monkeypatch.setenv("HIDESEEK_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PORT", "9301")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        f"TELEGRAM_BOT_TOKEN={TOKEN}\nHIDESEEK_LOG_FORMAT=xml\nPORT=9300\n", encoding="utf-8"
    )
    assert main(["run"]) == 2  # logs.setup reads the environment, filled from .env
    err = capsys.readouterr().err
    assert "HIDESEEK_LOG_FORMAT must be text or json" in err
    assert os.environ["PORT"] == "9301"  # the environment wins
    assert not (tmp_path / "hideseek.sqlite3").exists()  # refused before anything connected
