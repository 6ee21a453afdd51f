"""One typed settings object, read once from the environment.

The environment may be completed by a ``.env`` file (``KEY=value`` lines; ``HIDESEEK_ENV_FILE``
names another file): a variable set in the environment wins over the file. ``.env.example``
at the top of the repository lists every variable read here.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

#: A bot token as @BotFather hands it out: the bot's numeric id, a colon, a secret.
TOKEN_SHAPE = re.compile(r"[0-9]{3,}:[A-Za-z0-9_-]{30,}")
#: The public geocoder and Overpass instances (main and a mirror) used unless configured.
NOMINATIM_URL = "https://nominatim.openstreetmap.org"
OVERPASS_URLS = (
    "https://overpass-api.de/api/interpreter",
    "https://overpass.kumi.systems/api/interpreter",
)
#: Nominatim's and Overpass's usage policies ask every client to name itself.
USER_AGENT = "hideseek_chat/0.1 (+https://github.com/hideseek-chat/hideseek_chat)"
#: The basemap tiles of the pictures (OpenStreetMap's own; "off" in HIDESEEK_TILE_URL draws
#: plain maps) and how many tile requests a second the whole bot may send (their policy).
TILE_URL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
TILE_RATE_PER_S = 2.0
#: A map fetched for the same area and modes this recently is used again, not fetched.
MAP_MAX_AGE_DAYS = 30.0
#: What Telegram accepts as a webhook's secret token.
SECRET_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,256}")
#: Pings one tracker token may send a minute before the server answers 429.
TRACKER_RATE_PER_MIN = 120


@dataclass(frozen=True)
class SmsSettings:
    """The SMS gateway (Twilio or a compatible one): its account, the number texts come
    from, the public base URL its webhooks reach (``/sms``, ``/sms/status`` under it)."""

    account_sid: str
    auth_token: str
    sender: str
    public_url: str
    api_url: str | None = None  # another REST API than Twilio's
    region: str | None = None  # the country a number without "+" is read in


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
    port: int = 8080
    #: whether the web server (health, metrics) runs in long polling mode too: PORT or
    #: HIDESEEK_WEB_PORT is set (the webhook mode always serves)
    serve_web: bool = False
    host: str = "0.0.0.0"
    webhook_url: str | None = None
    webhook_secret: str | None = None
    nominatim_url: str = NOMINATIM_URL
    overpass_urls: tuple[str, ...] = OVERPASS_URLS
    user_agent: str = USER_AGENT
    map_max_age: timedelta = timedelta(days=MAP_MAX_AGE_DAYS)
    tile_url: str | None = TILE_URL
    tile_rate_per_s: float = TILE_RATE_PER_S
    #: the public address tracker apps reach (PUBLIC_URL); None: WEBHOOK_URL's origin
    public_url: str | None = None
    tracker_rate_per_min: int = TRACKER_RATE_PER_MIN

    @property
    def tracker_url(self) -> str | None:
        """Where tracker apps reach the web server: PUBLIC_URL, else WEBHOOK_URL's scheme and
        host, else the SMS channel's public URL (the same server); None when none is set
        (no tracker links are handed out)."""
        if self.public_url:
            return self.public_url.rstrip("/")
        if self.webhook_url:
            parts = urlsplit(self.webhook_url)
            return f"{parts.scheme}://{parts.netloc}"
        if self.sms is not None:
            return self.sms.public_url.rstrip("/")
        return None

    #: the SMS channel, when TWILIO_ACCOUNT_SID and its companions are set
    sms: SmsSettings | None = None

    @property
    def tile_cache_dir(self) -> Path:
        """Where fetched tiles are kept (at least a week, as the tile usage policy asks)."""
        return self.data_dir / "tiles"

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

    def require_telegram_token(self) -> str:
        """Return the bot token; raise ``ConfigError`` when it is missing or malformed."""
        token = (self.telegram_token or "").strip()
        if not token:
            raise ConfigError(
                "TELEGRAM_BOT_TOKEN is not set; ask @BotFather for a token and export it."
            )
        if not TOKEN_SHAPE.fullmatch(token):
            # Never echo the token: it is a secret and may end up in a shared log.
            raise ConfigError(
                "TELEGRAM_BOT_TOKEN does not look like a bot token"
                " (digits, a colon, then the secret part, e.g. 123456:ABC-DEF...)."
            )
        return token

    def require_webhook_url(self) -> str:
        """Return WEBHOOK_URL; raise ``ConfigError`` when it is not set."""
        if not self.webhook_url:
            raise ConfigError(
                "WEBHOOK_URL is not set; give the public https:// address Telegram should call."
            )
        return self.webhook_url

    @property
    def effective_webhook_secret(self) -> str:
        """WEBHOOK_SECRET, or a stable secret derived from the token's hash."""
        if self.webhook_secret:
            return self.webhook_secret
        token = self.require_telegram_token()
        return hashlib.sha256(f"hideseek-chat webhook {token}".encode()).hexdigest()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read the settings from ``env``; by default the environment over the ``.env`` file."""
        env = environment() if env is None else env
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
        port_name = "HIDESEEK_WEB_PORT" if env.get("HIDESEEK_WEB_PORT", "").strip() else "PORT"
        port_text = env.get(port_name, "").strip() or "8080"
        if not (port_text.isascii() and port_text.isdigit()) or not 0 < int(port_text) < 65536:
            raise ConfigError(
                f"{port_name} must be a port number from 1 to 65535, not {port_text!r}."
            )
        host = env.get("HOST", "").strip() or "0.0.0.0"
        if not re.fullmatch(r"[A-Za-z0-9.:\-]{1,253}", host):
            raise ConfigError(
                f"HOST must be an address to listen on, such as 0.0.0.0, not {host!r}."
            )
        webhook_url = env.get("WEBHOOK_URL", "").strip() or None
        if webhook_url is not None:
            parts = urlsplit(webhook_url)
            if parts.scheme not in ("https", "http") or not parts.hostname:
                raise ConfigError(
                    f"WEBHOOK_URL must be an https:// address with a host, not {webhook_url!r}."
                )
        secret = env.get("WEBHOOK_SECRET", "").strip() or None
        if secret is not None and not SECRET_SHAPE.fullmatch(secret):
            raise ConfigError(
                "WEBHOOK_SECRET must be 1 to 256 letters, digits, '_' or '-' (Telegram's rule)."
            )
        nominatim = _http_url(env, "HIDESEEK_NOMINATIM_URL") or NOMINATIM_URL
        overpass = tuple(
            _checked_url("HIDESEEK_OVERPASS_URLS", u.strip())
            for u in env.get("HIDESEEK_OVERPASS_URLS", "").split(",")
            if u.strip()
        )
        max_age_text = env.get("HIDESEEK_MAP_MAX_AGE_DAYS", "").strip() or str(MAP_MAX_AGE_DAYS)
        try:
            max_age = float(max_age_text)
        except ValueError:
            raise ConfigError(
                f"HIDESEEK_MAP_MAX_AGE_DAYS must be a number, not {max_age_text!r}."
            ) from None
        if not 0 <= max_age <= 3650:
            raise ConfigError("HIDESEEK_MAP_MAX_AGE_DAYS must be from 0 to 3650.")
        tile_url, tile_rate = _tile_settings(env)
        public_url, tracker_rate = _tracker_settings(env)
        dirs = tuple(Path(p) for p in env.get("HIDESEEK_RULESETS_DIR", "").split(os.pathsep) if p)
        return cls(
            telegram_token=env.get("TELEGRAM_BOT_TOKEN") or None,
            telegram_base_url=env.get("TELEGRAM_BASE_URL") or None,
            database_url=env.get("DATABASE_URL") or None,
            data_dir=Path(env.get("HIDESEEK_DATA_DIR", "") or "."),
            clock_speed=speed,
            rulesets_dirs=dirs,
            ping_retention=timedelta(hours=retention),
            port=int(port_text),
            serve_web=bool(env.get(port_name, "").strip()),
            host=host,
            webhook_url=webhook_url,
            webhook_secret=secret,
            nominatim_url=nominatim,
            overpass_urls=overpass or OVERPASS_URLS,
            user_agent=env.get("HIDESEEK_USER_AGENT", "").strip() or USER_AGENT,
            map_max_age=timedelta(days=max_age),
            tile_url=tile_url,
            tile_rate_per_s=tile_rate,
            public_url=public_url,
            tracker_rate_per_min=tracker_rate,
            sms=_sms_settings(env),
        )


#: The file of settings read when the environment does not name another (HIDESEEK_ENV_FILE).
ENV_FILE = ".env"
_ENV_LINE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")


def environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment over the settings of the ``.env`` file (when there is one)."""
    environ = os.environ if environ is None else environ
    named = environ.get("HIDESEEK_ENV_FILE", "").strip()
    path = Path(named or ENV_FILE)
    if not path.is_file():
        if named:
            raise ConfigError(f"HIDESEEK_ENV_FILE names {str(path)!r}, which is not a file.")
        return dict(environ)
    return {**read_env_file(path), **environ}


