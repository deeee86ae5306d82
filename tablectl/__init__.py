"""tablectl's application: the running table that wires adapters to the core's ports, and the CLI.

The top layer. It alone knows that simulators exist: a table file's ``kind`` chooses a real
adapter (a serial shoe, a camera, Mosquitto) or a simulated one, and :mod:`tablectl.running`
builds it. Everything below (``simulators`` → ``drivers`` → ``config`` → ``controller``)
imports downward only.
"""
