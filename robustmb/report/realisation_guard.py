"""The realisation an arm certificate's D,G scalings were made for, and the check of it.

D,G scalings are written in the basis of the LFT's repeated-scalar Delta channels: the
same mu, but another basis of those channels (a sign or a rotation), makes stored
scalings useless.  An evidence folder therefore holds ``M(j omega)`` of its realisation
at two frequencies (``realisation.npz``), and a replay first checks that the problem it
built is that realisation (:func:`check_realisation`), refusing the evidence otherwise.
"""

from __future__ import annotations

import os

import numpy as np

#: File of an evidence folder holding ``M(j omega)`` of the problem its scalings were made for.
REALISATION_FILE = "realisation.npz"
# Frequencies (rad/s) of that fingerprint, and its tolerance relative to the entries' row
# and column scales: far above rounding, far below any change of the Delta-channel basis
# (a sign or a rotation of repeated-scalar channels changes entries by their own size).
_FINGERPRINT_OMEGA = (0.5, 5.0)
_FINGERPRINT_RTOL = 1e-7


def realisation_fingerprint(problem):
    """``M(j omega)`` of ``problem`` (whole LFT, Delta channels first) at two frequencies.

    D,G scalings are written in the basis of the repeated-scalar Delta channels: the same
    ``mu`` but another basis makes them useless.  The fingerprint pins the realisation the
    evidence was made for (:func:`check_realisation`).

    Returns
    -------
    omega : ndarray, shape (2,)
    response : ndarray, shape (2, nz + ny, nw + nu), complex

    Examples
    --------
    >>> from robustmb.report.arm_certificate import arm_channel_problem, load_shipped_design
    >>> w, m = realisation_fingerprint(arm_channel_problem(load_shipped_design()["values"]))
    >>> w.tolist(), m.shape
    ([0.5, 5.0], (2, 33, 33))
    """
    omega = np.array(_FINGERPRINT_OMEGA)
    a, b, c, d = problem.a, problem.b, problem.c, problem.d
    eye = np.eye(a.shape[0])
    resp = np.array([d + c @ np.linalg.solve(1j * w * eye - a, b) for w in omega])
    return omega, resp


def save_realisation(problem, folder):
    """Write :func:`realisation_fingerprint` of ``problem`` to ``folder``/``realisation.npz``."""
    omega, resp = realisation_fingerprint(problem)
    np.savez(os.path.join(folder, REALISATION_FILE), omega=omega, response=resp)


def check_realisation(problem, folder):
    """Refuse evidence made for another realisation of the same problem.

    The stored ``M(j omega)`` (:func:`save_realisation`) must equal the one of
    ``problem`` entry by entry, within 1e-7 of the geometric mean of the entry's row and
    column largest magnitudes (a scale-free test: rounding passes, a changed sign or
    rotation of Delta channels does not).

    Raises
    ------
    ArgumentError
        Naming ``realisation.npz``: absent, unreadable, of another shape, or not matching
        (with the largest relative mismatch and the Delta channels it is on).

    Examples
    --------
    >>> from robustmb.report.arm_certificate import (arm_channel_problem, evidence_folders,
    ...                                              load_shipped_design)
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> check_realisation(p, evidence_folders()["tracking"])
    """
    from ..errors import ArgumentError

    path = os.path.join(folder, REALISATION_FILE)
    if not os.path.isfile(path):
        raise ArgumentError(
            f"evidence: no {path}: the realisation its D,G scalings were made for is unknown, "
            "and scalings of another Delta-channel basis do not certify this one"
        )
    try:
        with np.load(path) as z:
            omega, stored = z["omega"].astype(float), z["response"].astype(complex)
    except (KeyError, OSError, ValueError) as err:
        raise ArgumentError(f"evidence: {path} is not a readable fingerprint ({err})") from None
    if not np.array_equal(omega, np.array(_FINGERPRINT_OMEGA)):
        raise ArgumentError(f"evidence: {path} samples omega = {omega}, not {_FINGERPRINT_OMEGA}")
    _, resp = realisation_fingerprint(problem)
    if stored.shape != resp.shape:
        raise ArgumentError(
            f"evidence: {path} is of a realisation of shape {stored.shape[1:]}, the problem "
            f"built here has {resp.shape[1:]}"
        )
    mag = np.abs(resp)
    scale = np.sqrt(mag.max(axis=2, keepdims=True) * mag.max(axis=1, keepdims=True))
    scale = np.where(scale > 0, scale, np.finfo(float).tiny)
    rel = np.abs(stored - resp) / scale
    if not np.all(rel <= _FINGERPRINT_RTOL):
        k, i, j = np.unravel_index(int(np.argmax(rel)), rel.shape)
        rows = {z: bl.name for bl in problem.blocks for z in range(bl.z.start, bl.z.stop)}
        cols = {w: bl.name for bl in problem.blocks for w in range(bl.w.start, bl.w.stop)}
        raise ArgumentError(
            f"evidence: {path}: the realisation built here differs from the one the D,G "
            f"scalings were made for (M(j{omega[k]:g}) entry ({i}, {j}) off by {rel[k, i, j]:.3g} "
            f"of its scale, row of {rows.get(i, 'performance')}, column of "
            f"{cols.get(j, 'performance')}): another Delta-channel basis, so the stored "
            "scalings are not replayed"
        )
