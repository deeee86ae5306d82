"""How well the recognizer reads labelled photographs: recall, precision, confident-wrong
cards, unknown and missed cards, overall and by subset (a deck, a camera, a source).

The labels say which cards each image shows *readably* (``file,cards``: ``as.jpg,AS``,
``table.jpg,2C 7C TC``); a card cut by the frame's edge or buried in a pile is not listed.
A listed card is **read right** when a recognition with status ``card`` names it. A read
of a card the label does not list is **confident-wrong**, always: every read is a
confident one (the recognizer says ``unknown`` otherwise), and the table cannot tell a
misread from a read of a card the labeller could not see, so neither may pass unnoticed;
the list of misreads names each one for a person to look at. A listed card not read is
**unknown** when the image has an ``unknown`` outline left to account for it, and
**missed** (no outline found) otherwise: the labels give no card positions, so the split
is by count within each image.

The counting is pure (:func:`score_image`, :class:`Tally`); :func:`evaluate` reads the
files and runs a recognizer over them.
"""

from __future__ import annotations

import csv
import io
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from config.files import read_text
from controller.cards import Card
from controller.errors import CameraError, InvalidCard
from controller.work import Progress
from drivers.camera.imageio import image_under, read_image
from drivers.camera.recognizer import FrameRecognition, Status
from drivers.camera.zones import captioned, shrunk

__all__ = [
    "MAX_LABEL_BYTES",
    "MAX_LABEL_ROWS",
    "REAL_PHOTOS_VARIABLE",
    "Evaluation",
    "ImageScore",
    "Tally",
    "evaluate",
    "group_name",
    "read_labels",
    "read_meta",
    "real_photos",
    "score_image",
    "score_picture",
]

#: rows a labels or meta file may hold (every input is bounded)
MAX_LABEL_ROWS = 100_000
#: the largest labels or meta file read: 100,000 rows of a few cards take about 3 MB
MAX_LABEL_BYTES = 32 * 1024 * 1024

#: cards one image's label may list
MAX_CARDS_PER_IMAGE = 104


#: the environment variable naming the folder of labelled real photographs
REAL_PHOTOS_VARIABLE = "TABLECTL_REAL_CARDS"


def real_photos() -> Path:
    """The folder of labelled real photographs the tests and the benchmark measure on:
    ``$TABLECTL_REAL_CARDS``, or ``../shared/real-cards`` beside the project's root. It
    may not exist (the photographs' licences allow evaluation, not redistribution)."""
    named = os.environ.get(REAL_PHOTOS_VARIABLE)
    if named:
        return Path(named)
    return Path(__file__).resolve().parents[2].parent / "shared" / "real-cards"


#: the project's corrections of the real photographs' labels (cards left out of a label
#: whose index shows, checked by eye; each row says why), beside the project's docs
REAL_CORRECTIONS = Path(__file__).resolve().parents[2] / "docs" / "real-cards-corrections.csv"


def real_labels(root: Path) -> dict[str, frozenset[Card]]:
    """The labels of the real photographs at ``root`` (its ``labels.csv`` and
    ``labels_manual.csv``), with :data:`REAL_CORRECTIONS` in place of the rows they correct
    (only those of images ``root`` lists: another folder's labels are its own)."""
    labels = read_labels([root / "labels.csv", root / "labels_manual.csv"])
    if not REAL_CORRECTIONS.is_file():  # the package installed without the project's docs
        return labels
    return corrected(labels, [REAL_CORRECTIONS], strict=False)


def _rows(path: Path, required: Sequence[str]) -> list[dict[str, str]]:
    text = read_text(path, str(path), limit=MAX_LABEL_BYTES, error=CameraError, kind="a CSV file")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise CameraError(
                f"{path}: expected a CSV with the columns {', '.join(required)} in its "
                f"header, found {', '.join(header) or 'no header'}"
            )
        rows: list[dict[str, str]] = []
        for row in reader:
            if len(rows) >= MAX_LABEL_ROWS:
                raise CameraError(f"{path}: expected at most {MAX_LABEL_ROWS:,} rows, found more")
            rows.append({k: (v or "").strip() for k, v in row.items() if k is not None})
        return rows
    except csv.Error as error:  # a field beyond the csv module's bound
        raise CameraError(
            f"{path}: expected CSV text, found a row it cannot take ({error})"
        ) from None


