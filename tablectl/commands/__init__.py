"""Subcommands of ``tablectl``, one module each, wired in by :mod:`tablectl.cli`."""
