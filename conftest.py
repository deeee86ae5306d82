"""pytest settings for the whole tree.

The core's hot modules may run compiled (``controller/__init__.py``): their doctests are
collected from the module as imported, whose file is then the compiled one, not the source
pytest found them in; pytest is told that this is expected.
"""

import os

os.environ["PY_IGNORE_IMPORTMISMATCH"] = "1"