def read_labels(paths: Iterable[Path]) -> dict[str, frozenset[Card]]:
    """The cards listed for each image, from one or more ``file,cards`` CSV files (other
    columns are ignored). An image listed twice, a card listed twice for one image (a round
    deals one deck), or a card code that is not one, is refused with the file, the row and
    what was expected."""
    labels: dict[str, frozenset[Card]] = {}
    where: dict[str, str] = {}
    for path in paths:
        for line, row in enumerate(_rows(path, ("file", "cards")), 2):
            name = row["file"]
            if not name:
                raise CameraError(f"{path}, row {line}: expected an image file name, found none")
            if name in labels:
                raise CameraError(
                    f"{path}, row {line}: {name} is listed again (first in {where[name]})"
                )
            codes = row["cards"].split()
            if len(codes) > MAX_CARDS_PER_IMAGE:
                raise CameraError(
                    f"{path}, row {line}: expected at most {MAX_CARDS_PER_IMAGE} cards, "
                    f"found {len(codes)}"
                )
            try:
                parsed = [Card.parse(c) for c in codes]
            except InvalidCard as error:
                raise CameraError(f"{path}, row {line}: {error}") from None
            cards = frozenset(parsed)
            if len(cards) < len(parsed):  # one deck is dealt a round: a card shows once
                twice = next(c for c in parsed if parsed.count(c) > 1)
                raise CameraError(
                    f"{path}, row {line}: expected each card once for {name}, found {twice} "
                    f"listed {parsed.count(twice)} times"
                )
            labels[name] = cards
            where[name] = f"{path}, row {line}"
    return labels


def corrected(
    labels: dict[str, frozenset[Card]], paths: Sequence[Path], *, strict: bool = True
) -> dict[str, frozenset[Card]]:
    """``labels`` with the rows of the correction CSVs ``paths`` (``file,cards``, read as
    :func:`read_labels` reads labels) in place of their own: labels found wrong by eye. A
    correction of an image no label lists is refused, naming it (``strict``), or left out."""
    fixes = read_labels(paths)
    stray = sorted(set(fixes) - set(labels))
    if not strict:
        fixes = {name: cards for name, cards in fixes.items() if name in labels}
    elif stray:
        raise CameraError(
            f"expected corrections of labelled images; {stray[0]} "
            f"({', '.join(str(p) for p in paths)}) is in no labels CSV"
        )
    return {**labels, **fixes}


def group_name(value: str) -> str:
    """A subset's name as reported: the column's value without a parenthesised note
    (``deck-C (standard Bicycle-style deck)`` is ``deck-C``)."""
    return value.split(" (", 1)[0].strip() or "(none)"


def read_meta(path: Path, column: str) -> dict[str, str]:
    """Each image's subset by one column of a CSV with a ``file`` column."""
    rows = _rows(path, ("file", column))
    return {row["file"]: group_name(row[column]) for row in rows}


@dataclass(frozen=True, slots=True)
class ImageScore:
    """What one image's recognition gave against its label."""

    file: str
    listed: frozenset[Card]
    right: frozenset[Card]
    wrong: frozenset[Card]  # read, but not listed: confident-wrong
    unknown: frozenset[Card]  # listed, not read, with an unknown outline to account for it
    missed: frozenset[Card]  # listed, not read, no outline found for it
    outlines: int  # card-shaped things found: cards, unknown faces and backs
    ms: float = 0.0  # how long the recognizer took the image (wall clock), where timed

    def to_json(self) -> dict[str, Any]:
        """The image's score as a JSON-ready dict (card codes sorted)."""

        def codes(cards: frozenset[Card]) -> list[str]:
            return [c.code for c in sorted(cards, key=int)]

        return {
            "file": self.file,
            "listed": codes(self.listed),
            "right": codes(self.right),
            "wrong": codes(self.wrong),
            "unknown": codes(self.unknown),
            "missed": codes(self.missed),
            "outlines": self.outlines,
            "ms": round(self.ms, 1),
        }


