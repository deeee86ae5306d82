"""tablectl's pure core: cards, hands, games, the table state machine and its messages.

Nothing here touches a port, a socket, a camera or a file, except the composition root
(``runtime``) and the command line (``cli`` and ``commands``).
"""
