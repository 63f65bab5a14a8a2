"""Every rule id (CPX-n) and test vector (TV-CPX-nn) of the spec is named by a test (CPX-1).

A test names an id in its function name (``cpx_12``, ``tv_cpx_07``) or its docstring
(``CPX-12``, ``TV-CPX-07``). ``NOT_YET_COVERED`` is the honest to-do list: an id there must not
be named by any test yet, so the list can only shrink.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SPEC = Path(__file__).resolve().parents[3] / "shared" / "rules" / "command-post-exercise.md"
TESTS = Path(__file__).resolve().parent

# Rules not reached yet (none at the moment; add an id here rather than a test that names it
# without exercising it).
NOT_YET_COVERED: set[str] = set()


def spec_ids() -> set[str]:
    if not SPEC.exists():
        pytest.skip(f"the rules spec is not beside the checkout ({SPEC})")
    text = SPEC.read_text(encoding="utf-8")
    rules = {f"CPX-{n}" for n in re.findall(r"^\*\*CPX-(\d+)\*\*", text, re.M)}
    vectors = {f"TV-CPX-{n}" for n in re.findall(r"\*\*TV-CPX-(\d+)\b", text)}
    return rules | vectors


def named_ids() -> set[str]:
    out: set[str] = set()
    for path in TESTS.glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                out |= ids_in(node.name, ast.get_docstring(node) or "")
    return out


def ids_in(name: str, doc: str) -> set[str]:
    found = {f"TV-CPX-{n}" for n in re.findall(r"tv_cpx_(\d\d)", name)}
    found |= {f"CPX-{int(n)}" for n in re.findall(r"(?<!tv_)cpx_(\d+)", name)}
    found |= {f"TV-CPX-{n}" for n in re.findall(r"TV-CPX-(\d\d)", doc)}
    found |= {f"CPX-{int(n)}" for n in re.findall(r"(?<!TV-)CPX-(\d+)", doc)}
    return found


def test_spec_has_the_expected_ids_cpx_1() -> None:
    """CPX-1: ids are stable; the spec defines CPX-1..CPX-150 and TV-CPX-01..52."""
    ids = spec_ids()
    assert {f"CPX-{n}" for n in range(1, 151)} <= ids
    assert {f"TV-CPX-{n:02d}" for n in range(1, 53)} <= ids


def test_every_id_is_named_by_a_test() -> None:
    missing = sorted(spec_ids() - named_ids() - NOT_YET_COVERED, key=_key)
    assert not missing, f"ids named by no test: {', '.join(missing)}"


def test_not_yet_covered_only_shrinks() -> None:
    named = sorted(NOT_YET_COVERED & named_ids(), key=_key)
    assert not named, f"remove from NOT_YET_COVERED, a test names them now: {', '.join(named)}"
    unknown = sorted(NOT_YET_COVERED - spec_ids(), key=_key)
    assert not unknown, f"not ids of the spec: {unknown}"


def _key(i: str) -> tuple[int, int]:
    return (1 if i.startswith("TV") else 0, int(i.rsplit("-", 1)[1]))