def load_env_file() -> None:
    """Put the ``.env`` file's settings into the process's environment where it has none, so
    that what reads the environment outside ``Config`` (the log settings, the migrations'
    location) sees them too. The command line calls it once, first."""
    for name, value in environment().items():
        os.environ.setdefault(name, value)


def read_env_file(path: Path) -> dict[str, str]:
    """Parse a ``.env`` file: ``KEY=value`` lines, ``#`` comments, optional ``export`` and
    quotes. Raise ``ConfigError`` naming the line (never its value: it may be a secret)."""
    values: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {type(err).__name__}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _ENV_LINE.fullmatch(line)
        if match is None:
            raise ConfigError(f"{path}, line {number}: expected NAME=value.")
        name, value = match.groups()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:  # a comment after an unquoted value
            value = value.split(" #", 1)[0].rstrip()
        values[name] = value
    return values


def _tracker_settings(env: Mapping[str, str]) -> tuple[str | None, int]:
    """PUBLIC_URL and HIDESEEK_TRACKER_RATE (pings a minute per tracker); ConfigError when
    malformed."""
    public_url = _http_url(env, "PUBLIC_URL")
    rate_text = env.get("HIDESEEK_TRACKER_RATE", "").strip() or str(TRACKER_RATE_PER_MIN)
    if not (rate_text.isascii() and rate_text.isdigit()) or not 0 < int(rate_text) <= 100_000:
        raise ConfigError(
            f"HIDESEEK_TRACKER_RATE must be a whole number of pings a minute, not {rate_text!r}."
        )
    return public_url, int(rate_text)


