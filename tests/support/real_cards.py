"""The labelled real photographs for camera tests: where they are, or a skip saying why.

They live beside the project (``../shared/real-cards``, or the folder
``$TABLECTL_REAL_CARDS`` names) and are never copied into it: their licences allow
evaluation, not redistribution. A test that needs them skips, naming the folder it looked
in, where they are absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.camera.evaluate import REAL_PHOTOS_VARIABLE, real_photos


def real_cards(needed: str = "labels.csv") -> Path:
    """The photographs' folder, or a skip when ``needed`` (a file within it) is absent."""
    root = real_photos()
    if not (root / needed).is_file():
        pytest.skip(f"no labelled real photographs at {root} (set {REAL_PHOTOS_VARIABLE})")
    return root


def real_photo(name: str) -> Path:
    """One photograph of the folder's ``images/``, or a skip when it is absent."""
    return real_cards(f"images/{name}") / "images" / name
