"""Settings from one TOML file, with documented defaults; unknown keys and bad values are errors.

Lookup: ``--config PATH``, else ``$TABLETOP_COMPANION_CONFIG``, else
``~/.config/tabletop-companion/config.toml`` if it exists, else the defaults below.
"""

from __future__ import annotations

import os
import tempfile
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
    pin: str = Field(
        "", pattern=r"^(\d{4,8})?$",
        description="Table PIN that players and spectators join with; empty: a new one per start.",
    )
    host_pin: str = Field(
        "", pattern=r"^(\d{4,8})?$",
        description="PIN of the host role (runs the table); empty: a new one per start.",
    )


class StorageConfig(_Section):
    db: Path = Field(DEFAULT_DB, description="The session database; photos go beside it.")


class SpinnerConfig(_Section):
    steps_per_rev: int = Field(
        800, ge=12, le=100_000,
        description="Quadrature steps per spinner revolution (the BOM's encoder: 800).",
    )
    sectors: int = Field(6, ge=2, le=64, description="Sectors on the spinner's face.")
    offset_steps: int = Field(
        0, description="Steps from the encoder's zero to the start of sector 1 (calibration)."
    )
    settle_ms: int = Field(
        400, ge=50, le=5000, description="A spin is over when no step came for this long."
    )
    min_turn: float = Field(
        0.5, ge=0.0, le=10.0, description="Least movement, in turns, that counts as a spin."
    )
    guard_steps: int = Field(
        1, ge=0, description="Steps either side of a sector edge that make a stop ambiguous."
    )
    use_index: bool = Field(
        True, description="Re-zero on the index sensor (hall or encoder Z) every pass."
    )


class LinkConfig(_Section):
    port: str = Field("", description="Serial port of the tower; empty: find the Pico by USB ID.")
    baudrate: int = Field(115200, ge=1200, description="Serial speed (USB CDC ignores it).")
    heartbeat_timeout_s: float = Field(
        5.0, gt=0, description="The link counts as lost after this long without a line."
    )
    drop_quiet_ms: int = Field(
        1500, ge=100, le=10_000,
        description="A drop is over once the exit beam was quiet this long.",
    )
    debounce_us: int = Field(
        1000, ge=100, le=20_000, description="A beam level counts once it held this long."
    )


class CameraConfig(_Section):
    kind: str = Field(
        "auto",
        pattern="^(auto|picamera2|opencv|folder|synthetic)$",
        description="auto, picamera2, opencv (USB webcam), folder (replay photos) or synthetic.",
    )
    device: str = Field("0", description="OpenCV device index or path; the folder for 'folder'.")
    profile: Path | None = Field(None, description="Calibration profile of the tray (JSON).")
    exposure_us: int | None = Field(
        None, ge=10, le=10_000_000,
        description="Pi camera exposure locked by 'companion camera lock' (microseconds).",
    )
    analogue_gain: float | None = Field(None, ge=1.0, le=64.0, description="Locked sensor gain.")
    colour_gains: tuple[float, float] | None = Field(
        None, description="Locked red and blue white-balance gains."
    )


class HardwareConfig(_Section):
    simulate: bool = Field(False, description="Use simulated spinner, tower and camera.")
    pins: Path | None = Field(
        None, description="Pin map (TOML); empty: the hardware/pins.toml shipped with the code."
    )
    spinner: SpinnerConfig = SpinnerConfig()
    link: LinkConfig = LinkConfig()
    camera: CameraConfig = CameraConfig()


class ReadingsConfig(_Section):
    auto_accept: bool = Field(
        True, description="Apply a sure automatic reading at once; doubtful ones always ask."
    )
    confirm_ai_moves: bool = Field(
        True,
        description="At a physical table an AI's move waits until a person confirms it was "
        "carried out on the board (always off in simulation).",
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


def config_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The file a config is read from and written to."""
    chosen = explicit or os.environ.get("TABLETOP_COMPANION_CONFIG")
    return Path(chosen).expanduser() if chosen else DEFAULT_CONFIG.expanduser()


def update_config_file(
    explicit: str | os.PathLike[str] | None, section: tuple[str, ...], values: dict[str, Any]
) -> Path:
    """Store ``values`` in one section (e.g. ``("hardware", "spinner")``) of the config file,
    keeping the file's other settings, written atomically; returns the file's path."""
    target = config_path(explicit)
    file_config = load_config(target)[0] if target.exists() else Config()
    data = file_config.model_dump(mode="json", exclude_none=True)
    node = data
    for key in section:
        node = node.setdefault(key, {})
    node.update(values)
    updated = parse_config(data, str(target))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(to_toml(updated))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConfigError(f"{target}: cannot write ({exc.strerror or exc})") from exc
    return target


def to_toml(config: Config) -> str:
    """The effective config as TOML, each key with its description as a comment."""
    lines: list[str] = []
    _emit(config, "", lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _emit(section: BaseModel, name: str, lines: list[str]) -> None:
    nested = []
    if name:
        lines += ["", f"[{name}]"]
    for key, field in type(section).model_fields.items():
        value = getattr(section, key)
        if isinstance(value, BaseModel):
            nested.append((key, value))
            continue
        if field.description:
            lines.append(f"# {field.description}")
        if value is None:
            lines.append(f"# {key} =  (not set)")
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in nested:
        _emit(value, f"{name}.{key}" if name else key, lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
