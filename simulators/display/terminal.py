"""A terminal player display: what a player sees of the table, drawn from the public state.

It reads only the public state (as a display logged in as ``display`` may), so what it
shows is exactly what a player's screen could show: the phase and its traffic light, the
next position, the cards on the layout (a face-down card as ``[??]``), and the last
showdown. On a terminal it redraws in place (rich); elsewhere it prints one line per change.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

__all__ = ["render", "summary_line"]

_LIGHTS = {"green": "bold green", "yellow": "bold yellow", "red": "bold red"}
_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _card(code: str | None) -> Text:
    if not code:
        return Text("[??]", style="dim")
    rank, suit = code[0], code[1]
    style = "red" if suit in "HD" else "white"
    return Text(f"{'10' if rank == 'T' else rank}{_SUITS[suit]}", style=f"bold {style}")


def _cards(codes: list[str | None]) -> Text:
    out = Text()
    for i, code in enumerate(codes):
        if i:
            out.append(" ")
        out.append_text(_card(code))
    return out


def render(state: dict[str, Any], status: str = "") -> Panel:
    """The public state as a rich panel."""
    head = Text(f"{state.get('title')}  ·  table {state.get('table')}  ·  ", style="bold")
    phase = str(state.get("phase"))
    head.append(phase.upper(), style="bold red" if state.get("halted") else "bold cyan")
    if status and status != "online":
        head.append(f"  ·  controller {status}", style="bold red")
    lines: list[Any] = [head]
    for timer in state.get("timers", []):
        light = timer["light"]
        lines.append(Text(f"● {timer['name']} {timer['remaining']:.0f}s", _LIGHTS[light]))
    if state.get("round_id"):
        redeal = f" (redeal of {state['abandoned'][-1]})" if state.get("abandoned") else ""
        lines.append(Text(f"round {state['round_id']}{redeal}   next: {state.get('next')}"))
    layout = Table.grid(padding=(0, 2))
    positions: dict[str, list[str | None]] = {}
    for c in state.get("cards", []):
        positions.setdefault(c["position"], []).append(c["card"])
    for position, codes in positions.items():
        layout.add_row(Text(position, style="bold"), _cards(codes))
    lines.append(layout)
    last = state.get("last_round")
    if last and last.get("dealer"):
        lines.append(Text(f"last round {last['round_id']}: {last['outcome']}", style="dim"))
        board = Table.grid(padding=(0, 2))
        board.add_row(Text("board"), _cards(list(last.get("board", []))), Text(""))
        dealer = last["dealer"]
        board.add_row(Text("dealer"), _cards(dealer["cards"]), Text(dealer.get("name") or ""))
        for hand in last.get("hands", []):
            name = "folded" if hand.get("folded") else hand.get("name") or ""
            result = f" ({hand['result']})" if hand.get("result") else ""
            board.add_row(Text(hand["hand"]), _cards(hand["cards"]), Text(name + result))
        lines.append(board)
    return Panel(Group(*lines), title="player display", border_style="blue")


def summary_line(state: dict[str, Any]) -> str:
    """One line for a log: the phase and what a player sees."""
    cards = " ".join(f"{c['position']}:{c['card'] or '??'}" for c in state.get("cards", []))
    return f"[{state.get('table')}] {state.get('phase'):<9} {state.get('round_id') or ''} {cards}"
