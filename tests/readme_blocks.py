"""The README's (and the manual's) blocks that a test file of its own checks (marked ``<!-- checked by tests/FILE
-->``): run as printed, each print's output beside the comment it carries."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def printed_and_commented(test_file: str, page: Path = README) -> tuple[list[str], list[str]]:
    """(what the block of ``page`` marked for ``test_file`` prints, what the comments beside its prints say)."""
    marker = re.escape(f"<!-- checked by tests/{test_file} -->")
    block = re.search(marker + r"\n```python\n(.*?)```", page.read_text(), flags=re.S)
    assert block, f"the block of {page.name} checked by tests/{test_file} is gone"
    code = block.group(1)
    expected = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"<README block of {test_file}>", "exec"), {})
    return out.getvalue().strip().splitlines(), expected
