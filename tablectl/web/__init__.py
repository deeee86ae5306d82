"""The browser pages: a gateway between MQTT and WebSockets, and the pages it serves.

The browser never speaks MQTT. :mod:`tablectl.web.gateway` holds the server's MQTT links: one
shared display login that feeds every public page of every table (fan-out in the server),
and one link per logged-in role (a seat, the dealer, the pit manager), connected to the
broker AS that user, so the broker's ACL decides what the page may see; the gateway also
subscribes to that role's topics only (the embedded broker of the demo has no ACL).
:mod:`tablectl.web.server` is the aiohttp application: ``/login``, ``/ws``, the static
files, and every module of :mod:`tablectl.web.pages` (each ``register(app)`` adds its own
pages and ``/api/`` routes).
"""
