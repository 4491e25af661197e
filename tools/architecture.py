"""Draw docs/architecture.png, dpaudit's wings and who may import whom, from the rules the layering test holds.

The boxes are the layers of ``tests/test_layering.py`` (``LAYERS``); an arrow A -> B says that A may import B,
drawn only where no third layer lies between them (the transitive reduction of ``BELOW``), so the picture
shows the rule, not every import. The edges are also written into the PNG's text, and
``tests/test_layering.py`` fails when they differ from the rules: rerun this script after changing them.

    python tools/architecture.py            # writes docs/architecture.png
"""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "architecture.png"

# where each layer sits (column, row; row 0 at the bottom), and what it holds, for the picture only
PLACES = {
    "core": (2.0, 0, "core/, stats.py\nthe vocabulary"),
    "subjects": (0.6, 1, "core/subjects, samplers\nsubject handles"),
    "exact": (2.0, 1, "exact/\nexact engines"),
    "protocols": (3.6, 1, "bandits/ policies,\nenvironments: protocols"),
    "mechanisms": (5.2, 1, "mechanisms/\nreleases, noise laws"),
    "engine": (3.6, 2, "bandits/ simulation,\nhorizons, cache, transcripts"),
    "algorithms": (5.2, 2, "algorithms/\npolicies, environments"),
    "auditors": (2.0, 3, "auditors/\nexact and statistical"),
    "experiments": (3.6, 3, "bandits/experiments/\nthe papers' figures"),
    "reports": (0.4, 3, "reports/\nmd, html, junit, plots"),
    "api": (2.0, 4, "api/\naudit_privacy, ..., driver"),
    "adapters": (0.4, 5, "adapters/\nOpenDP, diffprivlib"),
    "suite": (2.0, 5, "suite/\nentries, discovery"),
    "runner": (2.0, 6, "runner/, cli/\ndpaudit run, the CLI"),
    "face": (2.0, 7, "dpaudit/__init__, testing\nthe public face"),
    "audits": (5.2, 6, "audits/\nthe papers' suites, presets"),
}


def _rules() -> dict[str, set[str] | None]:
    spec = importlib.util.spec_from_file_location("_layering", ROOT / "tests" / "test_layering.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.BELOW


def edges(below: dict[str, set[str] | None] | None = None) -> list[tuple[str, str]]:
    """(importer, imported) for every allowed import with no layer between them, sorted."""
    below = _rules() if below is None else below
    allowed = {a: set(b) - {a} for a, b in below.items() if b is not None}
    out = []
    for a, targets in allowed.items():
        for b in targets:
            if not any(b in allowed.get(c, ()) for c in targets if c != b):
                out.append((a, b))
    return sorted(out)


def describe(pairs: list[tuple[str, str]]) -> str:
    return "; ".join(f"{a}->{b}" for a, b in pairs)


def draw(pairs: list[tuple[str, str]]) -> bytes:
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch
    from PIL import Image, PngImagePlugin

    fig = Figure(figsize=(9.5, 8.0), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.6, 6.2)
    ax.set_ylim(-0.6, 7.6)
    ax.axis("off")
    width, height = 1.35, 0.62
    wings = {"core": "#e8eef7", "subjects": "#e8eef7", "exact": "#eaf4ea", "auditors": "#eaf4ea", "api": "#eaf4ea",
             "protocols": "#fbf0e0", "engine": "#fbf0e0", "experiments": "#fbf0e0", "mechanisms": "#f3e9f5",
             "algorithms": "#f3e9f5", "audits": "#f3e9f5"}
    for name, (x, y, text) in PLACES.items():
        ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height, boxstyle="round,pad=0.02",
                                    facecolor=wings.get(name, "#f2f2f2"), edgecolor="#555555", linewidth=0.8))
        ax.text(x, y, text, ha="center", va="center", fontsize=7.5)
    for a, b in pairs:
        (xa, ya, _), (xb, yb, _) = PLACES[a], PLACES[b]
        if ya == yb:  # side by side: from one box's side to the other's
            side = width / 2 if xb > xa else -width / 2
            start, end = (xa + side, ya), (xb - side, yb)
        else:
            start, end = (xa, ya - height / 2), (xb, yb + height / 2)
        ax.annotate("", xy=end, xytext=start,
                    arrowprops={"arrowstyle": "->", "color": "#777777", "linewidth": 0.7,
                                "connectionstyle": "arc3,rad=0.08"})
    (xs, ys, _), (xa, ya, _) = PLACES["suite"], PLACES["audits"]
    ax.annotate("discovery, by import path", xy=(xa - width / 2, ya), xytext=(xs + width / 2, ys),
                fontsize=7, color="#9a4d00", va="center",
                arrowprops={"arrowstyle": "->", "color": "#9a4d00", "linestyle": "--", "linewidth": 0.9})
    ax.text(-0.5, 7.45, "an arrow: may import (and whatever that layer may import)", fontsize=8, color="#444444")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    info = PngImagePlugin.PngInfo()
    info.add_text("Edges", describe(pairs))
    image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True, pnginfo=info)
    return out.getvalue()


def drawn_edges(path: Path = PICTURE) -> str:
    from PIL import Image

    return Image.open(path).text.get("Edges", "")


def main() -> int:
    pairs = edges()
    missing = {name for pair in pairs for name in pair} - set(PLACES)
    if missing:
        print(f"architecture.py: no place for the layers {sorted(missing)}: add them to PLACES", file=sys.stderr)
        return 2
    PICTURE.write_bytes(draw(pairs))
    print(f"wrote {PICTURE.relative_to(ROOT)}: {len(pairs)} arrows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
