"""Pydantic models of the game configuration files (``config/games/*.toml``) and their loader.

A file is validated as a whole; a bad one is refused with the file, the field and the
reason, and nothing of it is used. The validated model is turned into the core's frozen
:class:`~controller.games.base.GameConfig`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from controller.errors import ConfigError, TableError, UnknownName
from controller.games import GameId, Seating
from controller.games.base import Game, GameConfig, SpotLimit
from controller.games.catalog import game_class
from controller.games.paytable import (
    HandPaytable,
    NamedPaytable,
    Paytable,
    line_qualifier,
    parse_odds,
)
from controller.games.rules import Spot

__all__ = [
    "GAMES_DIR",
    "ConfigError",
    "GameFile",
    "exact_fraction",
    "game_from_text",
    "load_game",
    "load_game_file",
    "parse_game_text",
    "parse_toml",
    "read_toml",
]

GAMES_DIR = Path(__file__).resolve().parent / "games"


def exact_fraction(value: object) -> object:
    """A number from TOML as an exact :class:`Fraction` (floats such as 0.5 through their text).

    >>> exact_fraction(0.1), exact_fraction("5/2"), exact_fraction(None)
    (Fraction(1, 10), Fraction(5, 2), None)
    """
    return Fraction(str(value)) if isinstance(value, int | float | str) else value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LimitModel(_Strict):
    """Limits of one bet spot."""

    min: Fraction = Field(gt=0)
    max: Fraction = Field(gt=0)
    step: Fraction = Field(default=Fraction(1), gt=0)
    at_most: Spot | None = None

    @field_validator("min", "max", "step", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return exact_fraction(value)

    @model_validator(mode="after")
    def _ordered(self) -> LimitModel:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        if (self.min / self.step).denominator != 1:
            raise ValueError(f"min {self.min} is not a multiple of step {self.step}")
        return self


class PaytableModel(_Strict):
    """One paytable role: its variants (``A``, ``B`` …) and the one in use."""

    kind: Literal["hand", "named"] = "hand"
    use: str
    otherwise: Literal["lose", "push"] = "lose"
    variants: dict[str, dict[str, str]]

    @model_validator(mode="after")
    def _check(self) -> PaytableModel:
        if self.use not in self.variants:
            raise ValueError(
                f"use = {self.use!r} names no variant: expected one of {', '.join(self.variants)}"
            )
        for variant, lines in self.variants.items():
            if not lines:
                raise ValueError(f"variant {variant!r} has no lines")
            for line, odds in lines.items():
                try:
                    parse_odds(odds)
                    if self.kind == "hand":
                        line_qualifier(line)
                except UnknownName as error:
                    raise ValueError(f"variant {variant!r}, line {line!r}: {error}") from None
        return self

    def build(self, role: str, variant: str | None = None) -> Paytable:
        """The core paytable of ``variant`` (default: the one in use)."""
        name = variant or self.use
        if name not in self.variants:
            raise UnknownName(
                f"paytable {role!r} has no variant {name!r}: "
                f"expected one of {', '.join(self.variants)}"
            )
        lines = self.variants[name]
        if self.kind == "named":
            return NamedPaytable(name, {line: parse_odds(odds) for line, odds in lines.items()})
        return HandPaytable.build(name, lines, otherwise=self.otherwise)


class TableModel(_Strict):
    """Table-wide money rules."""

    max_payout: Fraction | None = Field(default=None, gt=0)

    @field_validator("max_payout", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return exact_fraction(value)


class GameFile(_Strict):
    """A whole ``config/games/<id>.toml`` file."""

    game: GameId
    seating: list[Seating] = Field(min_length=1)
    limits: dict[Spot, LimitModel]
    paytables: dict[str, PaytableModel]
    rules: dict[str, bool | int | str] = Field(default_factory=dict)
    table: TableModel = Field(default_factory=TableModel)

    def build(self, variants: Mapping[str, str] | None = None) -> GameConfig:
        """The core configuration, with ``variants`` choosing paytable variants by role."""
        chosen = dict(variants or {})
        unknown = sorted(set(chosen) - set(self.paytables))
        if unknown:
            raise UnknownName(
                f"{self.game}: no paytable roles {unknown}: "
                f"expected some of {', '.join(self.paytables)}"
            )
        return GameConfig(
            limits={
                spot: SpotLimit(lm.min, lm.max, lm.step, lm.at_most)
                for spot, lm in self.limits.items()
            },
            paytables={
                role: pt.build(role, chosen.get(role)) for role, pt in self.paytables.items()
            },
            seating=tuple(self.seating),
            table_max_payout=self.table.max_payout,
            options=dict(self.rules),
        )


Model = TypeVar("Model", bound=BaseModel)


def describe_errors(error: ValidationError) -> str:
    """Every field pydantic refused, as ``field.path: reason`` joined by ``;``."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(file)"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_toml(model: type[Model], text: str, source: str) -> Model:
    """Validate TOML ``text`` as ``model``; a :class:`ConfigError` names ``source``, field, reason.

    >>> parse_toml(LimitModel, "min = 5", "limits.toml")
    Traceback (most recent call last):
    controller.errors.ConfigError: limits.toml: max: Field required
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML: {error}") from None
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(f"{source}: {describe_errors(error)}") from None


def read_toml(model: type[Model], path: Path) -> Model:
    """Read the TOML file at ``path`` and validate it as ``model`` (see :func:`parse_toml`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    return parse_toml(model, text, str(path))


def load_game_file(path: Path) -> GameFile:
    """Read and validate one game file; :class:`ConfigError` names the file, field and reason."""
    return read_toml(GameFile, path)


def parse_game_text(text: str, source: str) -> GameFile:
    """Validate a game file's text; ``source`` names it in errors (a path, a journal row)."""
    return parse_toml(GameFile, text, source)


def game_from_text(text: str, source: str, variants: Mapping[str, str] | None = None) -> Game:
    """The rules configured by a game file's text (as a journal keeps it)."""
    model = parse_game_text(text, source)
    cls = game_class(model.game)
    try:
        return cls(model.build(variants))
    except TableError as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"{source}: {error}") from None


def load_game(
    game: str,
    path: Path | None = None,
    *,
    variants: Mapping[str, str] | None = None,
) -> Game:
    """The rules of ``game`` configured from ``path`` (default: the shipped file)."""
    cls = game_class(game)
    file = path or GAMES_DIR / f"{cls.info.id}.toml"
    model = load_game_file(file)
    if model.game != cls.info.id:
        raise ConfigError(f"{file}: game: the file is for {model.game}, not {cls.info.id}")
    try:
        return cls(model.build(variants))
    except TableError as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"{file}: {error}") from None
