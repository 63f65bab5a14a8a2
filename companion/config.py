"""Settings from one TOML file, with documented defaults; unknown keys and bad values are errors.

Lookup: ``--config PATH``, else ``$TABLETOP_COMPANION_CONFIG``, else
``~/.config/tabletop-companion/config.toml`` if it exists, else the defaults below.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from companion.errors import CompanionError

DEFAULT_CONFIG = Path("~/.config/tabletop-companion/config.toml")
DEFAULT_DB = Path("~/.local/share/tabletop-companion/companion.db")


class ConfigError(CompanionError):
    pass


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerConfig(_Section):
    host: str = Field("127.0.0.1", description="Address to listen on; 0.0.0.0 for the LAN.")
    port: int = Field(8000, ge=1, le=65535, description="TCP port of the dashboard.")
    threads: int = Field(
        24, ge=4, le=256, description="Worker threads; each live tablet stream holds one."
    )


class StorageConfig(_Section):
    db: Path = Field(DEFAULT_DB, description="The session database; photos go beside it.")


class HardwareConfig(_Section):
    simulate: bool = Field(False, description="Use simulated spinner, tower and camera.")


class ReadingsConfig(_Section):
    auto_accept: bool = Field(
        True, description="Apply a sure automatic reading at once; doubtful ones always ask."
    )


class GamesConfig(_Section):
    extra: list[str] = Field(
        default_factory=list,
        description="More games, as 'package.module:attribute' of a Game instance.",
    )


class Config(_Section):
    server: ServerConfig = ServerConfig()
    storage: StorageConfig = StorageConfig()
    hardware: HardwareConfig = HardwareConfig()
    readings: ReadingsConfig = ReadingsConfig()
    games: GamesConfig = GamesConfig()

    @property
    def db_path(self) -> Path:
        return self.storage.db.expanduser()


def load_config(path: str | os.PathLike[str] | None = None) -> tuple[Config, Path | None]:
    """The config and the file it came from (``None`` when only defaults apply)."""
    explicit = path or os.environ.get("TABLETOP_COMPANION_CONFIG")
    candidate = Path(explicit).expanduser() if explicit else DEFAULT_CONFIG.expanduser()
    if not candidate.exists():
        if explicit:
            raise ConfigError(f"{candidate}: no such config file")
        return Config(), None
    try:
        data = tomllib.loads(candidate.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{candidate}: cannot read ({exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{candidate}: not valid TOML ({exc})") from exc
    return parse_config(data, str(candidate)), candidate


def parse_config(data: dict[str, Any], source: str = "config") -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            key = ".".join(str(part) for part in error["loc"])
            message = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
            problems.append(f"{key}: {message}")
        raise ConfigError(f"{source}: " + "; ".join(problems)) from exc


def to_toml(config: Config) -> str:
    """The effective config as TOML, each key with its description as a comment."""
    lines: list[str] = []
    for section_name in Config.model_fields:
        section = getattr(config, section_name)
        lines.append(f"[{section_name}]")
        for key, field in type(section).model_fields.items():
            if field.description:
                lines.append(f"# {field.description}")
            lines.append(f"{key} = {_toml_value(getattr(section, key))}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
