"""Layout and packaging: the mapped subpackages install under dpaudit.* in both install modes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from dpaudit.core.claim_ids import PAPERS

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


#: run by ``python -c`` in a subprocess: import as a plain (not editable) install would, from the working folder
WITHOUT_EDITABLE_FINDER = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.mechanisms import LaplaceMechanism
import dpaudit.audits.classic, dpaudit.mechanisms.noise.laplace, dpaudit.simulation
print(dpaudit.__file__, dpaudit.algorithms.__file__, dpaudit.mechanisms.noise.laplace.__file__,
      dpaudit.audits.classic.__file__, dpaudit.simulation.__name__, sep="\\n")
"""


def _imported_from(cwd: Path, env: dict | None = None) -> list[Path]:
    done = subprocess.run([sys.executable, "-c", WITHOUT_EDITABLE_FINDER], cwd=cwd, capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr
    *files, moved = done.stdout.split("\n")[:5]
    assert moved == "dpaudit.bandits.simulation"  # the old module paths resolve too
    return [Path(f) for f in files]


def test_python_in_the_checkouts_root_imports_what_an_install_holds():
    """A newcomer's Python in the checkout's root imports the root's dpaudit/ folder, not the installed package (the
    working folder comes first on sys.path): dpaudit.algorithms, .mechanisms and .audits resolve to the root's
    folders there, as the install maps them (an editable install's finder, which would do it anyway, removed)."""
    files = _imported_from(ROOT)
    assert files == [ROOT / "dpaudit" / "__init__.py", ROOT / "algorithms" / "__init__.py",
                     ROOT / "mechanisms" / "noise" / "laplace.py", ROOT / "audits" / "classic.py"]


def test_the_checkout_mapping_acts_only_in_a_checkout(tmp_path):
    from dpaudit import _checkout

    assert _checkout.checkout_root(ROOT / "dpaudit") == ROOT
    installed = tmp_path / "site" / "dpaudit"
    for folder in ("mechanisms", "algorithms", "audits"):
        (installed / folder).mkdir(parents=True)
        (tmp_path / "site" / folder).mkdir()
        (tmp_path / "site" / folder / "__init__.py").write_text("")
    (tmp_path / "site" / "pyproject.toml").write_text('[project]\nname = "dpaudit"\n')
    assert _checkout.checkout_root(installed) is None  # the folders inside the package: installed
    for folder in ("mechanisms", "algorithms", "audits"):
        (installed / folder).rmdir()
    assert _checkout.checkout_root(installed) == tmp_path / "site"
    (tmp_path / "site" / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert _checkout.checkout_root(installed) is None  # another project's checkout
    (tmp_path / "site" / "pyproject.toml").unlink()
    assert _checkout.checkout_root(installed) is None


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
                     "dpaudit/algorithms/__init__.py", "dpaudit/audits/classic.py", "dpaudit/schema/results-v1.json",
                     *(f"dpaudit/audits/{paper.replace('-', '_')}/statements.toml" for paper in PAPERS)):
        assert expected in names
    assert not any(n.startswith(("mechanisms/", "algorithms/", "audits/", "tests/")) for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "dpaudit = dpaudit.cli:main" in text and "[pytest11]" in text
    # installed from the wheel (pip install . does): the installed package away from the checkout, the checkout's
    # folders in its root
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    assert _imported_from(elsewhere, env) == [target / "dpaudit" / "__init__.py",
                                              target / "dpaudit" / "algorithms" / "__init__.py",
                                              target / "dpaudit" / "mechanisms" / "noise" / "laplace.py",
                                              target / "dpaudit" / "audits" / "classic.py"]
    assert _imported_from(ROOT, env)[:2] == [ROOT / "dpaudit" / "__init__.py", ROOT / "algorithms" / "__init__.py"]
