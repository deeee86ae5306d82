import random

import pytest

from config.camera import ZoneLayout, load_zones
from drivers.camera.recognizer import Recognizer


@pytest.fixture(scope="session")
def layout() -> ZoneLayout:
    return load_zones()


@pytest.fixture(scope="session")
def recognizer(layout: ZoneLayout) -> Recognizer:
    return Recognizer(zones=layout)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(7)
