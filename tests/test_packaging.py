"""pyproject.toml: metadata that installs without setuptools' deprecation warnings."""

from __future__ import annotations

import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_expression_not_a_table() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"


def test_the_build_needs_a_setuptools_that_reads_spdx_licenses() -> None:
    [setuptools] = [
        Requirement(r)
        for r in PYPROJECT["build-system"]["requires"]
        if Requirement(r).name == "setuptools"
    ]
    # setuptools 77.0.0 is the first with PEP 639 license expressions; before it, any
    # version the specifier allows would reject or warn about `license = "MIT"`.
    assert not setuptools.specifier.contains(Version("76.1.0"))
    assert setuptools.specifier.contains(Version("77.0.0"))
