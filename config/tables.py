"""Pydantic models of a running table's configuration (``config/tables/*.toml``) and its loader.

One file describes one table: its game and seating, its timers, the journal it writes, the
broker it publishes to, its shoe and its camera. The shoe and the broker are chosen by
``kind`` (a discriminated union), so the same file runs on real hardware or on the
simulators. A bad file is refused with the file, the field and the reason.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from config.files import read_bytes
from config.schema import exact_fraction, parse_toml, read_toml
from controller.errors import ConfigError
from controller.games import GameId, Seating
from controller.topics import TABLE_ID

__all__ = [
    "JOURNAL_KEY_MIN",
    "TABLES_DIR",
    "BrokerSettings",
    "CameraSettings",
    "EmbeddedBrokerSettings",
    "SerialShoe",
    "SimulatedShoe",
    "TableFile",
    "TableSettings",
    "key_from_env",
    "key_from_file",
    "load_table",
    "parse_table_text",
]

TABLES_DIR = Path(__file__).resolve().parent / "tables"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TableSettings(_Strict):
    """The table itself."""

    id: str = Field(pattern=rf"^{TABLE_ID.pattern}$", description="table id, used in topics")
    game: GameId
    seating: Seating
    boxes: int = Field(default=7, ge=1, le=7, description="player boxes at a boxes table")
    journal: str = Field(description="the journal file; relative paths are from the config")
    journal_sync: Literal["full", "normal"] = Field(
        default="full",
        description="full: every row is flushed to the disk before it is applied and survives "
        "a power cut; normal: a row survives a crash of the controller but the last rows may "
        "be lost with the machine's power (for hosts on a UPS whose disk flushes slowly)",
    )
    journal_key_env: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="the environment variable holding the key that seals the journal's head "
        "(HMAC-SHA256; at least 16 characters): never the key itself in the file",
    )
    journal_key_file: str | None = Field(
        default=None,
        description="or a file holding that key (relative paths are from the config); "
        "readable by the table's user only",
    )
    betting_seconds: float | None = Field(default=None, gt=0)
    decision_seconds: float | None = Field(default=None, gt=0)
    yellow_seconds: float = Field(default=5.0, ge=0, description="the betting light's yellow")
    hardware_refresh_seconds: float = Field(
        default=5.0,
        ge=0.5,
        le=3600,
        description="how often the dealer's state is sent again where the hardware's "
        "figures (the camera's frames and reading times, the shoe's counts) changed since "
        "the last state made: between rounds too",
    )
    confirm_payments: bool = False
    seats: list[str] = Field(
        default_factory=list,
        description="studio seat ids: 1, 2, ...; where listed, commands and presence from "
        "any other seat id are ignored (counted, and alerted to the pit)",
    )
    seat_commands_per_second: float = Field(
        default=5.0,
        gt=0,
        le=10_000,
        description="each seat's commands taken at most this many a second after its burst; "
        "what a seat sends faster is refused unread (the seat told why, the pit once a flood)",
    )
    seat_command_burst: int = Field(
        default=20, ge=1, le=100_000, description="the commands a seat may send at once"
    )
    balance: Fraction | None = Field(default=None, ge=0, description="each seat's start")

    @field_validator("balance", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return exact_fraction(value)

    @field_validator("seats")
    @classmethod
    def _seat_ids(cls, seats: list[str]) -> list[str]:
        for seat in seats:
            if not seat or "/" in seat or "+" in seat or "#" in seat or ":" in seat:
                raise ValueError(f"seat id {seat!r}: expected letters and digits such as '3'")
        if len(set(seats)) != len(seats):
            raise ValueError("seat ids must be unique")
        return seats

    @model_validator(mode="after")
    def _one_key(self) -> TableSettings:
        if self.journal_key_env is not None and self.journal_key_file is not None:
            raise ValueError(
                "table.journal_key_env and table.journal_key_file: expected one place for the "
                "journal's key, not both"
            )
        return self

    def journal_key(self, base: Path) -> bytes | None:
        """The key that seals the journal (None when the table keeps no seal), from the
        environment or its file (relative to ``base``, the config's folder).

        A key that is configured but missing, unreadable or shorter than
        :data:`JOURNAL_KEY_MIN` bytes is refused, naming where it was looked for.
        """
        if self.journal_key_env is not None:  # an empty name is refused, not "no seal"
            return key_from_env(self.journal_key_env, "table.journal_key_env")
        if self.journal_key_file is not None:
            path = Path(self.journal_key_file)
            return key_from_file(
                path if path.is_absolute() else base / path, "table.journal_key_file"
            )
        return None

    @property
    def hands(self) -> tuple[str, ...]:
        """The player hands: ``box 1`` … or the one shared ``player`` hand."""
        if self.seating is Seating.BOXES:
            return tuple(f"box {i}" for i in range(1, self.boxes + 1))
        return ("player",)

    @property
    def balances(self) -> dict[str, Fraction] | None:
        """Studio seats' starting balances (None at a physical table: chips on the felt)."""
        if self.balance is None:
            return None
        return {f"seat:{s}": self.balance for s in self.seats}


#: the shortest journal key taken (a key is best 32 random bytes, written as 64 hex digits)
JOURNAL_KEY_MIN = 16
#: the largest journal key file read (a key of 64 hex digits takes 65 bytes)
JOURNAL_KEY_MAX_FILE = 4096


def key_from_env(variable: str, setting: str) -> bytes:
    """The journal key in the environment ``variable`` (``setting`` names where it was
    configured, for the message); refused when unset or too short."""
    if not variable.strip():
        raise ConfigError(
            f"{setting}: expected the name of the environment variable holding the table's "
            f"journal key, got {'an empty name' if not variable else repr(variable)}"
        )
    where = f"{setting}: the environment variable {variable}"
    value = os.environ.get(variable, "").strip()
    if not value:
        raise ConfigError(
            f"{where} is not set: expected the table's journal key there (docs/operations.md, "
            "'The journal's seal')"
        )
    return _key_bytes(value.encode(), where)


def key_from_file(path: Path, setting: str) -> bytes:
    """The journal key in the file at ``path`` (surrounding blanks and newlines dropped);
    refused when unreadable or too short."""
    where = f"{setting}: {path}"
    data = read_bytes(path, f"{where}: the journal key", limit=JOURNAL_KEY_MAX_FILE)
    return _key_bytes(data.strip(), where)


def _key_bytes(key: bytes, where: str) -> bytes:
    """``key``, unless it is too short to seal anything."""
    if len(key) < JOURNAL_KEY_MIN:
        raise ConfigError(
            f"{where} holds a key of {len(key)} characters: expected at least "
            f"{JOURNAL_KEY_MIN} (make one with: python -c 'import secrets; "
            "print(secrets.token_hex(32))')"
        )
    return key


class BrokerSettings(_Strict):
    """A real MQTT 3.1.1 broker."""

    kind: Literal["mqtt"] = "mqtt"
    url: str = Field(description="mqtt://[user@]host[:port]")
    password_env: str | None = Field(
        default=None, description="environment variable holding the password"
    )
    client_id: str | None = None

    def password(self) -> str | None:
        """The password from the environment, if one is configured."""
        return os.environ.get(self.password_env) if self.password_env else None


class EmbeddedBrokerSettings(_Strict):
    """An in-process broker on a free loopback port (demos and machines without a broker)."""

    kind: Literal["embedded"] = "embedded"


class SerialShoe(_Strict):
    """A shoe on a serial port (or any pyserial URL: ``socket://``, ``rfc2217://``)."""

    kind: Literal["serial"] = "serial"
    port: str
    dialect: Literal["framed", "uspc", "jsonl"] = "framed"
    baud: int = Field(default=9600, gt=0)
    deck_map: str | None = None


class SimulatedShoe(_Strict):
    """The shoe simulator on a pseudo-terminal, speaking the real wire protocol."""

    kind: Literal["simulated"] = "simulated"
    dialect: Literal["framed", "uspc", "jsonl"] = "framed"
    seed: int | None = None
    rate: float = Field(default=2.0, gt=0, description="cards per second")
    faults: str = ""


class NoShoe(_Strict):
    """No shoe: cards are entered by hand (tests, training)."""

    kind: Literal["none"] = "none"


class CameraSettings(_Strict):
    """The overhead camera; off means the table runs on the shoe alone."""

    enabled: bool = False
    source: str | None = Field(
        default=None,
        description="device index, video file or stream URL (rtsp://...), or 'simulated' for "
        "a rendered view of the table's own cards",
    )
    zones: str | None = Field(
        default=None,
        description="zone layout: a shipped name (default, shared-hand) or a file (relative "
        "paths are from the config); default: the shipped one for the table's seating",
    )
    profile: str | None = Field(
        default=None,
        description="deck profile from 'tablectl cards calibrate' (relative paths are from the "
        "config; default: built-in)",
    )
    fps: float = Field(default=2.0, gt=0, le=30, description="frames a second of 'simulated'")
    stable_frames: int = Field(default=3, ge=1, description="frames a card must hold to count")

    @model_validator(mode="after")
    def _source(self) -> CameraSettings:
        if self.enabled and not self.source:
            raise ValueError("camera.source: an enabled camera needs a source")
        return self


ShoeSettings = Annotated[SerialShoe | SimulatedShoe | NoShoe, Field(discriminator="kind")]
BrokerChoice = Annotated[BrokerSettings | EmbeddedBrokerSettings, Field(discriminator="kind")]


class TableFile(_Strict):
    """A whole table configuration file."""

    table: TableSettings
    broker: BrokerChoice = Field(default_factory=EmbeddedBrokerSettings)
    shoe: ShoeSettings = Field(default_factory=NoShoe)
    camera: CameraSettings = Field(default_factory=CameraSettings)

    @model_validator(mode="after")
    def _coherent(self) -> TableFile:
        t = self.table
        if t.seating is Seating.SHARED and not t.seats:
            raise ValueError("table.seats: a shared-hand table needs its remote seats")
        if t.balance is not None and not t.seats:
            raise ValueError("table.balance: balances are for studio seats; list table.seats")
        return self


def parse_table_text(text: str, source: str) -> TableFile:
    """Validate a table file's text; errors name ``source``, the field and the reason."""
    return parse_toml(TableFile, text, source)


def load_table(path: Path) -> TableFile:
    """Read and validate one table file."""
    return read_toml(TableFile, path)
