"""The overhead camera: a pure card recognizer, per-deck profiles, and the capture adapter."""

from drivers.camera.profile import Profile, builtin_profile, load_profile
from drivers.camera.recognizer import FrameRecognition, Recognition, Recognizer, Status

__all__ = [
    "FrameRecognition",
    "Profile",
    "Recognition",
    "Recognizer",
    "Status",
    "builtin_profile",
    "load_profile",
]
