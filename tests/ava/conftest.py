"""Shared setup for the AVA tests: the ``spec`` marker and the §19 fixture data folder."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "spec(*ids): the AVA rule ids and test vectors a test exercises"
    )
