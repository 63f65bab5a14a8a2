"""The shipped data files and their validation (§1, §20: AVA-6..AVA-12, AVA-166..AVA-175)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.engine import IllegalMove
from companion.games.ava.data import DataError, load_data
from tests.ava.helpers import copy_default_data, edit_json, new_game

spec = pytest.mark.spec


@spec("AVA-6", "AVA-7", "AVA-166")
def test_board_layout() -> None:
    data = load_data()
    assert len(data.squares) == 36
    kinds = {
        t: [s.number for s in data.squares if s.type == t]
        for t in ("territory", "fortune", "strategy", "secret", "special")
    }
    assert kinds["territory"] == [
        1,
        2,
        4,
        6,
        7,
        8,
        9,
        11,
        13,
        15,
        16,
        18,
        19,
        20,
        22,
        24,
        25,
        27,
        29,
        30,
        31,
        33,
        34,
        36,
    ]
    assert kinds["fortune"] == [3, 12, 21]
    assert kinds["strategy"] == [17, 26, 35]
    assert kinds["secret"] == [5, 14, 23, 32]
    assert kinds["special"] == [10, 28]
    assert data.square(1).ref == "uk" and data.square(19).ref == "germany"


@spec("AVA-8", "AVA-168")
def test_secret_names_in_source_order() -> None:
    data = load_data()
    assert [data.square(n).name_zh for n in (5, 14, 23, 32)] == [
        "中立銀行",
        "外國軍團",
        "秘密空軍基地",
        "地下工廠",
    ]
    assert all(sum(data.square(n).production) > 0 for n in (5, 14, 23, 32))


@spec("AVA-9", "AVA-169")
def test_special_natural_allies() -> None:
    data = load_data()
    assert (data.square(28).ref, data.square(28).natural_side) == ("usa", "allies")
    assert (data.square(10).ref, data.square(10).natural_side) == ("japan", "axis")


@spec("AVA-10", "AVA-167", "AVA-11")
def test_territories_constraints_hold_in_shipped_data() -> None:
    data = load_data()
    terr = [s for s in data.squares if s.type == "territory"]
    assert len(terr) == 24
    for ref in ("uk", "germany", "france", "italy", "albania", "norway"):
        assert ref in data.by_ref
    assert data.square(data.by_ref["albania"]).neutral_garrison == 10
    assert all(t.production[0] > 0 and t.production[1] > 0 for t in terr)
    assert all(t.neutral_garrison >= 1 for t in terr)
    assert all(t.seaport for t in terr if t.production[4] > 0)
    n_t, n_p, n_b = (sum(1 for t in terr if t.production[k] > 0) for k in (2, 3, 4))
    assert n_t >= n_p >= n_b >= 1
    # the suggested balance: UK ~ Germany and France ~ Italy
    uk, de = data.square(1), data.square(19)
    assert uk.production == de.production and uk.neutral_garrison == de.neutral_garrison


@spec("AVA-12", "AVA-171")
def test_unit_table() -> None:
    data = load_data()
    assert data.costs == (50, 140, 220, 300)
    assert data.powers == (1, 3, 5, 7)
    assert data.limits == (24, 16, 10, 6)
    assert [u.supports for u in data.units] == [("T", "P", "B"), ("P", "B"), ("B",), ()]


@spec("AVA-170", "AVA-21")
def test_modes_table() -> None:
    data = load_data()
    m = data.modes
    assert (m["regular"].resource_pct, m["regular"].penalty_pct, m["regular"].luck_pct) == (
        100,
        30,
        50,
    )
    assert (m["les_miserables"].resource_pct, m["les_miserables"].luck_pct) == (50, 65)
    assert m["fierce_battle"].penalty_pct == 50
    assert m["no_italy"].penalty_pct == 40
    assert m["no_italy"].allies_start == ("uk", "usa")
    assert data.mode_order() == ["regular", "les_miserables", "fierce_battle", "no_italy"]


@spec("AVA-172", "AVA-111")
def test_cards_file() -> None:
    data = load_data()
    spy = data.cards["S01"]
    assert spy.per_game_limit == 4 and spy.kept
    assert all(not c.kept for c in data.cards.values() if c.deck == "fortune")
    assert len([c for c in data.cards.values() if c.deck == "fortune"]) == 8
    assert len([c for c in data.cards.values() if c.deck == "strategy"]) == 10


@spec("AVA-173")
def test_ai_profiles_file() -> None:
    prof = load_data().ai_profiles
    assert [prof[k]["defense_share_pct"] for k in ("tank_ai", "plane_ai", "battleship_ai")] == [
        80,
        50,
        60,
    ]
    assert prof["battleship_ai"]["capital_defense_share_pct"] == 100
    assert prof["battleship_ai"]["advantage"] == {
        "money": 5000,
        "army": {"I": 20, "T": 6, "P": 3, "B": 1},
        "nukes": 1,
    }
    assert prof["battleship_ai"]["score_weights"]["win"] == 100000


@spec("AVA-174")
def test_settings_defaults_file() -> None:
    s = load_data().settings_defaults
    assert s["strategic_move_window_s"] == 3 and s["penalty_rounding"] == "half_up"
    assert s["resource_pct"] is None and s["unlock_all_modes"] is False


@spec("AVA-175")
def test_every_name_has_english_and_chinese() -> None:
    data = load_data()
    for sq in data.squares:
        assert sq.name_en and sq.name_zh
    for c in data.cards.values():
        assert c.name_en and c.name_zh
    for m in data.modes.values():
        assert m.name_en and m.name_zh
    for u in data.units:
        assert u.name_en and u.name_zh


BROKEN: list[tuple[str, Any, str, str]] = [
    ("board.json", lambda d: d["squares"].pop(), "board.json", "square"),
    ("board.json", lambda d: d["squares"][2].update(type="territory"), "board.json", "type"),
    ("board.json", lambda d: d["squares"][0].update(ref="france"), "board.json", "ref"),
    (
        "territories.json",
        lambda d: d["territories"][14].update(neutral_garrison=11),
        "territories.json",
        "neutral_garrison",
    ),
    (
        "territories.json",
        lambda d: d["territories"][3].update(neutral_garrison=0),
        "territories.json",
        "neutral_garrison",
    ),
    (
        "territories.json",
        lambda d: d["territories"][3]["production"].update(money=0),
        "territories.json",
        "production.money",
    ),
    (
        "territories.json",
        lambda d: d["territories"][3]["production"].update(I=0),
        "territories.json",
        "production.I",
    ),
    (
        "territories.json",
        lambda d: d["territories"][9]["production"].update(B=1),
        "territories.json",
        "production.B",
    ),
    (
        "territories.json",
        lambda d: d["territories"][3].update(name_en="France"),
        "territories.json",
        "name_en",
    ),
    (
        "territories.json",
        lambda d: d["territories"][3]["production"].update(T=-1),
        "territories.json",
        "production.T",
    ),
    ("territories.json", lambda d: d["territories"][4].update(id="zz"), "territories.json", "id"),
    (
        "secret_bases.json",
        lambda d: d["secret_bases"][0].update(production={"money": 0}),
        "secret_bases.json",
        "production",
    ),
    (
        "specials.json",
        lambda d: d["specials"][0].update(natural_side="allies"),
        "specials.json",
        "natural_side",
    ),
    (
        "modes.json",
        lambda d: d["modes"][0]["allies_start"].append("germany"),
        "modes.json",
        "axis_start",
    ),
    (
        "modes.json",
        lambda d: d["modes"][0]["allies_start"].append("atlantis"),
        "modes.json",
        "allies_start",
    ),
    ("units.json", lambda d: d["units"][0].update(cost="fifty"), "units.json", "cost"),
    (
        "cards.json",
        lambda d: d["cards"][8].update(per_game_limit=5),
        "cards.json",
        "per_game_limit",
    ),
    ("cards.json", lambda d: d["cards"][0].update(kept=True), "cards.json", "kept"),
    (
        "cards.json",
        lambda d: d["cards"][0]["effect"].update(kind="teleport"),
        "cards.json",
        "effect.kind",
    ),
    ("cards.json", lambda d: d["cards"][0].update(weight=0), "cards.json", "weight"),
    (
        "cards.json",
        lambda d: [c.update({"class": "beneficial"}) for c in d["cards"] if c["deck"] == "fortune"],
        "cards.json",
        "class",
    ),
    (
        "ai_profiles.json",
        lambda d: d["profiles"]["tank_ai"].update(defense_share_pct=120),
        "ai_profiles.json",
        "defense_share_pct",
    ),
    (
        "settings_defaults.json",
        lambda d: d["settings"].update(jail_limit=4),
        "settings_defaults.json",
        "jail_limit",
    ),
    (
        "settings_defaults.json",
        lambda d: d["settings"].pop("deck_model"),
        "settings_defaults.json",
        "deck_model",
    ),
]


@spec(
    "AVA-166",
    "AVA-167",
    "AVA-168",
    "AVA-169",
    "AVA-170",
    "AVA-171",
    "AVA-172",
    "AVA-173",
    "AVA-174",
)
@pytest.mark.parametrize(("file", "change", "want_file", "want_field"), BROKEN)
def test_broken_data_names_file_and_field(
    tmp_path: Path, file: str, change: Any, want_file: str, want_field: str
) -> None:
    folder = copy_default_data(tmp_path / "data")
    edit_json(folder, file, change)
    with pytest.raises(DataError) as info:
        load_data(folder)
    assert info.value.file == want_file
    assert info.value.field == want_field
    assert want_file in str(info.value)


@spec("AVA-166")
def test_invalid_json_and_missing_file(tmp_path: Path) -> None:
    folder = copy_default_data(tmp_path / "data")
    (folder / "board.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match=r"board\.json.*line 1"):
        load_data(folder)
    (folder / "board.json").unlink()
    with pytest.raises(DataError, match=r"board\.json.*missing"):
        load_data(folder)


@spec("AVA-174")
def test_broken_house_rules_folder_is_a_setup_error(tmp_path: Path) -> None:
    folder = copy_default_data(tmp_path / "data")
    edit_json(folder, "units.json", lambda d: d["units"].pop())
    with pytest.raises(IllegalMove) as info:
        new_game(fixture=False, data_dir=str(folder))
    assert info.value.code == "E_BAD_SETUP" and "units.json" in info.value.message


@spec("AVA-172")
def test_house_rules_card_needs_only_data(tmp_path: Path) -> None:
    folder = copy_default_data(tmp_path / "data")

    def add(d: dict[str, Any]) -> None:
        d["cards"].append(
            {
                "id": "F09",
                "deck": "fortune",
                "name_en": "Lend-Lease",
                "name_zh": "租借法案",
                "class": "beneficial",
                "kept": False,
                "per_game_limit": None,
                "weight": 3,
                "copies": 1,
                "effect": {"kind": "money_delta", "params": {"amount": 700}},
            }
        )

    edit_json(folder, "cards.json", add)
    assert load_data(folder).cards["F09"].weight == 3
