"""The one exception tree of tablectl: every refusal says what was expected and what arrived."""

from __future__ import annotations


class TableError(Exception):
    """Base of every error the controller raises on purpose.

    Each subclass is raised with a message that names what was expected and what
    arrived, so an operator at the table can act on it without reading code.
    """


class InvalidCard(TableError, ValueError):
    """A card code or card number that does not name a card."""


class InvalidHand(TableError, ValueError):
    """A set of cards that cannot be evaluated as a poker hand (wrong size, repeats, wrong deck)."""


class UnknownName(TableError, ValueError):
    """A name (game, ranking, deck, qualifier) that is not one of the known choices."""


class ProtocolError(TableError, ValueError):
    """Bytes, a message or a table file that break a wire protocol's rules."""


class DeviceError(TableError, OSError):
    """A device (serial port, pseudo-terminal, socket) that cannot be opened or used."""


class InvalidSpec(TableError, ValueError):
    """A textual specification (fault list, link, stacked deck) that cannot be parsed."""


class ConfigError(TableError, ValueError):
    """A configuration file that is missing, unreadable or does not fit its schema."""


class CameraError(TableError):
    """A camera-side failure: an unreadable image, a bad card profile, a failed calibration."""


class ImageError(CameraError, ValueError):
    """An image file that is missing, unreadable or not an image."""


class ProfileError(CameraError, ValueError):
    """A card-recognition profile that is missing, of another format or version, or corrupt."""


class CalibrationError(CameraError, ValueError):
    """Calibration input that cannot make a profile (labels, missing cards, unreadable photos)."""
