"""The pages the server serves: one module per page family, each with ``register(app)``.

The server imports every module of this package (in name order) and calls its
``register(app: aiohttp.web.Application)``, which adds the module's routes: its HTML pages
(``tablectl.web.server.page("name.html")`` serves ``static/name.html``) and its ``/api/``
endpoints (``tablectl.web.server.session_of(request, "pit")`` is the caller's login, or
None; ``app[tablectl.web.server.JOURNALS]`` the tables' journals given on the command
line). A new page is a new module here and its files under ``static/``: nothing else to edit.
"""
