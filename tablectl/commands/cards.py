"""``tablectl cards``: calibrate a deck, recognise cards on images, draw the table zones."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path, PurePath
from typing import Any

import numpy as np
from numpy.typing import NDArray

from config.camera import DEFAULT_ZONES, load_zones
from config.files import output_file
from controller.cards import DECKS, STANDARD_52, Deck
from controller.errors import CameraError, ImageError
from drivers.camera.calibrate import calibrate_files
from drivers.camera.imageio import picture_folder, read_image, write_image
from drivers.camera.profile import Profile, builtin_profile, load_profile
from drivers.camera.recognizer import FrameRecognition, Recognizer
from drivers.camera.zones import draw_zones
from tablectl.progress import Bars
from tablectl.workers import int_from

#: the values an --only refusal names, at most (a column may hold hundreds)
_SHOWN_VALUES = 20


def _deck_option(parser: argparse.ArgumentParser, what: str) -> None:
    """The ``--deck`` option: the standard deck, or the 28-card one (``stripped28``)."""
    parser.add_argument(
        "--deck",
        choices=sorted(DECKS),
        default=STANDARD_52.name,
        help=f"{what} (stripped28: the 28 cards of eights to aces, as Triple Action Hold'em "
        "deals); default: standard",
    )


def register(subparsers: Any) -> None:
    """Add the ``cards`` command and its subcommands."""
    parser = subparsers.add_parser(
        "cards",
        help="camera card recognition: calibrate a deck, recognise images, draw zones",
        description="Card recognition for the overhead camera.",
    )
    sub = parser.add_subparsers(dest="cards_command", metavar="SUBCOMMAND", required=True)

    cal = sub.add_parser(
        "calibrate",
        help="make a recognition profile from photographs of a deck's cards",
        description=(
            "Make a profile for one deck design from one photograph of each card (flat, whole "
            "card on a plain table, both index corners visible; the labels CSV has a header "
            "'file,cards' and one row per photograph, e.g. 'as.jpg,AS') and/or from one "
            "photograph of the whole deck laid out in rows and columns (--layout-image, "
            "--layout 4x13, --order 'rows=SHDC cols=A23456789TJQK'). Cards are found as the "
            "recognizer finds them. A photograph (or a laid-out card) that cannot be learnt "
            "from is refused with the reason (and an annotated picture with --annotate DIR); "
            "the profile is made from the rest and says which cards it lacks."
        ),
    )
    cal.add_argument("--images", type=Path, metavar="DIR")
    cal.add_argument("--labels", type=Path, metavar="CSV")
    cal.add_argument(
        "--layout-image",
        type=Path,
        metavar="FILE",
        help="one photograph of the whole deck laid out in rows and columns",
    )
    cal.add_argument("--layout", metavar="ROWSxCOLUMNS", help="e.g. 4x13")
    cal.add_argument(
        "--order",
        metavar="'rows=… cols=…'",
        help="what the rows and columns hold, e.g. 'rows=SHDC cols=A23456789TJQK'",
    )
    cal.add_argument(
        "--annotate",
        type=Path,
        metavar="DIR",
        help="write an annotated picture of every refused photograph here",
    )
    cal.add_argument("--out", type=Path, required=True, metavar="PROFILE", help="a .npz file")
    cal.add_argument("--name", help="the deck's name in the profile (default: the folder's)")
    cal.add_argument(
        "--augment",
        type=int_from(0, 1000),
        default=24,
        metavar="N",
        help="degraded copies of each index corner to train on, 0 to 1000 (default: 24)",
    )
    _deck_option(cal, "the deck photographed: standard (52 cards) or stripped28")
    cal.set_defaults(run=run_calibrate)

    rec = sub.add_parser(
        "recognize",
        help="recognise the cards on images",
        description=(
            "Print, for each image, the cards read (code, confidence, corners, zone), how many "
            "face-up cards could not be read with confidence ('unknown') and how many card "
            "backs lie on the table ('face_down')."
        ),
    )
    rec.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    rec.add_argument("--profile", type=Path, help="deck profile (default: the built-in one)")
    _deck_option(rec, "the deck dealt: a card it does not hold is reported unknown")
    rec.add_argument(
        "--zones",
        type=Path,
        help=f"zones TOML (default: {DEFAULT_ZONES.relative_to(DEFAULT_ZONES.parents[2])})",
    )
    rec.add_argument("--json", action="store_true", help="one JSON object per image and line")
    rec.add_argument("--annotate", type=Path, metavar="DIR", help="also write annotated images")
    rec.set_defaults(run=run_recognize)

    ev = sub.add_parser(
        "evaluate",
        help="measure how well labelled photographs are read: recall, precision, misreads",
        description=(
            "Recognise every image a labels CSV lists ('file,cards', e.g. 'as.jpg,AS' or "
            "'table.jpg,2C 7C TC'; the cards listed are the ones readable on the image) and "
            "print the share of listed cards read right (recall), the share of reads that "
            "were right (precision), the confident-wrong reads (a read of a card the label "
            "does not list), the listed cards left unknown or not found at all, overall and "
            "by subset (--by COLUMN of a --meta CSV with a 'file' column), with the list of "
            "misreads and misses."
        ),
    )
    ev.add_argument(
        "--images",
        type=Path,
        required=True,
        metavar="DIR",
        help="the folder the labels' file names are relative to",
    )
    ev.add_argument(
        "--labels",
        type=Path,
        required=True,
        action="append",
        metavar="CSV",
        help="a 'file,cards' CSV (may be given several times)",
    )
    ev.add_argument(
        "--corrections",
        type=Path,
        action="append",
        default=[],
        metavar="CSV",
        help="a 'file,cards' CSV whose rows replace the --labels rows of the same images "
        "(labels found wrong by eye; say why in a notes column)",
    )
    ev.add_argument("--profile", type=Path, help="deck profile (default: the built-in one)")
    _deck_option(ev, "the deck dealt: a card it does not hold is reported unknown")
    ev.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="also count by this column of the --meta CSV (may be repeated)",
    )
    ev.add_argument(
        "--meta", type=Path, metavar="CSV", help="a CSV with 'file' and the --by columns"
    )
    ev.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="COLUMN=VALUE[,VALUE]",
        help="evaluate only the images whose --meta column has one of the values",
    )
    ev.add_argument("--no-misses", action="store_true", help="leave the list of cards not read out")
    ev.add_argument(
        "--annotate",
        type=Path,
        metavar="DIR",
        help="write here a picture of every image with a card read wrong or a listed card not "
        "read: the cards read right outlined in green, wrong in red, unknown outlines in "
        "orange, what went wrong written over it",
    )
    ev.add_argument("--json", action="store_true", help="one JSON object with every figure")
    ev.set_defaults(run=run_evaluate)

    zon = sub.add_parser(
        "zones",
        help="draw the table zones over a frame, to set the camera up",
        description="Draw the zones of a layout over a frame and write the result as an image.",
    )
    zon.add_argument("--image", type=Path, required=True, metavar="FILE")
    zon.add_argument("--config", type=Path, help="zones TOML (default: the seven-box layout)")
    zon.add_argument("--out", type=Path, required=True, metavar="FILE.png")
    zon.add_argument("--recognize", action="store_true", help="also mark the cards recognised")
    zon.set_defaults(run=run_zones)

    ren = sub.add_parser(
        "render",
        help="render sample table frames or a deck's calibration photographs",
        description=(
            "Write rendered images to try the other subcommands with: table frames of a dealt "
            "round (default) or one photograph per card plus labels.csv (--deck)."
        ),
    )
    ren.add_argument("--out", type=Path, required=True, metavar="DIR")
    ren.add_argument("--deck", action="store_true", help="one photograph per card + labels.csv")
    ren.add_argument("--font", default="complex", help="index font (default: complex)")
    ren.add_argument(
        "--count",
        type=int_from(1, 10_000),
        default=3,
        help="table frames to write, 1 to 10,000 (default: 3)",
    )
    ren.add_argument(
        "--seed", type=int_from(0, 2**32 - 1), default=2026, help="0 to 2^32-1 (default: 2026)"
    )
    ren.set_defaults(run=run_render)


def _profile(path: Path | None) -> Profile:
    return load_profile(path) if path is not None else builtin_profile()


def run_calibrate(args: argparse.Namespace) -> int:
    """Calibrate, report each refused photograph, and write the profile."""
    from drivers.camera.calibrate import Refusal, annotate, unlearnt

    if (args.images is None) != (args.labels is None):
        raise CameraError("--images DIR and --labels CSV go together: give both or neither")
    layout = None
    if args.layout_image is not None or args.layout is not None or args.order is not None:
        if args.layout_image is None or args.layout is None or args.order is None:
            raise CameraError(
                "a laid-out deck needs --layout-image FILE, --layout ROWSxCOLUMNS and --order "
                "'rows=… cols=…' together"
            )
        layout = (args.layout_image, args.layout, args.order)
    output_file(args.out, "--out", error=CameraError)
    if args.images is None and layout is None:
        raise CameraError(
            "expected calibration photographs: --images DIR --labels CSV (one photograph per "
            "card) and/or --layout-image FILE --layout 4x13 --order 'rows=SHDC cols=A23…K'"
        )
    if args.annotate is not None:
        picture_folder(args.annotate)
    refused: list[Refusal] = []
    deck = Deck.named(args.deck)
    try:
        with Bars() as bars:
            profile = calibrate_files(
                args.images,
                args.labels,
                name=args.name,
                augment=args.augment,
                progress=bars.bar("calibrating", "photographs"),
                layout=layout,
                refused=refused,
                deck=deck,
            )
    finally:
        for n, refusal in enumerate(refused, 1):
            where = ""
            if args.annotate is not None and refusal.image is not None:
                stem = Path(refusal.name.split(" row ")[0]).stem
                picture = args.annotate / f"refused-{n:02d}-{stem}.png"
                write_image(picture, annotate(refusal))
                where = f" (see {picture})"
            print(f"refused {refusal}{where}", file=sys.stderr)
    try:
        profile.save(args.out)
    except OSError as error:
        raise CameraError(
            f"--out {args.out}: cannot write it ({error.strerror or error})"
        ) from None
    print(
        f"wrote {args.out}: profile {profile.name!r} ({profile.source}, "
        f"card aspect {profile.aspect:.3f}, red threshold {profile.red_threshold:.2f})"
    )
    missing = unlearnt(deck, profile.rank.labels.tolist(), profile.suit.labels.tolist())
    if missing:
        print(
            f"warning: no photograph taught {', '.join(missing)}: with this profile every card "
            "of those is reported unknown; photograph them and calibrate again",
            file=sys.stderr,
        )
    return 0


def _drawn(folder: Path, name: str) -> Path:
    """Where ``evaluate --annotate`` draws the image a label names: its path flattened
    into one name (images of two folders never collide)."""
    return folder / "_".join(PurePath(name).with_suffix(".png").parts)


def _apart(pictures: dict[Path, Path]) -> None:
    """Refuse (before any work) where an annotated picture (a key) would be written over
    an image read (any value): ``--annotate`` given the images' own folder wrote each
    annotated PNG over the photograph it was drawn from."""
    read = {p.resolve() for p in pictures.values()}
    for picture, image in pictures.items():
        if picture.resolve() in read:
            raise ImageError(
                f"--annotate {picture.parent}: expected a folder apart from the images read; "
                f"got one where the picture drawn from {image.name} would replace "
                f"{picture.name}, an image read"
            )


def run_recognize(args: argparse.Namespace) -> int:
    """Recognise each image and print the result (with a bar over two or more images)."""
    zones = load_zones(args.zones)
    recognizer = Recognizer(_profile(args.profile), zones, deck=Deck.named(args.deck))
    if args.annotate is not None:
        picture_folder(args.annotate)
        _apart({args.annotate / (p.stem + ".png"): p for p in args.images})
    with Bars() as bars:
        report = bars.bar("recognising", "images") if len(args.images) > 1 else None
        if report is not None:
            report(0, len(args.images))
        for done, path in enumerate(args.images, 1):
            image = read_image(path)
            result = recognizer.recognize(image)
            doc = {"file": str(path), **result.to_json()}
            if args.json:
                print(json.dumps(doc))
            else:
                cards = " ".join(
                    f"{d.card}@{d.zone or '-'}({d.confidence:.2f})"
                    for d in result.cards
                    if d.card is not None
                )
                print(
                    f"{path}: {cards or 'no cards'}; unknown {result.unknown}, "
                    f"face down {result.face_down}"
                )
            if args.annotate is not None:
                write_image(args.annotate / (path.stem + ".png"), draw_zones(image, zones, result))
            sys.stdout.flush()
            if report is not None:
                report(done, len(args.images))
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    """Evaluate the recognizer on labelled images and print the figures."""
    from drivers.camera.evaluate import (
        ImageScore,
        corrected,
        evaluate,
        group_name,
        read_labels,
        read_meta,
        score_picture,
    )

    columns = list(dict.fromkeys(args.by))
    wanted: dict[str, set[str]] = {}
    for spec in args.only:
        column, sep, values = spec.partition("=")
        picked = [v.strip() for v in values.split(",") if v.strip()]  # "deck-A," is deck-A
        if not sep or not column.strip() or not picked:
            raise CameraError(
                f"--only {spec!r}: expected COLUMN=VALUE or COLUMN=VALUE,VALUE "
                "(e.g. deck=deck-A,deck-C)"
            )
        wanted.setdefault(column.strip(), set()).update(group_name(v) for v in picked)
    if (columns or wanted) and args.meta is None:
        raise CameraError("--by and --only need --meta CSV: the file naming each image's subsets")
    meta = {c: read_meta(args.meta, c) for c in dict.fromkeys(columns + list(wanted))}
    for column, values in wanted.items():
        # a value no image has (a typo, or "A" where the column says "deck-A") would
        # evaluate nothing and print an empty table: refused, with the values there are
        held = sorted(set(meta[column].values()))
        if unknown := sorted(values.difference(held)):
            shown = ", ".join(held[:_SHOWN_VALUES]) + (", …" if len(held) > _SHOWN_VALUES else "")
            raise CameraError(
                f"--only {column}={','.join(unknown)}: no image of {args.meta} has that "
                f"{column}; expected one of its values: {shown or 'none (the column is empty)'}"
            )
    labels = corrected(read_labels(args.labels), args.corrections)

    def only(name: str) -> bool:
        return all(meta[c].get(name, "(none)") in values for c, values in wanted.items())

    if wanted and not any(only(name) for name in labels):
        asked = " ".join(f"{c}={','.join(sorted(v))}" for c, v in wanted.items())
        raise CameraError(
            f"--only {asked}: expected labelled images among those picked, found none: "
            f"no row of {', '.join(map(str, args.labels))} names an image of {args.meta} "
            "with those values (are their labels in another --labels CSV?)"
        )
    recognizer = Recognizer(_profile(args.profile), deck=Deck.named(args.deck))
    if args.annotate is not None:
        picture_folder(args.annotate)
        _apart({_drawn(args.annotate, name): args.images / name for name in labels})
    pictures: list[Path] = []

    def seen(
        name: str, image: NDArray[np.uint8], found: FrameRecognition, score: ImageScore
    ) -> None:
        """Draw an image worth a look (a card read wrong, or a listed card not read)."""
        if args.annotate is None or not (score.wrong or score.unknown or score.missed):
            return
        picture = _drawn(args.annotate, name)
        write_image(picture, score_picture(image, found, score))
        pictures.append(picture)

    with Bars() as bars:
        result = evaluate(
            args.images,
            labels,
            recognizer.recognize,
            meta={c: meta[c] for c in columns},
            only=only if wanted else None,
            progress=bars.bar("evaluating", "images"),
            seen=seen,
        )
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(result.report(misses=not args.no_misses))
    if args.annotate is not None:
        print(
            f"wrote {len(pictures)} pictures of the images with a card read wrong or not read "
            f"to {args.annotate}",
            file=sys.stderr,
        )
    return 0


def run_zones(args: argparse.Namespace) -> int:
    """Draw the zones over the frame."""
    layout = load_zones(args.config)
    image = read_image(args.image)
    result = Recognizer(zones=layout).recognize(image) if args.recognize else None
    write_image(args.out, draw_zones(image, layout, result))
    print(f"wrote {args.out}: {len(layout.zones)} zones of layout {layout.name!r}")
    return 0


def run_render(args: argparse.Namespace) -> int:
    """Render sample frames or a deck's photographs."""
    from dataclasses import replace

    from simulators.camera.builtin import render_deck
    from simulators.camera.render import INDEX_FONTS, FaceStyle
    from simulators.camera.stream import deal_frames

    if args.font not in INDEX_FONTS:
        from controller.errors import UnknownName

        raise UnknownName(f"unknown font {args.font!r}: expected one of {', '.join(INDEX_FONTS)}")
    style = replace(FaceStyle(), font=args.font)
    if args.deck:
        samples = render_deck(style, card_px=300, seed=args.seed)
        rows = []
        for s in samples:
            name = f"{s.card.code.lower()}.png"
            write_image(args.out / name, s.image)
            rows.append((name, s.card.code))
        with (args.out / "labels.csv").open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["file", "cards"])
            writer.writerows(rows)
        print(f"wrote {len(rows)} card photographs and labels.csv to {args.out}")
        return 0
    total = 21  # seven boxes of two, the dealer's two, a board of five
    step = max(1, total // max(1, args.count))
    counts = list(range(total, -1, -step))[: args.count]
    for i, frame in enumerate(deal_frames(load_zones(), args.seed, face=style, counts=counts)):
        write_image(args.out / f"table-{i + 1}.png", frame.image)
        truth = " ".join(f"{'??' if c.card is None else c.card}@{c.zone}" for c in frame.cards)
        print(f"table-{i + 1}.png: {truth}")
    return 0
