"""The compact moldable instance format: a NumPy ``.npz`` archive (chosen by the ``.npz`` suffix).

Three arrays, no others, no pickled objects::

    m        integer scalar (0-d array), 1 <= m <= MAX_PROCESSORS
    weights  shape (n,), real numbers (one weight per task)
    times    shape (n, m), real numbers; times[i, k - 1] = p_i(k)

It holds the same instance as the documented JSON (``{"m": ..., "tasks": [{"weight": w,
"times": [...]}]}``) and obeys every rule of :func:`vcsched.problems.moldable.parse_instance`:
``n >= 1``, exactly ``m`` times per task, times and weights in ``[MIN_VALUE, MAX_VALUE]``,
``m`` and ``n x m`` within the limits (checked from the array headers, before any table is
read). Errors are one line naming the file and, for a bad value, the task and the field, in
the words the JSON reader uses. The values are checked as whole arrays, so a 10,000 x 2,000
instance (160 MB of float64) loads in well under a second, where the JSON text (405 MB) takes
seconds and gigabytes of Python objects.
"""

from __future__ import annotations

import io
import lzma
import os
import struct
import zipfile
import zlib
from typing import Any

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import check_keys, number_field, read_input_bytes
from vcsched.problems.moldable_limits import MAX_PROCESSORS, MAX_VALUE, MIN_VALUE, check_size

__all__ = ["NPZ_SUFFIX", "NPZ_FIELDS", "is_npz_path", "read_npz_arrays", "save_npz_instance"]

NPZ_SUFFIX = ".npz"
NPZ_FIELDS = ("m", "weights", "times")


ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError,
              RuntimeError, zlib.error, struct.error, lzma.LZMAError)
"""What reading a damaged archive may raise: zipfile's own errors, a zip feature it lacks (a version,
a compression: ``NotImplementedError``), an encrypted entry (``RuntimeError``), a corrupt compressed
stream (``zlib.error``, ``lzma.LZMAError``, ``OSError`` of bz2), a truncated header (``struct.error``)."""


def is_npz_path(path: str | os.PathLike) -> bool:
    """Whether ``path`` names the compact format (its name ends in ``.npz``, any case)."""
    return os.fspath(path).lower().endswith(NPZ_SUFFIX)


def _header(zf: zipfile.ZipFile, name: str, source: str) -> tuple[tuple, np.dtype]:
    """Shape and dtype of the array ``name`` from its ``.npy`` header (no data read)."""
    try:
        with zf.open(name + ".npy") as fh:
            version = np.lib.format.read_magic(fh)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read(fh)  # the header only
    except ZIP_ERRORS as exc:
        raise InvalidInputError(f"{source}: array {name!r} is not a valid .npy entry ({exc})") from None
    return tuple(shape), np.dtype(dtype)


def _check_headers(zf: zipfile.ZipFile, source: str) -> dict[str, tuple[tuple, np.dtype]]:
    odd = [n for n in zf.namelist() if not n.endswith(".npy")]
    if odd:
        raise InvalidInputError(f"{source}: entry {odd[0]!r} is not a .npy array; expected arrays m, weights, times")
    names = [n[:-4] for n in zf.namelist()]
    check_keys(dict.fromkeys(names), NPZ_FIELDS, where=source)
    for name in NPZ_FIELDS:
        if name not in names:
            raise InvalidInputError(f"{source}: array {name!r} missing (expected arrays m, weights, times)")
    heads = {name: _header(zf, name, source) for name in NPZ_FIELDS}
    for name, (_shape, dtype) in heads.items():
        if dtype.kind not in "iuf" or dtype.hasobject:
            kinds = "an integer" if name == "m" else "real numbers"
            raise InvalidInputError(f"{source}: array {name!r} has dtype {dtype}; expected {kinds}")
    if heads["m"][0] != () or heads["m"][1].kind not in "iu":
        raise InvalidInputError(f"{source}: field 'm' must be one integer (a 0-d integer array), "
                                f"got shape {heads['m'][0]} of {heads['m'][1]}")
    if len(heads["times"][0]) != 2:
        raise InvalidInputError(f"{source}: field 'times' must be a 2-d array (tasks x m), got shape {heads['times'][0]}")
    n = heads["times"][0][0]
    if n < 1:
        raise InvalidInputError(f"{source}: field 'tasks' missing or empty (the times table has no rows)")
    if heads["weights"][0] != (n,):
        raise InvalidInputError(f"{source}: field 'weights' has shape {heads['weights'][0]}, expected ({n},) "
                                "(one weight per task)")
    return heads


def _first_bad(values: np.ndarray) -> int | None:
    """Flat index of the first value outside ``[MIN_VALUE, MAX_VALUE]`` (NaN included), or None."""
    ok = (values >= MIN_VALUE) & (values <= MAX_VALUE)
    if ok.all():
        return None
    return int(np.argmin(ok.ravel()))


def _read_m(zf: zipfile.ZipFile, source: str) -> int:
    m = int(np.load(zf.open("m.npy"), allow_pickle=False))
    if not 1 <= m <= MAX_PROCESSORS:
        raise InvalidInputError(f"{source}: field 'm' must be >= 1 and <= {MAX_PROCESSORS}, got {m}")
    return m


def _validated(zf: zipfile.ZipFile, source: str) -> tuple[int, np.ndarray, np.ndarray]:
    heads = _check_headers(zf, source)
    m = _read_m(zf, source)
    n, cols = heads["times"][0]
    if cols != m:  # the JSON reader's message for task 0
        raise InvalidInputError(f"{source}: task 0, field 'times': has {cols} values, expected m = {m} "
                                "(one per number of processors 1..m; a missing tail is not padded)")
    check_size(m, n, where=source)
    weights = np.load(zf.open("weights.npy"), allow_pickle=False).astype(float, copy=False)
    bad = _first_bad(weights)
    if bad is not None:
        number_field({"weight": float(weights[bad])}, "weight", where=f"{source}: task {bad}", low=MIN_VALUE,
                     high=MAX_VALUE)
    times = np.load(zf.open("times.npy"), allow_pickle=False).astype(float, copy=False)
    bad = _first_bad(times)
    if bad is not None:
        i, k = divmod(bad, m)
        number_field({"times": float(times[i, k])}, "times", where=f"{source}: task {i}, entry {k} (p_i({k + 1}))",
                     low=MIN_VALUE, high=MAX_VALUE)
    return m, np.ascontiguousarray(times), weights


def read_npz_arrays(path: str | os.PathLike) -> tuple[int, np.ndarray, np.ndarray]:
    """Read and validate a ``.npz`` moldable instance: ``(m, times, weights)``, which
    :func:`vcsched.problems.moldable.load_instance` turns into an instance; one :class:`InvalidInputError` line on
    any fault."""
    source = os.fspath(path)
    raw = read_input_bytes(source, what="moldable instance (.npz)", compressed=False)
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            return _validated(zf, source)
    except ZIP_ERRORS as exc:
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(f"{source}: not a readable .npz archive ({exc}); expected arrays m, weights, "
                                "times") from None


def save_npz_instance(instance: Any, path: str | os.PathLike) -> None:
    """Write ``instance`` as an uncompressed ``.npz`` (arrays ``m``, ``weights``, ``times``), atomically."""
    from vcsched.files import atomic_write

    def write(tmp) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, m=np.int64(instance.m), weights=np.asarray(instance.weights, dtype=float),
                     times=np.asarray(instance.times, dtype=float))

    atomic_write(path, write)
