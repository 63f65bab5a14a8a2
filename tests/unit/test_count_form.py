"""CountForm: the contract's exact description of count-shaped commands."""

from __future__ import annotations

from companion.engine import Command, CountForm, Limit

RECRUIT = CountForm(
    "recruit",
    seat=0,
    counts={"I": (0, 5), "T": (0, 2)},
    limits=(Limit("cost", {"I": 100, "T": 300}, max=700), Limit("units", {"I": 1, "T": 1}, min=1)),
)


def test_admits_counts_within_ranges_and_limits() -> None:
    assert RECRUIT.admits(Command("recruit", {"I": 4, "T": 1}, seat=0))
    assert RECRUIT.admits(Command("recruit", {"T": 2}, seat=0))  # a missing count is 0


def test_refuses_what_breaks_a_range_a_limit_or_the_shape() -> None:
    refused = [
        Command("recruit", {"I": 6}, seat=0),  # above the range
        Command("recruit", {"I": -1, "T": 1}, seat=0),  # below it
        Command("recruit", {"I": 5, "T": 1}, seat=0),  # costs 800 > 700
        Command("recruit", {}, seat=0),  # no unit at all
        Command("recruit", {"I": 1, "X": 1}, seat=0),  # unknown argument
        Command("recruit", {"I": True}, seat=0),  # not a whole number
        Command("recruit", {"I": 1.0}, seat=0),
        Command("recruit", {"I": 1}, seat=1),  # another seat
        Command("garrison", {"I": 1}, seat=0),  # another command
    ]
    assert not any(RECRUIT.admits(c) for c in refused)


def test_fixed_args_and_nested_counts() -> None:
    garrison = CountForm("garrison", 0, {"I": (0, 3)}, fixed={"square": 7})
    assert garrison.admits(Command("garrison", {"square": 7, "I": 2}, seat=0))
    assert not garrison.admits(Command("garrison", {"square": 8, "I": 2}, seat=0))
    assert not garrison.admits(Command("garrison", {"I": 2}, seat=0))
    report = CountForm("report_drop", None, {"red": (0, 4), "blue": (0, 1)}, within="counts")
    assert report.admits(Command("report_drop", {"counts": {"red": 3}}))
    assert not report.admits(Command("report_drop", {"counts": {"red": 5}}))
    assert not report.admits(Command("report_drop", {"counts": {"red": 1}, "extra": 1}))
    assert not report.admits(Command("report_drop", {"counts": [1, 2]}))


def test_json_names_everything_a_form_needs() -> None:
    data = RECRUIT.to_json()
    assert data["counts"] == {"I": [0, 5], "T": [0, 2]}
    assert data["limits"][0] == {"label": "cost", "weights": {"I": 100, "T": 300}, "max": 700}
    assert data["limits"][1]["min"] == 1 and "max" not in data["limits"][1]
