"""Build script for the one compiled part of tablectl: the hand evaluator kernel.

Everything else is declared in pyproject.toml; setuptools needs this file only
to know about the C extension.
"""

import platform

from setuptools import Extension, setup

# The kernel counts bits; every x86-64 CPU since 2008 has an instruction for it.
POPCOUNT = ["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []

setup(
    ext_modules=[
        Extension(
            "controller._handeval",
            sources=["controller/_handeval.c"],
            extra_compile_args=[
                "-O3",
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Werror=implicit-function-declaration",
                *POPCOUNT,
            ],
        )
    ]
)