def score_image(file: str, listed: frozenset[Card], result: FrameRecognition) -> ImageScore:
    """Count one image (see the module's description for what each count means)."""
    read = {d.card for d in result.detections if d.status is Status.CARD and d.card is not None}
    right = frozenset(read & listed)
    wrong = frozenset(read - listed)
    unread = sorted(listed - read, key=int)
    unknown_outlines = sum(d.status is Status.UNKNOWN for d in result.detections)
    unknown = frozenset(unread[:unknown_outlines])
    missed = frozenset(unread[unknown_outlines:])
    return ImageScore(file, listed, right, wrong, unknown, missed, len(result.detections))


@dataclass(slots=True)
class Tally:
    """Counts over a set of images."""

    images: int = 0
    listed: int = 0
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    missed: int = 0
    outlines: int = 0

    def add(self, score: ImageScore) -> None:
        """Count one more image."""
        self.images += 1
        self.listed += len(score.listed)
        self.right += len(score.right)
        self.wrong += len(score.wrong)
        self.unknown += len(score.unknown)
        self.missed += len(score.missed)
        self.outlines += score.outlines

    @property
    def recall(self) -> float:
        """Share of the listed cards read right."""
        return self.right / self.listed if self.listed else 0.0

    @property
    def precision(self) -> float:
        """Share of the reads that were right (1 when nothing was read)."""
        reads = self.right + self.wrong
        return self.right / reads if reads else 1.0

    @property
    def wrong_per_thousand(self) -> float:
        """Confident-wrong cards per 1,000 listed cards."""
        return 1000 * self.wrong / self.listed if self.listed else 0.0

    def to_json(self) -> dict[str, Any]:
        """The counts and rates as a JSON-ready dict."""
        return {
            "images": self.images,
            "listed": self.listed,
            "right": self.right,
            "confident_wrong": self.wrong,
            "unknown": self.unknown,
            "missed": self.missed,
            "outlines": self.outlines,
            "recall": round(self.recall, 4),
            "precision": round(self.precision, 4),
            "wrong_per_thousand": round(self.wrong_per_thousand, 2),
        }

    def line(self, name: str, width: int = 14) -> str:
        """One row of the text report (the subset's name in ``width`` characters)."""
        return (
            f"{name:<{width}} {self.images:>6} {self.listed:>6} {self.right:>6} "
            f"{100 * self.recall:>6.1f}% {100 * self.precision:>6.1f}% {self.wrong:>6} "
            f"{self.unknown:>7} {self.missed:>6} {self.outlines:>8}"
        )


def _header(width: int) -> str:
    return (
        f"{'subset':<{width}} {'images':>6} {'listed':>6} {'right':>6} {'recall':>7} "
        f"{'precis.':>7} {'wrong':>6} {'unknown':>7} {'missed':>6} {'outlines':>8}"
    )


