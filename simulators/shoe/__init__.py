"""The shoe simulator: a virtual card shoe on a real pseudo-terminal or TCP port, with faults."""

from __future__ import annotations

from simulators.shoe.faults import Fault, FaultSpec
from simulators.shoe.links import PtyLink, TcpLink, make_link
from simulators.shoe.shoe import Draw, Fate, ShoeSimulator, load_stack

__all__ = [
    "Draw",
    "Fate",
    "Fault",
    "FaultSpec",
    "PtyLink",
    "ShoeSimulator",
    "TcpLink",
    "load_stack",
    "make_link",
]
