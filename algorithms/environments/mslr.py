"""MSLR-WEB10K (Qin & Liu 2013) as dist-mab's real-data bandit (Sec. 7 Fig. 1 bottom, App. J Fig. 5; the spec's
5.3): read a file in the LETOR / SVMlight text format, one query-url pair a line,

    <label> qid:<query id> <index>:<value> <index>:<value> ...   [# comment]

(label the relevance 0..4, indices from 1; MSLR-WEB10K gives all 136 features on every line, a sparse file
leaves some out and they read as 0), then build the paper's instance: K-means with K = 50 on the feature vectors,
each cluster an arm whose mean reward is the mean relevance label of its rows.

Choices where the paper is silent (each recorded in :func:`mslr_description`):

- the features are standardised (each column centred and divided by its standard deviation; constant columns
  left at 0) before K-means: MSLR-WEB10K's 136 columns range from 0-1 ratios to counts in the thousands, and raw
  K-means would cluster on the largest few only;
- K-means is scipy's :func:`scipy.cluster.vq.kmeans2` with k-means++ initialisation, seeded (default 0); a
  cluster left empty is dropped (the record says how many arms remain);
- labels 0..4 are mapped into [0, 1] by dividing by 4 (the bandits' rewards are in [0, 1]), so an arm's mean is
  its cluster's mean label / 4; the query ids are read (and checked) but not used: the paper clusters rows.

A file that cannot be read stops with one line naming the file and the line: a missing file, a line whose label
is not a number, whose second field is not ``qid:<integer>``, or whose features are not ``<index>:<value>``
with a positive integer index and a finite value. The whole file is parsed at C speed (the ``:`` separators
turned into spaces, then pandas' reader) and, only when that fails or a check does not pass, scanned line by
line to name the first bad line.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpaudit.core.errors import UsageError

#: the paper's number of arms (K-means clusters)
MSLR_CLUSTERS = 50
#: the label range of MSLR-WEB10K (relevance 0..4): rewards are label / MSLR_LABEL_MAX
MSLR_LABEL_MAX = 4.0
FORMAT = "'<label> qid:<integer> <index>:<value> ...'"


class LetorFormatError(UsageError):
    """A LETOR / SVMlight file that cannot be read: the message is one line naming the file and the line."""


@dataclass(frozen=True)
class LetorData:
    """The rows of a LETOR file: ``labels`` (n,), ``qids`` (n,), ``features`` (n, m) (missing entries 0), and the
    file's name."""

    labels: np.ndarray
    qids: np.ndarray
    features: np.ndarray
    name: str


def _bad(path: Path, line: int, what: str) -> LetorFormatError:
    return LetorFormatError(f"{path.name}, line {line}: {what} (expected {FORMAT})")


def _scan(path: Path, text: str) -> None:
    """Line by line: raise on the first line that does not parse (module docstring)."""
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.partition("#")[0].split()
        if not tokens:
            continue
        try:
            label = float(tokens[0])
        except ValueError:
            raise _bad(path, number, f"the label {tokens[0]!r} is not a number") from None
        if not math.isfinite(label):
            raise _bad(path, number, f"the label {tokens[0]!r} is not finite")
        if len(tokens) < 2 or not tokens[1].startswith("qid:") or not tokens[1][4:].lstrip("-").isdigit():
            raise _bad(path, number, f"the second field {tokens[1] if len(tokens) > 1 else ''!r} is not "
                                     "'qid:<integer>'")
        if len(tokens) < 3:
            raise _bad(path, number, "no features")
        for token in tokens[2:]:
            index, colon, value = token.partition(":")
            if not colon or not index.isdigit() or int(index) < 1:
                raise _bad(path, number, f"the feature {token!r} is not '<index>:<value>' with an index >= 1")
            try:
                number_value = float(value)
            except ValueError:
                raise _bad(path, number, f"the feature {token!r} has a value that is not a number") from None
            if not math.isfinite(number_value):
                raise _bad(path, number, f"the feature {token!r} is not finite")


