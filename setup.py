"""Build script for tablectl's one compiled part; everything else is declared in pyproject.toml.

The hand evaluator's kernel is written in C (``controller/_handeval.c``): game mathematics
needs hundreds of millions of evaluations, and live play a one-hand call that costs nothing.
``pip install .`` builds it with the system's C compiler; no other build tool is needed.
"""

import platform

from setuptools import Extension, setup

# The kernel counts bits; every x86-64 CPU since 2008 has an instruction for it.
POPCOUNT = ["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []

KERNEL = Extension(
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

setup(ext_modules=[KERNEL])
