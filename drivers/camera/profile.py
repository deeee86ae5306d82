"""Card-recognition profiles: per-deck glyph classifiers and thresholds, saved as versioned .npz."""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from config.files import read_bytes
from controller.errors import ProfileError
from drivers.camera.classifier import GlyphClassifier
from drivers.camera.glyphs import RANK_SIZE, SUIT_SIZE

__all__ = [
    "BUILTIN_PROFILE",
    "DEFAULT_INDEX_BOX",
    "FORMAT",
    "MAX_PROFILE_BYTES",
    "VERSION",
    "Profile",
    "builtin_profile",
    "load_profile",
]

#: the format tag and version written into every profile file
FORMAT = "tablectl-card-profile"
VERSION = 1

#: the shipped profile, made from rendered cards in several common index fonts
BUILTIN_PROFILE = Path(__file__).with_name("data") / "builtin.npz"

#: where a standard card's index corner lies, as shares of its width and height (x0, y0,
#: x1, y1 from its top-left), a little beyond its edges: a profile's own box unless
#: calibrated otherwise
DEFAULT_INDEX_BOX = (-0.03, -0.02, 0.25, 0.31)

_KINDS = (("rank", RANK_SIZE, 13), ("suit", SUIT_SIZE, 4))


@dataclass(frozen=True, eq=False)
class Profile:
    """One deck design: rank and suit glyph classifiers, card geometry, acceptance thresholds.

    A card read from its two index corners is accepted when both glyphs' normalised margins
    (see :class:`~drivers.camera.classifier.Verdict`) reach ``min_margin`` (more on small
    cards, see :func:`drivers.camera.recognizer.needed_margins`), both glyphs correlate with
    their class's mean glyph by at least ``min_similarity``, and the ink colour agrees with
    the suit (red at ``red_threshold`` or more, black at half of it or less); otherwise the
    card is reported as unknown. ``pip``, when calibrated, scores the pips of aces to tens;
    ``small_suit``, when calibrated, tells clubs from spades on cards under 80 pixels wide.
    """

    name: str
    source: str
    rank: GlyphClassifier
    suit: GlyphClassifier
    aspect: float = 63.0 / 88.0  # card width / height
    index_box: tuple[float, float, float, float] = DEFAULT_INDEX_BOX
    min_margin: float = 0.3
    min_similarity: float = 0.45
    red_threshold: float = 0.15
    pip: GlyphClassifier | None = None  # the suit from the pips of aces to tens, if calibrated
    small_suit: GlyphClassifier | None = None  # clubs or spades on small cards, if calibrated

    def __post_init__(self) -> None:
        for kind, size, most in (*_KINDS, ("pip", SUIT_SIZE, 4), ("small_suit", SUIT_SIZE, 4)):
            clf: GlyphClassifier | None = getattr(self, kind)
            if clf is None:
                continue
            c, d = clf.weights.shape
            labels = clf.labels
            if (
                d != size[0] * size[1]
                or clf.means.shape != (c, d)
                or clf.bias.shape != (c,)
                or clf.half_gap.shape != (c, c)
                or labels.shape != (c,)
                or c < 2
                or len(set(labels.tolist())) != c
                or labels.min() < 0
                or labels.max() >= most
            ):
                raise ProfileError(
                    f"profile {self.name!r}: {kind} classifier of shape {clf.weights.shape} with "
                    f"labels {labels.tolist()}, expected (classes, {size[0] * size[1]}) with "
                    f"distinct labels below {most}"
                )

    def with_thresholds(self, **values: float) -> Profile:
        """A copy with other acceptance thresholds (``min_margin``, ``min_similarity`` …)."""
        return replace(self, **values)  # type: ignore[arg-type]

    def metadata(self) -> dict[str, Any]:
        """The profile's scalar fields, as written into the file."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "name": self.name,
            "source": self.source,
            "aspect": self.aspect,
            "index_box": list(self.index_box),
            "rank_size": list(RANK_SIZE),
            "suit_size": list(SUIT_SIZE),
            "min_margin": self.min_margin,
            "min_similarity": self.min_similarity,
            "red_threshold": self.red_threshold,
        }

    def save(self, path: Path | str) -> None:
        """Write the profile as a compressed .npz file (arrays plus metadata as JSON)."""
        target = Path(path)
        arrays = {**self.rank.arrays("rank"), **self.suit.arrays("suit")}
        if self.pip is not None:
            arrays.update(self.pip.arrays("pip"))
        if self.small_suit is not None:
            arrays.update(self.small_suit.arrays("small_suit"))
        try:
            with target.open("wb") as out:
                arrays["meta"] = np.array(json.dumps(self.metadata()))
                np.savez_compressed(out, **arrays)  # type: ignore[arg-type]
        except OSError as error:
            raise ProfileError(f"cannot write profile {target}: {error}") from None


#: the most a profile file, and all its arrays unpacked, may take: the built-in profile
#: takes 71 kB, 76 kB unpacked
MAX_PROFILE_BYTES = 16 * 1024 * 1024


def _check_arrays(source: Path, packed: io.BytesIO) -> None:
    """Refuse a profile whose arrays, as their headers declare them, exceed
    :data:`MAX_PROFILE_BYTES` in all, before NumPy reads them: ``np.load`` allocates an
    array of the shape its header declares before reading its data (a 49 kB profile
    declaring a 200,000 x 200,000 array of floats stopped the command asking for 298 GiB).
    Other faults are left to ``np.load``, which names them."""
    declared = 0
    with zipfile.ZipFile(packed) as archive:
        for member in archive.infolist():
            with archive.open(member) as stream:
                version = np.lib.format.read_magic(stream)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
                else:
                    raise ValueError(f"{member.filename}: .npy format {version}")
            declared += int(np.prod(shape, dtype=object)) * dtype.itemsize
            if declared > MAX_PROFILE_BYTES:
                raise ProfileError(
                    f"profile {source}: expected arrays of at most {MAX_PROFILE_BYTES:,} "
                    f"bytes in all, found {member.filename} declaring {shape} of {dtype}"
                )


def load_profile(path: Path | str) -> Profile:
    """Read a profile file, checking its size, format tag, version and array shapes."""
    source = Path(path)
    packed = io.BytesIO(
        read_bytes(
            source,
            f"profile {source}",
            limit=MAX_PROFILE_BYTES,
            error=ProfileError,
            kind="a .npz profile",
        )
    )
    try:
        _check_arrays(source, packed)
        packed.seek(0)
        with np.load(packed, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {k: data[k] for k in data.files if k != "meta"}
    except ProfileError:
        raise  # said in full already
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as error:
        raise ProfileError(
            f"profile {source}: expected a tablectl card profile (.npz), cannot read it ({error})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else meta
        raise ProfileError(f"profile {source}: expected format {FORMAT!r}, found {found!r}")
    if meta.get("version") != VERSION:
        raise ProfileError(
            f"profile {source}: expected version {VERSION}, found {meta.get('version')!r}; "
            "calibrate the deck again with this release"
        )
    sizes = (list(meta.get("rank_size", [])), list(meta.get("suit_size", [])))
    if sizes != (list(RANK_SIZE), list(SUIT_SIZE)):
        raise ProfileError(
            f"profile {source}: glyph sizes {sizes[0]}/{sizes[1]}, "
            f"expected {list(RANK_SIZE)}/{list(SUIT_SIZE)}"
        )
    try:
        rank = GlyphClassifier.from_arrays(arrays, "rank")
        suit = GlyphClassifier.from_arrays(arrays, "suit")
        pip = GlyphClassifier.from_arrays(arrays, "pip") if "pip_labels" in arrays else None
        small_suit = (
            GlyphClassifier.from_arrays(arrays, "small_suit")
            if "small_suit_labels" in arrays
            else None
        )
        box = tuple(float(v) for v in meta["index_box"])
        if len(box) != 4:
            raise ValueError(f"index_box {box}")
        return Profile(
            name=str(meta["name"]),
            source=str(meta["source"]),
            rank=rank,
            suit=suit,
            aspect=float(meta["aspect"]),
            index_box=(box[0], box[1], box[2], box[3]),
            min_margin=float(meta["min_margin"]),
            min_similarity=float(meta["min_similarity"]),
            red_threshold=float(meta["red_threshold"]),
            pip=pip,
            small_suit=small_suit,
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ProfileError(f"profile {source}: missing or bad field ({error})") from None


@cache
def builtin_profile() -> Profile:
    """The shipped profile for common index fonts, used when no deck was calibrated."""
    return load_profile(BUILTIN_PROFILE)