@dataclass(slots=True)
class Evaluation:
    """The scores of every image, the overall tally and one per subset."""

    scores: list[ImageScore] = field(default_factory=list)
    overall: Tally = field(default_factory=Tally)
    groups: dict[str, dict[str, Tally]] = field(default_factory=dict)  # column -> value -> tally

    def add(self, score: ImageScore, subsets: dict[str, str]) -> None:
        """Count one image in the overall tally and in its subset of each grouping."""
        self.scores.append(score)
        self.overall.add(score)
        for column, value in subsets.items():
            self.groups.setdefault(column, {}).setdefault(value, Tally()).add(score)

    def to_json(self) -> dict[str, Any]:
        """Everything as a JSON-ready dict: ``overall``, ``by`` (column -> subset -> counts),
        ``misreads`` and ``misses`` (per image), ``images`` (every image's score)."""
        return {
            "overall": self.overall.to_json(),
            "by": {
                column: {k: t.to_json() for k, t in sorted(tallies.items())}
                for column, tallies in self.groups.items()
            },
            "misreads": [
                {
                    "file": s.file,
                    "read": sorted(c.code for c in s.wrong),
                    "listed": sorted(c.code for c in s.listed),
                }
                for s in self.scores
                if s.wrong
            ],
            "misses": [
                {
                    "file": s.file,
                    "unknown": sorted(c.code for c in s.unknown),
                    "missed": sorted(c.code for c in s.missed),
                }
                for s in self.scores
                if s.unknown or s.missed
            ],
            "images": [s.to_json() for s in self.scores],
            "reading": self.reading(),
        }

    def reading(self) -> dict[str, Any]:
        """How long the recognizer took an image: the median and the slowest (in ms, wall
        clock, each image once on this machine: a studio's frames of its own camera say
        how often a table of theirs is read), and the slowest image's file."""
        if not self.scores:
            return {"median_ms": 0.0, "slowest_ms": 0.0, "slowest": None}
        slowest = max(self.scores, key=lambda s: s.ms)
        return {
            "median_ms": round(float(np.median([s.ms for s in self.scores])), 1),
            "slowest_ms": round(slowest.ms, 1),
            "slowest": slowest.file,
        }

    def report(self, *, misses: bool = True) -> str:
        """The text report: the table of tallies, the misreads and (unless told not to) the
        cards not read."""
        names = [len(k) + 2 for tallies in self.groups.values() for k in tallies]
        width = max([14, *names])
        lines = [_header(width), self.overall.line("all", width)]
        for column, tallies in self.groups.items():
            lines.append(f"by {column}:")
            lines += [t.line(f"  {k}", width) for k, t in sorted(tallies.items())]
        if self.scores:
            timing = self.reading()
            rate = 1000 / timing["median_ms"] if timing["median_ms"] else 0.0
            lines.append(
                f"reading time per image: median {timing['median_ms']:.1f} ms (about {rate:.0f} "
                f"a second), slowest {timing['slowest_ms']:.1f} ms ({timing['slowest']})"
            )
        wrong = [s for s in self.scores if s.wrong]
        lines.append(f"confident-wrong reads ({sum(len(s.wrong) for s in wrong)}):")
        for s in wrong:
            read = " ".join(c.code for c in sorted(s.wrong, key=int))
            listed = " ".join(c.code for c in sorted(s.listed, key=int)) or "nothing"
            lines.append(f"  {s.file}: read {read}; the label lists {listed}")
        if misses:
            unread = [s for s in self.scores if s.unknown or s.missed]
            lines.append(f"listed cards not read ({self.overall.unknown + self.overall.missed}):")
            for s in unread:
                parts = []
                if s.unknown:
                    parts.append("unknown " + " ".join(c.code for c in sorted(s.unknown, key=int)))
                if s.missed:
                    parts.append("missed " + " ".join(c.code for c in sorted(s.missed, key=int)))
                lines.append(f"  {s.file}: {'; '.join(parts)}")
        return "\n".join(lines)


#: how many labelled images not found are named when an evaluation is refused
NAMED_MISSING = 5


def _resolve(images: Path, name: str) -> Path:
    path = image_under(images, name)
    if path.exists():
        return path
    flat = images / Path(name).name  # labels written beside the images, or one folder up
    return flat if flat.exists() else path


