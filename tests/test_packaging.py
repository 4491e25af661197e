"""Layout and packaging: the mapped subpackages install under dpaudit.* in both install modes."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {"dpaudit.mechanisms": "mechanisms", "dpaudit.algorithms": "algorithms", "dpaudit.audits": "audits"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _package_folders() -> set[str]:
    """Every folder with an __init__.py, as the dotted name it must install under. In a git checkout, the files
    git ignores are left out (mutation testing's copy of the project in mutants/, say), new ones are not."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--",
                                 "__init__.py", "*/__init__.py"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.split()
        inits = [ROOT / f for f in listed]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an unpacked sdist): every folder
        inits = list(ROOT.rglob("__init__.py"))
    names = set()
    for init in inits:
        rel = init.parent.relative_to(ROOT)
        if rel.parts[0] in ("tests", "build", "benchmarks") or any(p.startswith(".") for p in rel.parts):
            continue
        top = rel.parts[0]
        prefix = next((k for k, v in MAPPED.items() if v == top), top)
        names.add(".".join([prefix, *rel.parts[1:]]))
    return names


def test_every_package_folder_is_listed():
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    missing = _package_folders() - listed
    assert not missing, f"add these packages to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_package_dir_mapping():
    assert _pyproject()["tool"]["setuptools"]["package-dir"] == MAPPED


def test_import_names():
    import dpaudit.algorithms
    import dpaudit.audits.classic
    import dpaudit.mechanisms

    assert dpaudit.mechanisms.LaplaceMechanism
    assert dpaudit.audits.classic.suite.key == "classic"
    assert Path(dpaudit.algorithms.__file__).parent.name == "algorithms"


@pytest.mark.slow
def test_wheel_contains_mapped_packages(tmp_path):
    """``pip install .`` installs from this wheel; it must hold the same import names, and building it must
    not warn (setuptools warns about a data folder missing from ``packages``; pip shows it even with -q)."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, text=True,
    )
    # Python warnings (BuildBackendWarning, SetuptoolsDeprecationWarning, ...) and setuptools' "warning:" lines;
    # pip's own "WARNING:" (a retried download, say) is no fault of the project
    warned = [line for line in (built.stdout + built.stderr).splitlines()
              if re.search(r"[a-z]Warning\b|^\s*warning:", line)]
    assert not warned, "building the wheel warns:\n" + "\n".join(warned)
    (wheel,) = tmp_path.glob("dpaudit-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in ("dpaudit/__init__.py", "dpaudit/mechanisms/__init__.py", "dpaudit/mechanisms/noise/laplace.py",
                     "dpaudit/algorithms/__init__.py", "dpaudit/audits/classic.py", "dpaudit/schema/results-v1.json"):
        assert expected in names
    assert not any(n.startswith(("mechanisms/", "algorithms/", "audits/", "tests/")) for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "dpaudit = dpaudit.cli:main" in text and "[pytest11]" in text
