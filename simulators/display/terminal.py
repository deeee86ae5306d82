"""A terminal player display: what a player sees of the table, drawn from the public state.

It reads only the public state (as a display logged in as ``display`` may), so what it
shows is exactly what a player's screen could show: the phase and its traffic light, the
next position, the cards on the layout (a face-down card as ``[??]``), and the last
showdown: the dealer's cards, each hand's name and result, what each bet spot paid. On a
terminal it redraws in place (rich), its timers counting down from their deadlines and
changing colour as they go; elsewhere it prints one line per change, and one line at the end
of every round with its result (:func:`round_line`).

:func:`settlement_words` says a settlement (one stake's, line by line) in words, for the
consoles on the command line.
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

__all__ = ["Ticking", "light_of", "render", "round_line", "settlement_words", "summary_line"]

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


def light_of(timer: dict[str, Any], now: float) -> tuple[float, str]:
    """A timer's seconds left at ``now`` (Unix s) and its light: green, then yellow from its
    ``yellow_seconds`` left, red at none (a state without them: the light it had)."""
    left = max(0.0, float(timer["deadline"]) - now)
    yellow = timer.get("yellow_seconds")
    if left <= 0:
        return left, "red"
    if yellow is None:
        return left, str(timer.get("light", "green"))
    return left, "yellow" if left <= float(yellow) else "green"


def _words(name: object) -> str:
    """A name of the protocol in words: ``ante_plus`` -> ``ante plus``."""
    return str(name).replace("_", " ")


def _payouts(hand: dict[str, Any]) -> str:
    """A hand's main bets in words: ``ante win 1:1, call push``."""
    out = []
    for p in hand.get("payouts", []):
        odds = f" {p['odds']}" if p.get("odds") and p["result"] == "win" else ""
        out.append(f"{_words(p['spot'])} {p['result']}{odds}")
    return ", ".join(out)


def render(state: dict[str, Any], status: str = "", now: float | None = None) -> Panel:
    """The public state as a rich panel; its timers as at ``now`` (default: the clock)."""
    now = time.time() if now is None else now
    head = Text(f"{state.get('title')}  ·  table {state.get('table')}  ·  ", style="bold")
    phase = str(state.get("phase"))
    head.append(phase.upper(), style="bold red" if state.get("halted") else "bold cyan")
    if status and status != "online":
        head.append(f"  ·  controller {status}", style="bold red")
    lines: list[Any] = [head]
    for timer in state.get("timers", []):
        left, light = light_of(timer, now)
        lines.append(Text(f"● {timer['name']} {left:.1f}s", _LIGHTS[light]))
    if state.get("round_id"):
        redeal = f" (redeal of {state['abandoned'][-1]})" if state.get("abandoned") else ""
        lines.append(Text(f"round {state['round_id']}{redeal}   next: {state.get('next')}"))
    layout = Table.grid(padding=(0, 2))
    positions: dict[str, list[str | None]] = {}
    for c in state.get("cards", []):
        positions.setdefault(c["position"], []).append(c["card"])
    folded = set(state.get("folded", []))
    for position, codes in positions.items():
        mark = Text("folded", style="bold magenta") if position in folded else Text("")
        layout.add_row(Text(position, style="bold"), _cards(codes), mark)
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
            result = hand.get("result")
            style = {"win": "bold green", "lose": "red", "push": "yellow"}.get(result or "", "")
            said = Text(name)
            if result:
                said.append(f"  {result.upper()}", style=style)
            paid = _payouts(hand)
            if paid:
                said.append(f"  {paid}", style="dim")
            board.add_row(Text(hand["hand"]), _cards(hand["cards"]), said)
        lines.append(board)
    return Panel(Group(*lines), title="player display", border_style="blue")


class Ticking:
    """The panel of a state, drawn anew at every refresh of a rich ``Live`` (so its timers
    count down between two states)."""

    def __init__(self, state: dict[str, Any], status: str = "") -> None:
        self.state = state
        self.status = status

    def __rich__(self) -> Panel:
        return render(self.state, self.status)


def summary_line(state: dict[str, Any]) -> str:
    """One line for a log: the phase and what a player sees (folded hands marked)."""
    cards = " ".join(f"{c['position']}:{c['card'] or '??'}" for c in state.get("cards", []))
    folded = state.get("folded") or []
    marks = f"  folded: {', '.join(folded)}" if folded else ""
    line = f"[{state.get('table')}] {state.get('phase'):<9} {state.get('round_id') or ''} {cards}"
    return line + marks


def _codes(codes: list[str | None]) -> str:
    return " ".join(c or "??" for c in codes)


def round_line(state: dict[str, Any]) -> str | None:
    """One line for a log telling how the last round ended (its ``last_round``): the board,
    the dealer's cards and hand, each hand's cards, name, result and what each spot paid;
    None when the state tells of no round ended."""
    last = state.get("last_round")
    if not last:
        return None
    head = f"[{state.get('table')}] {'ended':<9} {last['round_id']} {last['outcome']}"
    dealer = last.get("dealer")
    if not dealer:
        return head
    parts = []
    if last.get("board"):
        parts.append(f"board {_codes(last['board'])}")
    named = f" ({dealer['name']})" if dealer.get("name") else ""
    parts.append(f"dealer {_codes(dealer['cards'])}{named}")
    for hand in last.get("hands", []):
        said = "folded" if hand.get("folded") else hand.get("name") or ""
        result = f": {hand['result']}" if hand.get("result") else ""
        paid = _payouts(hand)
        paid = f" [{paid}]" if paid else ""
        parts.append(f"{hand['hand']} {_codes(hand['cards'])} {said}{result}{paid}".strip())
    return f"{head}: " + "; ".join(parts)


def settlement_words(data: dict[str, Any]) -> str:
    """One stake's settlement in words: ``seat:1 on player: ante win 1:1 paid 10, bonus lose
    (first two cards earn no bonus line); staked 20, returned 20, net 0``."""
    who = f"{data.get('seat')} on {data.get('hand')}"
    if data.get("folded"):
        who += " (folded)"
    lines = []
    for ln in data.get("lines", []):
        text = f"{_words(ln.get('spot'))} {ln.get('result')}"
        if ln.get("result") == "win":
            odds = f" {ln['odds']}" if ln.get("odds") else ""
            text += f"{odds} paid {ln.get('paid')}"
        elif ln.get("result") == "push":
            text += f" returned {ln.get('returned')}"
        if ln.get("paytable_line"):
            text += f" ({ln['paytable_line']})"
        elif ln.get("reason") and ln.get("result") != "win":
            text += f" ({ln['reason']})"
        lines.append(text)
    money = f"staked {data.get('staked')}, returned {data.get('returned')}, net {data.get('net')}"
    hands = ""
    if data.get("player_hand") and data.get("dealer_hand"):
        hands = f"; {data['player_hand']['name']} against {data['dealer_hand']['name']}"
    notes = "".join(f"; {n}" for n in data.get("notes", []) if n)
    return f"{who}: {', '.join(lines) or 'no bets'}; {money}{hands}{notes}"
