"""One typed settings object, read once from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path


class ConfigError(ValueError):
    """A setting is malformed; the message is one sentence for the person running the bot."""


@dataclass(frozen=True)
class Config:
    telegram_token: str | None = None
    telegram_base_url: str | None = None
    database_url: str | None = None
    data_dir: Path = Path(".")
    clock_speed: float = 1.0
    rulesets_dirs: tuple[Path, ...] = field(default_factory=tuple)
    ping_retention: timedelta = timedelta(hours=24)

    @property
    def effective_database_url(self) -> str:
        """DATABASE_URL (with the psycopg 3 driver for PostgreSQL), or a SQLite file."""
        url = (self.database_url or "").strip()
        if not url:
            return f"sqlite:///{self.data_dir / 'hideseek.sqlite3'}"
        # Hosting platforms hand out postgres:// URLs; SQLAlchemy wants an explicit driver.
        for prefix in ("postgres://", "postgresql://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        speed_text = env.get("HIDESEEK_CLOCK_SPEED", "1")
        try:
            speed = float(speed_text)
        except ValueError:
            raise ConfigError(
                f"HIDESEEK_CLOCK_SPEED must be a number, not {speed_text!r}."
            ) from None
        if not 0 < speed <= 10_000:
            raise ConfigError("HIDESEEK_CLOCK_SPEED must be more than 0 and at most 10000.")
        retention_text = env.get("HIDESEEK_PING_RETENTION_HOURS", "").strip() or "24"
        try:
            retention = float(retention_text)
        except ValueError:
            raise ConfigError(
                f"HIDESEEK_PING_RETENTION_HOURS must be a number, not {retention_text!r}."
            ) from None
        if retention < 0:
            raise ConfigError("HIDESEEK_PING_RETENTION_HOURS must not be negative.")
        dirs = tuple(Path(p) for p in env.get("HIDESEEK_RULESETS_DIR", "").split(os.pathsep) if p)
        return cls(
            telegram_token=env.get("TELEGRAM_BOT_TOKEN") or None,
            telegram_base_url=env.get("TELEGRAM_BASE_URL") or None,
            database_url=env.get("DATABASE_URL") or None,
            data_dir=Path(env.get("HIDESEEK_DATA_DIR", "") or "."),
            clock_speed=speed,
            rulesets_dirs=dirs,
            ping_retention=timedelta(hours=retention),
        )