def read_letor(path: str | Path) -> LetorData:
    """Read a LETOR / SVMlight file (module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise LetorFormatError(f"{path.name}: no such file ({path})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LetorFormatError(f"{path.name}: cannot read it as text ({exc.__class__.__name__}: {exc})") from None
    parsed = _parse(text)
    if parsed is None:
        _scan(path, text)
        raise LetorFormatError(f"{path.name}: no rows that read as {FORMAT}")
    labels, qids, features = parsed
    return LetorData(labels, qids, features, path.name)


CHUNK_ROWS = 100_000


def _parse(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The arrays of the file's text, or None when it does not parse or a check fails (the caller then scans
    the text for the line). ``qid:12 3:0.5`` becomes ``qid 12 3 0.5`` (numbers in columns; a sparse file gives
    rows of unequal length, NaN-filled), read in chunks by pandas' C reader."""
    import pandas as pd

    width = max((len(line.partition("#")[0].split()) for line in text.splitlines()), default=0)
    if width < 3:
        return None
    columns = 2 * width - 1  # label, "qid", id, then an index and a value per feature
    dtypes = {c: float for c in range(columns)} | {1: object}
    labels, qids, features, widest = [], [], [], 0
    try:
        for frame in pd.read_csv(io.StringIO(text.replace(":", " ")), sep=r"\s+", engine="c", header=None,
                                 comment="#", names=range(columns), dtype=dtypes, chunksize=CHUNK_ROWS):
            part = _from_frame(frame)
            if part is None:
                return None
            labels.append(part[0])
            qids.append(part[1])
            features.append(part[2])
            widest = max(widest, part[2].shape[1])
    except (ValueError, pd.errors.ParserError):
        return None
    if not labels:
        return None
    features = [np.pad(f, ((0, 0), (0, widest - f.shape[1]))) for f in features]
    return np.concatenate(labels), np.concatenate(qids), np.concatenate(features)


def _from_frame(frame) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One chunk's arrays (label, "qid", id, index, value, ...), or None when a check fails."""
    if not (frame[1] == "qid").all():
        return None
    numbers = frame.drop(columns=[1]).to_numpy(dtype=float)
    labels, qids = numbers[:, 0], numbers[:, 1]
    index, value = numbers[:, 2::2], numbers[:, 3::2]
    has_index, has_value = ~np.isnan(index), ~np.isnan(value)
    if not (np.isfinite(labels).all() and np.isfinite(qids).all() and (qids == np.round(qids)).all()):
        return None
    if not np.array_equal(has_index, has_value) or not has_index[:, 0].all():
        return None
    ok = ~has_index | (np.isfinite(index) & np.isfinite(value) & (index >= 1) & (index == np.round(index)))
    if not ok.all():
        return None
    rows, slots = np.nonzero(has_index)
    columns = index[rows, slots].astype(np.int64)
    features = np.zeros((len(labels), int(columns.max())))
    features[rows, columns - 1] = value[rows, slots]
    return labels, qids.astype(np.int64), features


def cluster_means(data: LetorData, clusters: int = MSLR_CLUSTERS, seed: int = 0,
                  label_max: float = MSLR_LABEL_MAX) -> tuple[np.ndarray, np.ndarray]:
    """K-means (scipy's kmeans2, k-means++, seeded) on the standardised features; returns the arms' means (mean
    label / label_max of each non-empty cluster, in cluster order) and each cluster's row count."""
    from scipy.cluster.vq import kmeans2

    n = len(data.labels)
    if n < clusters:
        raise LetorFormatError(f"{data.name}: {n} rows cannot form {clusters} clusters")
    if data.labels.min() < 0 or data.labels.max() > label_max:
        raise LetorFormatError(f"{data.name}: labels must lie in [0, {label_max:g}] (relevance grades), got "
                               f"{data.labels.min():g} to {data.labels.max():g}")
    x = data.features
    scale = x.std(axis=0)
    standardised = np.divide(x - x.mean(axis=0), scale, out=np.zeros_like(x), where=scale > 0)
    _, assignment = kmeans2(standardised, clusters, minit="++", seed=np.random.default_rng(seed))
    counts = np.bincount(assignment, minlength=clusters)
    sums = np.bincount(assignment, weights=data.labels, minlength=clusters)
    kept = counts > 0
    return sums[kept] / counts[kept] / label_max, counts[kept]


def mslr_description(data: LetorData, means: np.ndarray, clusters: int = MSLR_CLUSTERS, seed: int = 0) -> str:
    """The data line of a record or report: ``data: MSLR-WEB10K from <file name> (...)``."""
    kept = len(means)
    dropped = f", {clusters - kept} empty cluster(s) dropped" if kept < clusters else ""
    return (f"data: MSLR-WEB10K from {data.name} ({len(data.labels)} rows, {data.features.shape[1]} features, "
            f"{len(np.unique(data.qids))} queries; K-means with K = {clusters} on the standardised features, "
            f"scipy kmeans2 k-means++ seed {seed}{dropped}: {kept} arms, mean label / 4 from {means.min():.4f} to "
            f"{means.max():.4f})")


def load_mslr(path: str | Path, clusters: int = MSLR_CLUSTERS, seed: int = 0) -> tuple[np.ndarray, str]:
    """The arms' means of the MSLR-WEB10K instance built from ``path`` and its data line (module docstring)."""
    data = read_letor(path)
    means, _ = cluster_means(data, clusters, seed)
    return means, mslr_description(data, means, clusters, seed)


__all__ = ["FORMAT", "LetorData", "LetorFormatError", "MSLR_CLUSTERS", "MSLR_LABEL_MAX", "cluster_means",
           "load_mslr", "mslr_description", "read_letor"]
