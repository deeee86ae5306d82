"""Recording a method's calls in a test while it still does its work."""

from __future__ import annotations

from typing import Any

import pytest

Call = tuple[tuple[Any, ...], dict[str, Any]]


def spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[Call]:
    """Every later call of ``owner.name`` (its positional and keyword arguments), in order;
    each is passed on to the method as it was, and the patch is undone with the test."""
    calls: list[Call] = []
    original = getattr(owner, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return calls
