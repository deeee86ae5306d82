"""Pydantic models of the game configuration files (``config/games/*.toml``) and their loader.

A file is validated as a whole; a bad one is refused with the file, the field and the
reason, and nothing of it is used. The validated model is turned into the core's frozen
:class:`~controller.games.base.GameConfig`.
"""

from __future__ import annotations

import difflib
import re
import tomllib
import types
from collections.abc import Iterable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from config.files import read_text
from controller.errors import ConfigError, TableError, UnknownName
from controller.games import GameId, Seating
from controller.games.base import Buttons, Game, GameConfig, SpotLimit
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
    "describe_errors",
    "exact_fraction",
    "game_from_text",
    "load_game",
    "load_game_file",
    "nearest",
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


class ButtonsModel(_Strict):
    """A studio game's betting buttons, as its own document says (:class:`Buttons`)."""

    rebet: Literal["all_bets", "previous_ante"]
    double: Literal["bets_on_layout", "previous_ante", "rebet"]
    double_once_per_round: bool
    double_up_to_credit: bool
    fill_to_maximum: bool
    undo: Literal["last_bet", "last_action"]
    deal: bool
    rebet_deals: bool
    #: the buttons as the document names them, by command, in its order (``rebet = "Repeat"``)
    labels: dict[
        Literal["deal", "rebet", "double", "undo_bet", "clear_bets"],
        Annotated[str, Field(min_length=1, max_length=24)],
    ] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> ButtonsModel:
        if "deal" in self.labels and not self.deal:
            raise ValueError("labels: expected no 'deal' label when deal = false (no Deal button)")
        if self.deal and self.labels and "deal" not in self.labels:
            raise ValueError("labels: expected a 'deal' label when deal = true (the Deal button)")
        if self.rebet_deals and not self.deal:
            raise ValueError("rebet_deals: expected false when deal = false (no Deal to press)")
        if self.double == "previous_ante" and self.double_up_to_credit:
            raise ValueError(
                "double_up_to_credit: expected false when double = 'previous_ante' "
                "(one bet, nothing to double in part)"
            )
        return self

    def build(self) -> Buttons:
        fields = self.model_dump(exclude={"labels"})
        return Buttons(**fields, labels=tuple(self.labels.items()))


class GameFile(_Strict):
    """A whole ``config/games/<id>.toml`` file."""

    game: GameId
    seating: list[Seating] = Field(min_length=1)
    limits: dict[Spot, LimitModel]
    paytables: dict[str, PaytableModel]
    rules: dict[str, bool | int | str] = Field(default_factory=dict)
    table: TableModel = Field(default_factory=TableModel)
    buttons: ButtonsModel | None = None  # studio games: what Rebet, Double, Undo do
    # the deck is changed for each game, not only shuffled (seed 003)
    change_deck_each_game: bool = False

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
            buttons=self.buttons.build() if self.buttons else None,
            change_deck_each_game=self.change_deck_each_game,
        )


Model = TypeVar("Model", bound=BaseModel)


