"""AVA-1: every rule id and test vector of the spec is named by a test that exercises it.

A test names an id in its name (``test_ava_95_...``, ``test_tv_ava_01_...``), its docstring or
its ``@pytest.mark.spec(...)`` marker. ``NOT_YET_COVERED`` is the honest to-do list: it may only
shrink, so naming one of its ids in a test makes this check fail until the id is removed here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SPEC = HERE.parents[1].parent / "shared" / "rules" / "allies-vs-axis.md"

NOT_YET_COVERED: set[str] = set()

RULE_DEF = re.compile(r"^\*\*(AVA-\d+)\*\*", re.M)
VECTOR_DEF = re.compile(r"^\*\*(TV-AVA-\d+)\b", re.M)
ID_TEXT = re.compile(r"(?<![\w-])(TV-AVA-\d+|AVA-\d+)(?![\w-])")
ID_NAME = re.compile(r"(tv_ava_\d+|(?<!tv_)ava_\d+)")


def spec_ids() -> list[str]:
    if not SPEC.exists():
        pytest.skip(f"the AVA spec is not at {SPEC}")
    text = SPEC.read_text(encoding="utf-8")
    return RULE_DEF.findall(text) + VECTOR_DEF.findall(text)


def _normal(ident: str) -> str:
    """Name form (``tv_ava_1``) and text form both map to ``TV-AVA-01`` / ``AVA-95``."""
    up = ident.upper().replace("_", "-")
    prefix, _, number = up.rpartition("-")
    width = 2 if prefix == "TV-AVA" else 1
    return f"{prefix}-{int(number):0{width}d}"


def named_ids() -> dict[str, set[str]]:
    """id -> the tests that name it, from every test module of this folder."""
    found: dict[str, set[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            ids = {_normal(m) for m in ID_NAME.findall(node.name)}
            doc = ast.get_docstring(node) or ""
            ids |= {_normal(m) for m in ID_TEXT.findall(doc)}
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and _is_spec_marker(deco.func):
                    for arg in deco.args:
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            ids.add(_normal(arg.value))
            for ident in ids:
                found.setdefault(ident, set()).add(f"{path.name}::{node.name}")
    return found


def _is_spec_marker(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "spec"
    return isinstance(func, ast.Attribute) and func.attr == "spec"


def test_ava_1_spec_ids_are_unique_and_complete() -> None:
    """AVA-1: the spec's ids are stable and contiguous (AVA-1..AVA-175, TV-AVA-01..69)."""
    ids = spec_ids()
    assert len(ids) == len(set(ids))
    rules = sorted(int(i.split("-")[1]) for i in ids if i.startswith("AVA-"))
    vectors = sorted(int(i.split("-")[2]) for i in ids if i.startswith("TV-"))
    assert rules == list(range(1, 176))
    assert vectors == list(range(1, 70))


def test_every_id_is_named_by_a_test() -> None:
    named = named_ids()
    missing = [i for i in spec_ids() if i not in named and i not in NOT_YET_COVERED]
    assert not missing, f"spec ids named by no test: {missing}"


def test_not_yet_covered_only_shrinks() -> None:
    named = named_ids()
    done = sorted(i for i in NOT_YET_COVERED if i in named)
    assert not done, f"now covered, remove from NOT_YET_COVERED: {done}"
    unknown = sorted(NOT_YET_COVERED - set(spec_ids()))
    assert not unknown, f"not ids of the spec: {unknown}"


def test_markers_name_real_ids() -> None:
    """A typo in a marker would count for nothing; every named id must exist in the spec."""
    unknown = sorted(set(named_ids()) - set(spec_ids()))
    assert not unknown, f"tests name ids the spec does not have: {unknown}"
