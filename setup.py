"""Declares the Cython/C kernel extension only; all metadata lives in pyproject.toml.

Set ENGRAMDB_NO_C=1 to skip the C build; the kernel registry then falls back to Numba.
"""
import os

import numpy as np
from setuptools import Extension, setup

ext_modules = []
if os.environ.get("ENGRAMDB_NO_C") != "1":
    from Cython.Build import cythonize

    ext_modules = cythonize(
        [
            Extension(
                "engramdb.kernels._ckernels",
                sources=["src/engramdb/kernels/_ckernels.pyx", "csrc/topk.c", "csrc/salience.c", "csrc/spread.c",
                         "csrc/admission.c", "csrc/inflow.c", "csrc/bm25.c", "csrc/hashing.c",
                         "csrc/fuse.c", "csrc/sentence.c"],
                include_dirs=["csrc", np.get_include()],
                extra_compile_args=["-O3", "-std=c99"],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
        ],
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
    )

setup(ext_modules=ext_modules)