def nearest(word: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``word`` (a typo's most likely meaning), if any is close.

    >>> nearest("jounral", ["id", "journal", "journal_sync"])
    'journal'
    >>> nearest("Seating", ["seating", "seats"]), nearest("colour", ["id", "game"])
    ('seating', None)
    """
    folded = {name.lower(): name for name in known}
    # one wrong letter of a two-letter key ("ix" for "id") is half of it
    cutoff = 0.5 if len(word) <= 2 else 0.6
    found = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=cutoff)
    return folded[found[0]] if found else None


def _unwrap(annotation: Any) -> Any:
    """``annotation`` without ``Annotated`` and without ``None`` as an alternative."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif get_origin(annotation) in (Union, types.UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _variant(union: Any, part: str | int) -> type[BaseModel] | None:
    """The member of a union that pydantic names ``part`` in an error's location: the model
    whose ``kind`` is ``part`` (a tagged section such as ``[shoe]``), or the type so named."""
    for member in get_args(union):
        member = _unwrap(member)
        if not isinstance(member, type):
            continue
        if issubclass(member, BaseModel) and "kind" in member.model_fields:
            kind = member.model_fields["kind"].annotation
            if get_origin(kind) is Literal and part in get_args(kind):
                return member
        if member.__name__ == part:
            return member if issubclass(member, BaseModel) else None
    return None


def _section(
    model: type[BaseModel], loc: tuple[str | int, ...]
) -> tuple[Any, list[str | int], str]:
    """Follow an error's location through ``model``: the type it leads to (a model class, a
    union…; None where the schema says no more), the location as the file writes it (a
    tagged union's tag, which pydantic adds, left out) and the last tag passed
    (``kind = "serial"``)."""
    current: Any = model
    path: list[str | int] = []
    tag = ""
    for part in loc:
        current = _unwrap(current)
        if get_origin(current) in (Union, types.UnionType):
            member = _variant(current, part)
            if member is not None:
                current, tag = member, str(part)
                continue
            current = None
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            current = field.annotation if field is not None else None
        elif get_origin(current) in (dict, Mapping):
            current = get_args(current)[1]
        elif get_origin(current) in (list, tuple):
            current = get_args(current)[0]
        else:
            current = None
        path.append(part)
        tag = ""
    return _unwrap(current), path, tag


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _kinds(union: Any) -> list[str]:
    """The ``kind`` values a tagged union's sections take (``serial``, ``simulated``…)."""
    kinds: list[str] = []
    if get_origin(union) in (Union, types.UnionType):
        for member in get_args(union):
            member = _unwrap(member)
            if _is_model(member) and "kind" in member.model_fields:
                kind = member.model_fields["kind"].annotation
                kinds += [str(k) for k in get_args(kind)] if get_origin(kind) is Literal else []
    return kinds


def _keys(model: type[BaseModel]) -> list[str]:
    """The keys a section of ``model`` takes, as the file writes them."""
    return [field.alias or name for name, field in model.model_fields.items()]


def _section_name(path: list[str | int]) -> str:
    """A section as the file writes it: ``[table]``, ``[limits.ante]``, ``[[zones]] number 2``.

    >>> _section_name(["limits", "ante"]), _section_name(["zones", 1]), _section_name([])
    ('[limits.ante]', '[[zones]] number 2', 'the top level of the file')
    """
    if not path:
        return "the top level of the file"
    *head, last = path
    if isinstance(last, int):
        return f"[[{'.'.join(str(p) for p in head)}]] number {last + 1}"
    return f"[{'.'.join(str(p) for p in path)}]"


_QUOTED = re.compile(r"'([^']*)'")


def _describe(item: Any, model: type[BaseModel] | None) -> str:
    """One refused field as ``where: reason``, with the nearest known key or value for a typo."""
    loc = tuple(item["loc"])
    if model is None:
        return f"{'.'.join(str(p) for p in loc) or '(file)'}: {item['msg']}"
    if item["type"] == "extra_forbidden" and loc:
        section, path, tag = _section(model, loc[:-1])
        unknown = str(loc[-1])
        where = ".".join(str(p) for p in [*path, unknown])
        name = _section_name(path)
        if tag:
            name += f' (kind = "{tag}")'
        if not _is_model(section):
            return f"{where}: unknown key {unknown!r} in {name}"
        known = _keys(section)
        guess = nearest(unknown, known)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        return f"{where}: unknown key {unknown!r} in {name}{hint}; {name} takes {', '.join(known)}"
    leads_to, path, _ = _section(model, loc)
    where = ".".join(str(p) for p in path) or "(file)"
    if path and path[-1] == "[key]":  # a table's own name, not a value in it
        where = ".".join(str(p) for p in path[:-1]) + " (the name)"
    reason = str(item["msg"])
    kinds = _kinds(leads_to) if item["type"] == "union_tag_not_found" else []
    if kinds:  # the section says not which kind it is
        choices = " or ".join(f'kind = "{k}"' for k in kinds)
        return f"{where}: expected a kind key saying which one this is: {choices}"
    ctx = item.get("ctx") or {}
    expected = ctx.get("expected") or ctx.get("expected_tags")
    value = ctx.get("tag", item.get("input"))
    if isinstance(expected, str) and isinstance(value, str):
        guess = nearest(value, _QUOTED.findall(expected))
        if guess is not None and guess != value:
            reason += f" (did you mean {guess!r}?)"
    return f"{where}: {reason}"


def describe_errors(error: ValidationError, model: type[BaseModel] | None = None) -> str:
    """Every field pydantic refused, as ``field.path: reason`` joined by ``;``.

    Given the ``model`` validated, a path is written as the file writes it (a tagged
    section's ``kind`` is not a level of its own), an unknown key is named with the section's
    nearest known key and every key the section takes, and a mistyped choice with the
    nearest choice.
    """
    return "; ".join(_describe(item, model) for item in error.errors())


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
    except RecursionError:  # arrays or tables nested past the parser's own depth
        raise ConfigError(f"{source}: not valid TOML: nested deeper than any setting") from None
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(f"{source}: {describe_errors(error, model)}") from None


def read_toml(model: type[Model], path: Path) -> Model:
    """Read the TOML file at ``path`` and validate it as ``model`` (see :func:`parse_toml`)."""
    return parse_toml(model, read_text(path, str(path)), str(path))


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