def _tile_settings(env: Mapping[str, str]) -> tuple[str | None, float]:
    """HIDESEEK_TILE_URL (None when "off") and HIDESEEK_TILE_RATE; ConfigError when malformed."""
    url: str | None = env.get("HIDESEEK_TILE_URL", "").strip() or TILE_URL
    if url is not None and url.lower() == "off":
        url = None
    if url is not None:
        _checked_url("HIDESEEK_TILE_URL", url)
        if not all(key in url for key in ("{z}", "{x}", "{y}")):
            raise ConfigError(
                "HIDESEEK_TILE_URL must hold {z}, {x} and {y} (like the default "
                f"{TILE_URL}), or be off, not {url!r}."
            )
    rate_text = env.get("HIDESEEK_TILE_RATE", "").strip() or str(TILE_RATE_PER_S)
    try:
        rate = float(rate_text)
    except ValueError:
        raise ConfigError(f"HIDESEEK_TILE_RATE must be a number, not {rate_text!r}.") from None
    if not 0 < rate <= 50:
        raise ConfigError("HIDESEEK_TILE_RATE must be more than 0 and at most 50 a second.")
    return url, rate


def _http_url(env: Mapping[str, str], name: str) -> str | None:
    """The http(s) URL in ``env[name]`` (None when unset); raise ConfigError when malformed."""
    value = env.get(name, "").strip()
    return _checked_url(name, value) if value else None


def _checked_url(name: str, value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ConfigError(f"{name} must hold http(s):// addresses with a host, not {value!r}.")
    return value


def _sms_settings(env: Mapping[str, str]) -> SmsSettings | None:
    """TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, SMS_FROM and SMS_PUBLIC_URL (all or none),
    SMS_API_URL and SMS_REGION; ConfigError when incomplete or malformed."""
    names = ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "SMS_FROM", "SMS_PUBLIC_URL")
    values = {name: env.get(name, "").strip() for name in names}
    if not any(values.values()):
        return None
    missing = [name for name, value in values.items() if not value]
    if missing:
        raise ConfigError(f"The SMS channel needs {', '.join(missing)} as well.")
    public = _checked_url("SMS_PUBLIC_URL", values["SMS_PUBLIC_URL"])
    region = env.get("SMS_REGION", "").strip().upper() or None
    if region is not None and not re.fullmatch(r"[A-Z]{2}", region):
        raise ConfigError(f"SMS_REGION must be a two-letter country code, not {region!r}.")
    return SmsSettings(
        account_sid=values["TWILIO_ACCOUNT_SID"],
        auth_token=values["TWILIO_AUTH_TOKEN"],
        sender=values["SMS_FROM"],
        public_url=public,
        api_url=_http_url(env, "SMS_API_URL"),
        region=region,
    )
