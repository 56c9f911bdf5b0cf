"""Checkpoints of robust tuning: the design, active set and history of each round.

:func:`.robust_tuning.robust_systune` (``systune(..., checkpoint=path)``) writes one after
every tuning round, replacing the file atomically, so an interrupted run leaves the last
complete round; :func:`read_checkpoint` reads it back (also a stored design in that
format) to resume or to certify it.
"""

from __future__ import annotations

import json
import os
import tempfile

import numpy as np

from ..errors import ArgumentError

__all__ = ["check_checkpoint", "read_checkpoint", "write_checkpoint"]


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(w) for k, w in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(w) for w in v]
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    return v


def check_checkpoint(path):
    """``path`` as a checkpoint file name, checked before any tuning.

    A ``str`` or path-like, not a directory, in an existing folder where a file can be
    created (tried with a temporary file, removed at once); else
    :class:`~robustmb.errors.ArgumentError` naming ``checkpoint``.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_checkpoint(os.path.join(folder, "ck.json")) == os.path.join(folder, "ck.json")
    True
    >>> check_checkpoint(5)
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: systune: checkpoint must be a file name (str or path-like), got 5
    """
    if not isinstance(path, str | os.PathLike):
        raise ArgumentError(
            f"systune: checkpoint must be a file name (str or path-like), got {path!r}"
        )
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path or os.path.isdir(path):
        raise ArgumentError(f"systune: checkpoint {path!r} is not a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ArgumentError(f"systune: checkpoint folder {folder!r} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".checkpoint-", suffix=".tmp")
    except OSError as exc:
        raise ArgumentError(
            f"systune: checkpoint folder {folder!r} is not writable ({exc.strerror})"
        ) from None
    os.close(fd)
    os.remove(tmp)
    return path


def write_checkpoint(path, values, points, history):
    """Write the round's design, active set and history (JSON, replaced atomically).

    The data goes to a new temporary file in the same folder (a unique name, so that
    no leftover of an interrupted write is reused), is flushed to disk, and replaces
    ``path`` in one ``os.replace``; on any failure the temporary file is removed and
    ``path`` keeps the previous round.
    """
    path = os.fspath(path)
    data = json.dumps(_jsonable({"values": values, "active_set": points, "history": history}))
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".checkpoint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        # also on KeyboardInterrupt: no temporary file is left behind
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def read_checkpoint(path):
    """A checkpoint of :func:`.robust_tuning.robust_systune` (or a stored design in that format).

    Returns
    -------
    dict
        ``values`` (``{tunable name: ndarray}``), ``active_set`` (list of
        ``{parameter name: value}``, the nominal first) and ``history``, plus any further
        keys of the file.

    Raises
    ------
    ArgumentError
        When ``values`` or ``active_set`` is missing or of the wrong type (names the key
        and the file).

    Examples
    --------
    >>> import control, tempfile, os
    >>> import robustmb as rmb
    >>> from robustmb.tuning import WeightedGain
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    >>> s = control.tf("s")
    >>> G = rmb.uss(1 / (s - a)); G.input_names, G.output_names, G.name = ["v"], ["y"], "G"
    >>> K = rmb.tunable_gain("K", 1, 1); K.input_names, K.output_names = ["e"], ["u"]
    >>> S = control.ss([], [], [], [[1, -1, 0, 0], [0, 0, 1, 1]], name="S",
    ...                inputs=["r", "y", "u", "d"], outputs=["e", "v"])
    >>> CL = rmb.connect([G, K, S], None, ["r", "d"], ["y", "u"])
    >>> goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    >>> path = os.path.join(tempfile.mkdtemp(), "ck.json")
    >>> res = rmb.systune(CL, goals, seed=0, certify=False, checkpoint=path)
    >>> ck = read_checkpoint(path)
    >>> round(float(ck["values"]["K"][0, 0]), 3), len(ck["active_set"])
    (4.0, 2)
    """
    with open(path) as fh:
        data = json.load(fh)
    if not isinstance(data, dict):
        raise ArgumentError(f"read_checkpoint: '{path}' does not hold a JSON object")
    for key in ("values", "active_set"):
        if key not in data:
            raise ArgumentError(f"read_checkpoint: '{path}' has no '{key}'")
    if not isinstance(data["values"], dict):
        raise ArgumentError(
            f"read_checkpoint: 'values' in '{path}' must be an object "
            "{tunable name: array}; got " + type(data["values"]).__name__
        )
    values = {}
    for k, v in data["values"].items():
        try:
            values[k] = np.asarray(v, float)
        except (TypeError, ValueError):
            raise ArgumentError(
                f"read_checkpoint: 'values' entry {k!r} in '{path}' is not numeric"
            ) from None
    data["values"] = values
    active = data["active_set"]
    if not isinstance(active, list) or not all(isinstance(a, dict) for a in active):
        raise ArgumentError(
            f"read_checkpoint: 'active_set' in '{path}' must be a list of objects "
            "{parameter name: value}"
        )
    return data
