"""Build of the optional C extension ``vcsched._speedups`` (the metadata is in pyproject.toml).

``optional=True``: where no C compiler is found, the installation goes on without it and
the toolkit runs the same rules in numba or plain Python (``vcsched/native.py``).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("vcsched._speedups", ["vcsched/_speedups.c"], optional=True)])
