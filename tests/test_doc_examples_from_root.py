"""The pages' Python blocks run from the checkout's root as a plain install imports there (a file of its own, so that
the test runner's per-file workers can run it beside the other examples: each runs every block, about a minute)."""

from __future__ import annotations

import shutil

import pytest
from test_doc_examples import _reader_folder, run_blocks
from test_readme import ROOT


@pytest.mark.slow
def test_every_python_block_runs_the_same_from_the_checkouts_root(tmp_path):
    """From the checkout's root, imported as a plain install imports there (the root's dpaudit/ folder first on the
    path, mapping mechanisms/, algorithms/ and audits/ itself); the reader's files made in the root, removed
    after."""
    made = [ROOT / "my_mechs.py", ROOT / "dpaudit-report"]
    if any(p.exists() for p in made):
        pytest.skip("the checkout's root already has my_mechs.py or dpaudit-report")
    try:
        wrong = run_blocks(_reader_folder(ROOT), plain=True)
    finally:
        (ROOT / "my_mechs.py").unlink(missing_ok=True)
        shutil.rmtree(ROOT / "dpaudit-report", ignore_errors=True)
    assert not wrong, "\n".join(wrong)
