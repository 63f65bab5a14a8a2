"""Config: documented defaults, unknown keys and bad values are errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import Config, ConfigError, load_config, parse_config, to_toml


def test_defaults_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("TABLETOP_COMPANION_CONFIG", raising=False)
    config, source = load_config()
    assert source is None and config.server.port == 8000
    assert str(config.db_path).startswith(str(tmp_path))


def test_values_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[server]\nport = 9000\n[storage]\ndb = "/tmp/x.db"\n')
    config, source = load_config(path)
    assert source == path and config.server.port == 9000 and str(config.db_path) == "/tmp/x.db"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"server": {"prot": 1}}, "server.prot: unknown key"),
        ({"srever": {}}, "srever: unknown key"),
        ({"server": {"port": 0}}, "server.port: Input should be greater than or equal to 1"),
        ({"server": {"port": "eighty"}}, "server.port:"),
        ({"readings": {"auto_accept": "maybe"}}, "readings.auto_accept:"),
    ],
)
def test_bad_config_names_the_key(data: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        parse_config(data, "c.toml")


def test_broken_toml_and_missing_explicit_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[server\nport = ")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "missing.toml")


def test_shown_config_parses_back_to_the_same() -> None:
    import tomllib

    config = parse_config({"server": {"port": 8123}, "games": {"extra": ["a.b:C"]}})
    assert parse_config(tomllib.loads(to_toml(config))) == config
    assert to_toml(Config()).count("# ") >= 6  # every key documented
