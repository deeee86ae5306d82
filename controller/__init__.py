"""tablectl's pure core: cards, hands, games, the table state machine and its messages.

Nothing here reads a clock, starts a thread, opens a socket or a file, or imports the
drivers, the simulators or the application: time and every input arrive as arguments, and
what the outside world must do leaves as returned actions. The layers above
(``config`` → ``drivers`` → ``simulators`` → ``tablectl``) import this package, never the
other way round; ``lint-imports`` checks it (``tests/test_layers.py``, in ``make test``).
"""