def evaluate(
    images: Path,
    labels: dict[str, frozenset[Card]],
    recognize: Callable[[Any], FrameRecognition],
    *,
    meta: dict[str, dict[str, str]] | None = None,
    only: Callable[[str], bool] | None = None,
    progress: Progress | None = None,
    seen: Callable[[str, NDArray[np.uint8], FrameRecognition, ImageScore], None] | None = None,
) -> Evaluation:
    """Recognise every labelled image (its name resolved under ``images``, or its bare file
    name there) and count the results; ``meta`` maps a column to each image's subset
    (images it does not name are counted under ``(none)``); ``only`` picks images by name.

    Every image's file is looked for first: a labels file naming images that are not in
    the folder is refused at once, with all of them named (up to :data:`NAMED_MISSING`),
    not after an evaluation of minutes has reached the first. An image that is there but
    cannot be decoded is refused when it is read (:func:`read_image`).

    ``seen(name, image, recognition, score)`` is told of each image as it is counted (to
    draw the ones worth a look: :func:`score_picture`). Each image's recognition is timed
    (:attr:`ImageScore.ms`; reading the file is not counted)."""
    names = [n for n in labels if only is None or only(n)]
    paths = {n: _resolve(images, n) for n in names}
    missing = [n for n, path in paths.items() if not path.is_file()]
    if missing:
        shown = ", ".join(missing[:NAMED_MISSING])
        more = f" and {len(missing) - NAMED_MISSING} more" if len(missing) > NAMED_MISSING else ""
        raise CameraError(
            f"images {images}: expected a file for every image labelled, {len(missing)} of "
            f"{len(names)} not found there: {shown}{more}"
        )
    out = Evaluation()
    if progress is not None:
        progress(0, len(names))
    for done, name in enumerate(names, 1):
        image = read_image(paths[name])
        started = time.perf_counter()
        result = recognize(image)
        ms = (time.perf_counter() - started) * 1000
        subsets = {col: values.get(name, "(none)") for col, values in (meta or {}).items()}
        score = replace(score_image(name, labels[name], result), ms=ms)
        out.add(score, subsets)
        if seen is not None:
            seen(name, image, result, score)
        if progress is not None:
            progress(done, len(names))
    return out


#: the colours (BGR) a score's picture draws outlines in: a card read and listed, a card read
#: and not listed (confident-wrong), an outline left unknown, a card's back
PICTURE_COLOURS = {
    "right": (0, 200, 0),
    "wrong": (0, 0, 255),
    "unknown": (0, 165, 255),
    "back": (200, 200, 200),
}


def score_picture(
    image: NDArray[np.uint8], result: FrameRecognition, score: ImageScore, width: int = 1280
) -> NDArray[np.uint8]:
    """``image`` (at most ``width`` pixels wide: a table camera's frame at its own size) with
    what was read on it: each card read and listed outlined in green, each read the label
    does not list in red, each outline left unknown in orange, each back in grey, the
    card's code written in its middle (:data:`PICTURE_COLOURS`); and over its top the
    image's name and what its label lists that was read wrong, left unknown or missed."""
    out, f = shrunk(image, width)
    thick = max(2, round(out.shape[1] / 500))
    for det in result.detections:
        if det.status is Status.CARD and det.card is not None:
            kind, text = (
                ("right", det.card.code)
                if det.card in score.listed
                else ("wrong", f"{det.card.code}?")
            )
        else:
            kind, text = ("back", "back") if det.status is Status.FACE_DOWN else ("unknown", "?")
        quad = np.round(np.array(det.corners) * f).astype(np.int32)
        colour = PICTURE_COLOURS[kind]
        cv2.polylines(out, [quad], True, colour, thick, cv2.LINE_AA)
        x, y = (int(v) for v in quad.mean(axis=0))
        cv2.putText(
            out, text, (x - 12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, thick, cv2.LINE_AA
        )

    def codes(cards: frozenset[Card]) -> str:
        return " ".join(c.code for c in sorted(cards, key=int))

    lines = [f"{score.file}: {len(score.right)} of {len(score.listed)} listed cards read right"]
    if score.wrong:
        lines.append(f"read wrong (red): {codes(score.wrong)}; the label lists "
                     f"{codes(score.listed) or 'nothing'}")  # fmt: skip
    if score.unknown:
        lines.append(f"listed, left unknown (orange outlines): {codes(score.unknown)}")
    if score.missed:
        lines.append(f"listed, not found at all: {codes(score.missed)}")
    return captioned(out, lines)
