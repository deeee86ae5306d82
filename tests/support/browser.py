"""Headless Chromium for page tests, screenshots and benchmarks: Debian's ``chromium`` driven
by Selenium through ``/usr/bin/chromedriver``, given explicitly so that nothing is downloaded.

``chrome()`` starts one browser (a fresh profile in a temporary folder); ``CHROMIUM`` and
``CHROMEDRIVER`` say where they are expected, ``available()`` whether both are there.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)


def available() -> bool:
    """Whether Chromium and its driver are installed (``apt install chromium chromium-driver``).

    Under CI (``CI`` set) they always count as there: ``.ci/run`` installs them, so a page
    test that cannot start its browser fails there instead of skipping.
    """
    return bool(os.environ.get("CI")) or (CHROMIUM.exists() and CHROMEDRIVER.exists())


def wait_for(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``predicate`` until it returns something true (bounded); its value is returned."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"waited {timeout:g} s for {what}")


def shown_offline(chrome: Any, what: str, within: str = "") -> None:
    """Wait until the page marks a table offline (``[data-status='offline']``, inside the
    elements matching ``within`` where given): once its table stops, every page says so."""
    css = f"{within} [data-status='offline']".strip()
    wait_for(
        lambda: chrome.execute_script("return !!document.querySelector(arguments[0])", css),
        15,
        what,
    )


def chrome(width: int = 1920, height: int = 1080, *, scale: float = 1.0) -> Any:
    """A headless Chromium (quit it when done: its profile folder goes with it)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    options.add_argument(f"--force-device-scale-factor={scale}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    # the page's own viewport exactly width x height (the window's frame takes none of it)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": width < 800},
    )
    quit_ = driver.quit

    def quit_and_clean() -> None:
        try:
            quit_()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    driver.quit = quit_and_clean
    return driver
