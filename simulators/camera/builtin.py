"""Make the built-in recognition profile from rendered cards in several common index fonts.

python -m simulators.camera.builtin [OUT.npz]   # default: the shipped profile file
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from controller.cards import STANDARD_52
from drivers.camera.calibrate import Sample, calibrate
from drivers.camera.profile import BUILTIN_PROFILE, Profile
from simulators.camera.render import CARD_HEIGHT, CARD_WIDTH, FaceStyle
from simulators.camera.scene import FELTS, TRAINED_FONTS, CardPlacement, SceneOptions, render_scene

__all__ = ["make_builtin_profile", "render_deck"]


def render_deck(style: FaceStyle, *, card_px: int = 150, seed: int = 0) -> list[Sample]:
    """One overhead photograph of each card of a deck in ``style``, as calibration samples."""
    size = round(card_px * CARD_HEIGHT / CARD_WIDTH * 1.5)
    options = SceneOptions(width=size, height=size, felt=FELTS["green"], card_width=card_px / size)
    samples = []
    for card in STANDARD_52.cards:
        frame = render_scene([CardPlacement(card, 0.5, 0.5, 0.0, style)], options, seed=seed)
        samples.append(Sample(frame.image, card, f"{card.code}-{style.font}-{style.thickness}"))
    return samples


def make_builtin_profile(augment: int = 24) -> Profile:
    """Classifiers from every trained font at three stroke weights, each corner degraded."""
    samples: list[Sample] = []
    for font in TRAINED_FONTS:
        for thickness in (2, 3, 4):
            samples += render_deck(replace(FaceStyle(), font=font, thickness=thickness))
    return calibrate(
        samples,
        name="builtin",
        source=f"rendered cards, Hershey fonts {', '.join(TRAINED_FONTS)}, stroke 2-4",
        aspect=CARD_WIDTH / CARD_HEIGHT,
        augment=augment,
    )


def main(argv: list[str]) -> int:
    """Write the profile to the path given, or over the shipped file."""
    out = Path(argv[0]) if argv else BUILTIN_PROFILE
    out.parent.mkdir(parents=True, exist_ok=True)
    profile = make_builtin_profile()
    profile.save(out)
    print(f"wrote {out}: {profile.source}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
