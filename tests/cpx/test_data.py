"""Default data and its validation (§15: CPX-141..CPX-150, §1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from companion.games.cpx.data import DATA_DIR, DataInvalid, default_data, load_data

from .helpers import fixture_data


def test_shipped_data_loads_cpx_141_cpx_17_cpx_22_cpx_23() -> None:
    """CPX-141, CPX-17, CPX-22, CPX-23: the shipped folder passes every constraint."""
    d = default_data()
    assert len(d.bases) == 50 and len(d.cards) == 50
    assert all(len(c.abilities) == 2 for c in d.cards)
    assert {d.card_by_id[b.card].base for b in d.bases} == {b.id for b in d.bases}


def test_factions_cpx_10_cpx_142() -> None:
    """CPX-10, CPX-142: the four factions, colours and priorities."""
    d = default_data()
    assert [(f.id, f.colour, f.priority) for f in sorted(d.factions, key=lambda f: f.priority)] == [
        ("soviet", "red", 1),
        ("allies", "blue", 2),
        ("rising_sun", "yellow", 3),
        ("orcs", "green", 4),
    ]


def test_map_constraints_cpx_143_cpx_18_cpx_20() -> None:
    """CPX-143, CPX-18, CPX-20: 3 candidates per faction, route colours, coordinates."""
    d = default_data()
    for colour in ("red", "blue", "yellow", "green"):
        assert sum(1 for b in d.bases if b.faction_colour == colour) == 3
    assert all(b.x or b.y for b in d.bases)
    assert sum(len(v) for v in d.adjacency.values()) / 50 >= 3


def test_cards_and_recruitment_cpx_144_cpx_145_cpx_146_cpx_25_cpx_149() -> None:
    """CPX-144, CPX-145, CPX-146, CPX-25, CPX-149: designed cards, kinds, four cards."""
    d = default_data()
    assert d.card_by_id["C13"].abilities[1].params == {"sacrifice": 2, "destroy": 3}
    assert d.card_by_id["C19"].abilities[1].text_zh.startswith("一回合内")
    assert len({rc.cells for rc in d.recruitment}) == 4


def test_supply_and_defaults_cpx_147_cpx_148_cpx_11() -> None:
    """CPX-147, CPX-148, CPX-11: 60 per colour and every option's default."""
    d = default_data()
    assert set(d.supply.values()) == {60}
    assert d.settings_defaults["all_terrain_reading"] == "protect"


def test_squads_label_model_cpx_26() -> None:
    """CPX-26: RC-T gives [3], [2, 3], [4, 3, 2, 3], [5, 4, 3, 2, 3]."""
    rc = fixture_data().recruitment[0]
    assert rc.squads(1) == [3]
    assert rc.squads(4) == [2, 3]
    assert rc.squads(12) == [4, 3, 2, 3]
    assert rc.squads(25) == [5, 4, 3, 2, 3]


def _broken(tmp_path: Path, name: str, edit) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(DATA_DIR, dst)
    path = dst / name
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return dst


@pytest.mark.parametrize(
    ("name", "edit", "field"),
    [
        ("map.json", lambda m: m["routes"].append(dict(m["routes"][0])), "a/b"),
        ("map.json", lambda m: m["bases"][0].update(faction_colour="purple"), "faction_colour"),
        (
            "map.json",
            lambda m: m["routes"].__setitem__(0, {**m["routes"][0], "colour": "red"}),
            "colour",
        ),
        ("base_cards.json", lambda c: c[0].update(type="submarine"), "type"),
        ("base_cards.json", lambda c: c[0]["abilities"][0].update(name_en="Other"), "name_en"),
        ("base_cards.json", lambda c: c[30]["abilities"][0]["params"].update(n=7), "params.n"),
        ("recruitment_cards.json", lambda r: r[0]["cells"].reverse(), "cells"),
        ("supply.json", lambda s: s.update(red=59), "red"),
    ],
)
def test_bad_data_is_refused_naming_file_and_field_cpx_141(tmp_path, name, edit, field) -> None:
    """CPX-141: E_DATA_INVALID names the file, the entry and the field."""
    with pytest.raises(DataInvalid) as err:
        load_data(_broken(tmp_path, name, edit))
    assert err.value.code == "E_DATA_INVALID"
    assert err.value.file == name
    assert err.value.field == field


def test_fixture_loader_checks_structure_only_cpx_150() -> None:
    """CPX-150: the §14 fixture (22 bases, RC-T) loads with the structural checks only."""
    d = fixture_data()
    assert len(d.bases) == 22
    assert d.route("B1", "B4") == "blue"
    with pytest.raises(DataInvalid):
        load_data(DATA_DIR.parent / "no-such-folder")
