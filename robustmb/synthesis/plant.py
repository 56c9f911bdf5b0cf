"""Generalised plants for synthesis: partition, checks, and the maps every method shares.

A generalised plant

    x' = A x + B1 w + B2 u
    z  = C1 x + D11 w + D12 u
    y  = C2 x + D21 w + D22 u

is closed by ``u = K y`` (the lower LFT).  This module turns the user's plant (a
python-control system or the nominal of an uncertain one) into these blocks, checks that
the problem is solvable at all (stabilisable through ``u``, detectable through ``y``),
and provides the three exact changes of problem every synthesis method uses:

- loop shifting, which removes ``D22`` (design for ``y0 = y - D22 u``, then fold ``D22``
  back into the controller);
- the bilinear map ``z = (1 + s) / (1 - s)``, which turns a discrete-time H-infinity
  problem into a continuous-time one with the same norm for every controller
  (:mod:`.bilinear_map`);
- the lower LFT itself, computed here once so every result is re-verified on the plant the
  user gave.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable
from dataclasses import dataclass

import control
import numpy as np
import scipy.linalg
import slycot

from robustmb.analysis._statespace import _sampling_time, as_statespace_data
from robustmb.errors import ArgumentError, DimensionError, IllPosedError, SignalError

__all__ = [
    "Plant",
    "balanced_controller",
    "boundary_zeros",
    "closed_loop",
    "lft_response",
    "normalised_performance",
    "partition_plant",
    "shift_back",
    "signal_order",
    "transfer_samples",
    "regularise",
]


@dataclass
class Plant:
    """Partitioned generalised plant (``dt = 0`` continuous, else the sampling time)."""

    A: np.ndarray
    B1: np.ndarray
    B2: np.ndarray
    C1: np.ndarray
    C2: np.ndarray
    D11: np.ndarray
    D12: np.ndarray
    D21: np.ndarray
    D22: np.ndarray
    dt: float = 0.0
    input_names: tuple = ()
    output_names: tuple = ()
    # the sampling time as the user gave it (python-control's ``True``, unspecified, kept
    # for the controller); ``dt`` is its numeric value for the computations
    dt_given: object = None

    @property
    def controller_dt(self):
        """Sampling time for the controller: the plant's own, ``True`` included."""
        return self.dt if self.dt_given is None else self.dt_given

    @property
    def dims(self):
        """``(n, m1, m2, p1, p2)``: states, disturbances, controls, errors, measurements."""
        return (
            self.A.shape[0],
            self.B1.shape[1],
            self.B2.shape[1],
            self.C1.shape[0],
            self.C2.shape[0],
        )

    def with_d22_zero(self) -> Plant:
        """The same plant with ``D22`` removed (the loop-shifted problem)."""
        return Plant(
            self.A, self.B1, self.B2, self.C1, self.C2, self.D11, self.D12, self.D21,
            np.zeros_like(self.D22), self.dt,
        )  # fmt: skip

    def statespace(self) -> control.StateSpace:
        """The plant as one ``control.StateSpace`` (inputs ``[w; u]``, outputs ``[z; y]``)."""
        B = np.hstack([self.B1, self.B2])
        C = np.vstack([self.C1, self.C2])
        D = np.block([[self.D11, self.D12], [self.D21, self.D22]])
        return control.ss(self.A, B, C, D, self.dt)


def _signal_indices(names, labels, count_name, kind):
    labels = list(labels)
    idx = []
    for nm in names:
        if not isinstance(nm, str):
            raise SignalError(f"{count_name}: signal names must be strings, got {nm!r}")
        if nm not in labels:
            raise SignalError(f"{count_name}: {kind} signal {nm!r} is not one of {labels}")
        idx.append(labels.index(nm))
    if len(set(idx)) != len(idx):
        raise SignalError(f"{count_name}: repeated {kind} signal in {list(names)}")
    return idx


def _count_or_names(value):
    """Whether ``value`` is an integer (not a bool), a string or a sequence of strings;
    the strings themselves are checked against the plant's signals later."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (numbers.Integral, str)):
        return True
    # a sequence of names (each checked to be a string by _signal_indices)
    return isinstance(value, Iterable)


def _nominal_and_labels(P, argname):
    if hasattr(P, "nominal") and hasattr(P, "blocks"):
        sys = P.nominal()
        inputs, outputs = list(P.input_names), list(P.output_names)
        if not isinstance(sys, control.StateSpace):
            sys = control.ss([], [], [], np.atleast_2d(sys))
        return sys, inputs, outputs
    if isinstance(P, control.InputOutputSystem):
        return P, list(P.input_labels), list(P.output_labels)
    return P, None, None


def _real_statespace_data(sys, argname):
    """``(A, B, C, D, dt)`` of a ``control.StateSpace`` with finite float64 matrices
    (fresh copies), or ``None`` for anything else: the common case without the general
    conversion of :func:`~robustmb.analysis._statespace.as_statespace_data`, which handles
    (and explains) every other input.  python-control has already checked the shapes."""
    if not isinstance(sys, control.StateSpace):
        return None
    mats = (sys.A, sys.B, sys.C, sys.D)
    for M in mats:
        if type(M) is not np.ndarray or M.dtype != np.float64 or M.ndim != 2:
            return None
        if not np.isfinite(M).all():
            return None  # the general path names the entry
    return (*(M.copy() for M in mats), _sampling_time(sys.dt, argname))


def signal_order(in_labels, out_labels, nmeas, ncon, m=None, p=None):
    """Input and output orders that put the named controls / measurements last.

    Parameters
    ----------
    in_labels, out_labels : list of str or None
        The plant's signal names (``None`` for an unnamed plant).
    nmeas, ncon : int or sequence of str
        Counts (the last outputs / inputs) or signal names, which then become ``y`` and
        ``u`` in the given order.
    m, p : int, optional
        Numbers of inputs and outputs (default: the numbers of labels).

    Returns
    -------
    tuple
        ``(in_order, out_order, nmeas, ncon)``: index lists of the plant's inputs and
        outputs, and the counts.

    Examples
    --------
    >>> signal_order(["w", "u", "v"], ["y", "z"], ["y"], ["u"])
    ([0, 2, 1], [1, 0], 1, 1)
    """
    m = len(in_labels) if m is None else m
    p = len(out_labels) if p is None else p
    in_order, out_order = list(range(m)), list(range(p))
    for value, name in ((nmeas, "nmeas"), (ncon, "ncon")):
        if not _count_or_names(value):
            raise ArgumentError(f"{name} must be an integer count or signal name(s); got {value!r}")
    ncon, in_order = _last_channels(ncon, in_labels, in_order, "ncon", "input")
    nmeas, out_order = _last_channels(nmeas, out_labels, out_order, "nmeas", "output")
    return in_order, out_order, nmeas, ncon


def _last_channels(value, labels, order, name, kind):
    """``(count, order)``: a count keeps ``order``; signal names are moved to its end."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value), order
    if labels is None:
        raise SignalError(f"{name}: signal names need a plant with named {kind}s")
    names = [value] if isinstance(value, str) else list(value)
    idx = _signal_indices(names, labels, name, kind)
    return len(idx), [i for i in order if i not in idx] + idx


def partition_plant(P, nmeas, ncon, *, argname="P") -> Plant:
    """Split ``P`` into the blocks of a generalised plant.

    Parameters
    ----------
    P : control.StateSpace, control.TransferFunction, uncertain system or tuple
        The plant; for an uncertain system its nominal is used.
    nmeas, ncon : int or sequence of str
        Number of measurements (last outputs) and controls (last inputs), or their
        signal names, in which case those signals become ``y`` and ``u`` in the given order.

    Returns
    -------
    Plant

    Raises
    ------
    ArgumentError
        For ``nmeas`` / ``ncon`` neither an integer nor signal names (a float, a bool).
    DimensionError
        For counts that do not fit the plant's size.
    SignalError
        For unknown or repeated signal names.

    Examples
    --------
    >>> import control
    >>> G = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
    >>> partition_plant(G, 1, 1).dims
    (1, 1, 1, 1, 1)
    """
    sys, in_labels, out_labels = _nominal_and_labels(P, argname)
    sys_dt = getattr(sys, "dt", None)
    data = _real_statespace_data(sys, argname)
    A, B, C, D, dt = data if data is not None else as_statespace_data(sys, argname=argname)
    if np.iscomplexobj(A) or np.iscomplexobj(B) or np.iscomplexobj(C) or np.iscomplexobj(D):
        raise DimensionError(f"{argname}: synthesis needs a real plant")
    p, m = D.shape
    in_order, out_order, nmeas, ncon = signal_order(in_labels, out_labels, nmeas, ncon, m, p)
    if ncon < 1:
        raise DimensionError(f"ncon = {ncon}: the controller needs at least one control input")
    if ncon >= m:
        raise DimensionError(
            f"ncon = {ncon} must leave at least one disturbance input: the plant has {m} inputs"
        )
    if nmeas < 1:
        raise DimensionError(f"nmeas = {nmeas}: the controller needs at least one measurement")
    if nmeas >= p:
        raise DimensionError(
            f"nmeas = {nmeas} must leave at least one error output: the plant has {p} outputs"
        )
    if in_order != list(range(m)):
        B, D = B[:, in_order], D[:, in_order]
    if out_order != list(range(p)):
        C, D = C[out_order], D[out_order]
    m1, p1 = m - ncon, p - nmeas
    labels_in = tuple(in_labels[i] for i in in_order) if in_labels and len(in_labels) == m else ()
    labels_out = (
        tuple(out_labels[i] for i in out_order) if out_labels and len(out_labels) == p else ()
    )
    return Plant(
        A, B[:, :m1], B[:, m1:], C[:p1], C[p1:], D[:p1, :m1], D[:p1, m1:], D[p1:, :m1],
        D[p1:, m1:], dt, labels_in, labels_out, True if dt and sys_dt is True else None,
    )  # fmt: skip


def _power_of_two(x):
    """The power of 2 nearest to ``1 / x`` (1 for ``x`` 0 or not finite): scaling by it
    is exact in floating point."""
    if not (np.isfinite(x) and x > 0):
        return 1.0
    return float(2.0 ** -np.round(np.log2(x)))


def transfer_samples(plant):
    """``[P11 P12; P21 P22]`` sampled at zero frequency, infinity (``z = -1`` in discrete
    time) and the moduli (angles) of the plant's poles, skipping a sample at a pole on the
    stability boundary: points that do not depend on the realisation's state coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> o, z = np.ones((1, 1)), np.zeros((1, 1))
    >>> P = Plant(-o, 2 * o, o, o, o, z, o, o, z)   # P11 = 2 / (s + 1), P12 = 1 / (s + 1) + 1
    >>> sorted(float(abs(G[0, 0]).round(6)) for G in transfer_samples(P))  # infinity, 1, 0
    [0.0, 1.414214, 2.0]
    """
    n = plant.A.shape[0]
    B = np.hstack([plant.B1, plant.B2])
    C = np.vstack([plant.C1, plant.C2])
    D = np.block([[plant.D11, plant.D12], [plant.D21, plant.D22]])
    if not n:
        return [D]
    lam = np.linalg.eigvals(plant.A)
    if plant.dt:
        points = np.exp(1j * np.concatenate([[0.0, np.pi], np.abs(np.angle(lam))]))
    else:
        points = 1j * np.concatenate([[0.0], np.abs(lam)])
    out = [] if plant.dt else [D.astype(complex)]  # infinity (continuous time)
    for s in points:
        if np.min(np.abs(s - lam)) <= 1e-10 * (1 + abs(s)):
            continue  # a pole on the boundary
        try:
            G = C @ np.linalg.solve(s * np.eye(n) - plant.A, B) + D
        except np.linalg.LinAlgError:
            continue
        if np.all(np.isfinite(G)):
            out.append(G)
    return out


_NORMALISE_BEYOND = 6  # |log2| of a channel scale beyond which it is normalised


def normalised_performance(plant):
    """The plant with ``z`` and ``w`` scaled to unit size, and the factor ``s`` every
    closed-loop norm is multiplied by.

    ``z`` is scaled by ``sz``, the power of 2 nearest to the inverse of the smaller of
    ``sigma_max([C1 D11 D12])`` and the largest ``sigma_max([P11 P12])`` of
    :func:`transfer_samples`, then ``w`` by ``sw``, the same for ``[B1; D21]`` and
    ``[sz P11; P21]``.  Both are proportional to the scale of ``z`` (of ``w``); the
    smaller because a state coordinate can inflate the data and a pole near the
    stability boundary a sample.  A factor within ``2^-6 .. 2^6`` is replaced by 1:
    such a plant is designed as given.  ``Fl(P, K)`` from ``w`` to ``z`` becomes
    ``sz Fl(P, K) sw`` for every ``K``: the same controllers are optimal at ``s = sz sw``
    times the original level, and the synthesis's absolute thresholds (its first level,
    the rank tests of ``D12`` and ``D21``, the level at which an optimum of 0 stops) act
    on a plant of unit size.  Powers of 2 keep the scaling exact.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1e-9], [1.0]], [[0.0, 1e-9], [1.0, 0.0]])
    >>> plant, s = normalised_performance(partition_plant(P, 1, 1))
    >>> bool(s == 2.0**29)  # |[C1 D11 D12]| = 1.4e-9; w is left (|[B1; D21]| = 1.4)
    True
    """
    samples = transfer_samples(plant)
    m1, p1 = plant.B1.shape[1], plant.C1.shape[0]
    data = np.linalg.norm(np.hstack([plant.C1, plant.D11, plant.D12]), 2)
    size = max((np.linalg.norm(G[:p1], 2) for G in samples), default=data)
    sz = _power_of_two(min(data, size))
    data = np.linalg.norm(np.vstack([plant.B1, plant.D21]), 2)
    size = max(
        (np.linalg.norm(np.vstack([sz * G[:p1, :m1], G[p1:, :m1]]), 2) for G in samples),
        default=data,
    )
    sw = _power_of_two(min(data, size))
    # a plant within 2^+-6 of unit size is designed as given: the synthesis's thresholds
    # are relative at that size, and an exact rescaling still moves the LMI solver's and
    # the stiff verifications' rounding
    sz = 1.0 if abs(np.log2(sz)) <= _NORMALISE_BEYOND else sz
    sw = 1.0 if abs(np.log2(sw)) <= _NORMALISE_BEYOND else sw
    if sz == 1.0 and sw == 1.0:
        return plant, 1.0
    scaled = dataclasses.replace(
        plant, B1=plant.B1 * sw, C1=plant.C1 * sz, D11=plant.D11 * (sz * sw),
        D12=plant.D12 * sz, D21=plant.D21 * sw,
    )  # fmt: skip
    return scaled, sz * sw


def _balanced_pair(A, B):
    """``(A, B)`` with ``B`` scaled to the norm of ``A`` (the units of the inputs), then
    the diagonal similarity (powers of two, exact) that balances the rows of ``[A, B]``
    against the columns of ``A`` (LAPACK gebal on ``[[A, B], [0, 0]]``, no permutation,
    the units of the states).  Neither change moves the controllable subspace."""
    n, m = B.shape
    if n == 0 or not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
        return A, B
    na, nb = np.linalg.norm(A), np.linalg.norm(B)
    if na > 0 and nb > 0:
        B = B * (na / nb)
    M = np.zeros((n + m, n + m))
    M[:n, :n], M[:n, n:] = A, B
    _, (scale, _) = scipy.linalg.matrix_balance(M, permute=False, separate=True)
    d = scale[:n]
    return A / d[:, None] * d[None, :], B / d[:, None]


# rank tolerance of the staircase, relative to the norm of the balanced [A, B]; roundoff of
# an ill-conditioned change of basis leaves B components far above n^2 eps in the directions
# it cannot reach
_STAIRCASE_TOL = 1e-10


def _uncontrollable_modes(A, B, dt):
    """Eigenvalues of ``A`` on or outside the stability boundary that ``B`` cannot move.

    The pair is first balanced (:func:`_balanced_pair`), which makes the verdict
    independent of the units of the states and inputs, then reduced by orthogonal
    similarities to the controllability staircase form (SLICOT AB01ND)::

        Z' A Z = [Ac  *  ]     Z' B = [Bc]
                 [0   Auc],           [0 ]

    with ``(Ac, Bc)`` controllable.  The modes out of reach of ``B`` are exactly the
    eigenvalues of ``Auc``; the rank decisions of the staircase are made on the
    orthogonally transformed blocks with a tolerance relative to the norm of the
    balanced ``[A, B]``, so they stay reliable where a pointwise PBH test at computed
    eigenvalues does not: an unreachable mode sharing its eigenvalue with a reachable one
    in a Jordan chain is computed ``sqrt(eps)`` away from it, where ``[A - lam I, B]`` is
    far from rank deficient.  A mode of ``Auc`` counts as unstable when its real part
    (its modulus less one, in discrete time) is at least ``-1e-12`` times the norm of the
    balanced ``A`` (that norm but at least one, in discrete time): the rounding of the
    computed eigenvalues grows with that norm.
    """
    n, m = B.shape
    if n == 0:
        return []
    A, B = _balanced_pair(np.asarray(A, float), np.asarray(B, float))
    if m == 0 or not np.any(B):
        Auc = A
    else:
        Ast, _, ncont, *_ = slycot.ab01nd(
            n, m, A.copy(order="F"), B.copy(order="F"), tol=_STAIRCASE_TOL
        )
        Auc = Ast[ncont:, ncont:]
    if Auc.shape[0] == 0:
        return []
    lams = np.linalg.eigvals(Auc)
    norm_a = np.linalg.norm(A, 2)
    if dt:
        # modulus on the unit circle up to rounding relative to the size of A
        unstable = np.abs(lams) >= 1 - 1e-12 * max(1.0, norm_a)
    else:
        unstable = lams.real >= -1e-12 * max(norm_a, np.finfo(float).tiny)
    return [complex(lam) if lam.imag else float(lam.real) for lam in lams[unstable]]


def check_solvable(plant: Plant) -> None:
    """Raise when ``(A, B2)`` is not stabilisable or ``(C2, A)`` is not detectable.

    Examples
    --------
    >>> import control
    >>> G = control.ss([[1.0]], [[1.0, 0.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
    >>> check_solvable(partition_plant(G, 1, 1))
    Traceback (most recent call last):
    ...
    robustmb.errors.IllPosedError: the plant is not stabilisable through the control inputs ...
    """
    bad = _uncontrollable_modes(plant.A, plant.B2, plant.dt)
    if bad:
        names = list(plant.input_names[-plant.B2.shape[1] :]) or "u"
        raise IllPosedError(
            f"the plant is not stabilisable through the control inputs {names}: the "
            f"unstable mode(s) {np.round(bad, 6).tolist()} are not reachable from them"
        )
    bad = _uncontrollable_modes(plant.A.T, plant.C2.T, plant.dt)
    if bad:
        names = list(plant.output_names[-plant.C2.shape[0] :]) or "y"
        raise IllPosedError(
            f"the plant is not detectable through the measurements {names}: the unstable "
            f"mode(s) {np.round(bad, 6).tolist()} are not observable in them"
        )


def boundary_zeros(plant: Plant, tol: float = 1e-8) -> list:
    """Invariant zeros of the ``u -> z`` and ``w -> y`` channels on the stability boundary.

    The pencils ``[A - s I, B2; C1, D12]`` and ``[A - s I, B1; C2, D21]`` losing rank on the
    imaginary axis (unit circle in discrete time) break the standing assumptions of the
    Riccati formulae: no stabilising solution of the corresponding Riccati equation exists
    at any level, and the optimum, when finite, is not attained by a controller that keeps
    the loop internally stable with margin.  Candidates are the finite invariant zeros
    (SLICOT AB08ND through python-control); each is confirmed by the smallest singular
    value of the pencil at it (relative ``tol``).

    Returns
    -------
    list of str
        One description per zero found, naming the pencil and the frequency.

    Examples
    --------
    >>> import control
    >>> G = control.ss([[1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
    >>> boundary_zeros(partition_plant(G, 1, 1))[0]
    'the pencil [A - jw I, B2; C1, D12] (u -> z) loses rank at w = 0'
    """
    n = plant.A.shape[0]
    found = []
    channels = (
        ("the pencil [A - {s} I, B2; C1, D12] (u -> z)", plant.B2, plant.C1, plant.D12),
        ("the pencil [A - {s} I, B1; C2, D21] (w -> y)", plant.B1, plant.C2, plant.D21),
    )
    for label, B, C, D in channels:
        if n == 0 or B.shape[1] == 0 or C.shape[0] == 0:
            continue
        try:
            zeros = control.ss(plant.A, B, C, D).zeros()
        except Exception:  # noqa: BLE001 - slycot refusal: no candidates, no claim
            continue
        scale = max(np.linalg.norm(np.block([[plant.A, B], [C, D]]), 2), 1.0)
        for z in np.atleast_1d(zeros):
            if not np.isfinite(z):
                continue
            on = abs(abs(z) - 1) <= tol * 10 if plant.dt else abs(z.real) <= tol * 10 * scale
            if not on:
                continue
            zb = z / abs(z) if plant.dt else 1j * z.imag
            M = np.block([[plant.A - zb * np.eye(n), B], [C, D]])
            if np.linalg.svd(M, compute_uv=False)[-1] > tol * scale:
                continue
            if plant.dt:
                where = f"theta = {np.angle(zb):.6g} rad (z = e^(j theta))"
                found.append(label.format(s="e^(j theta)") + f" loses rank at {where}")
            else:
                found.append(label.format(s="jw") + f" loses rank at w = {abs(zb.imag):.6g}")
    return sorted(set(found), key=found.index)


def shift_back(K, D22):
    """Controller for the plant with ``D22`` from the one designed for ``y0 = y - D22 u``.

    ``K = (Ak, Bk, Ck, Dk)``; returns the matrices of ``u = (I + K0 D22)^-1 K0 y``.
    """
    Ak, Bk, Ck, Dk = K
    if not np.any(D22):
        return K
    m2 = Dk.shape[0]
    E = np.eye(m2) + Dk @ D22
    if np.linalg.cond(E) > 1e12:
        raise IllPosedError("the controller loop through D22 is ill-posed (I + Dk D22 singular)")
    Q = np.linalg.inv(E)
    return (
        Ak - Bk @ D22 @ Q @ Ck,
        Bk - Bk @ D22 @ Q @ Dk,
        Q @ Ck,
        Q @ Dk,
    )


def closed_loop(plant: Plant, K) -> control.StateSpace:
    """Lower LFT ``Fl(P, K)`` of the plant (with its ``D22``) and ``K = (Ak, Bk, Ck, Dk)``."""
    Ak, Bk, Ck, Dk = K
    n, nk = plant.A.shape[0], Ak.shape[0]
    if np.any(plant.D22):
        E = np.eye(plant.D22.shape[0]) - plant.D22 @ Dk  # y = ... + D22 u, u = Ck xk + Dk y
        if np.linalg.cond(E) > 1e12:
            raise IllPosedError("the closed loop is ill-posed: I - D22 Dk is singular")
        Ei = np.linalg.inv(E)
        # y = Ei (C2 x + D22 Ck xk + D21 w);  u = Ck xk + Dk y
        Cy = Ei @ np.hstack([plant.C2, plant.D22 @ Ck])
        Dy = Ei @ plant.D21
    else:  # the common case: no loop through D22, nothing to invert
        Cy = np.hstack([plant.C2, np.zeros((plant.C2.shape[0], nk))])
        Dy = plant.D21
    Cu = np.hstack([np.zeros((Ck.shape[0], n)), Ck]) + Dk @ Cy
    Du = Dk @ Dy
    Acl = np.block([[plant.A, np.zeros((n, nk))], [np.zeros((nk, n)), Ak]])
    Acl = Acl + np.vstack([plant.B2 @ Cu, Bk @ Cy])
    Bcl = np.vstack([plant.B1 + plant.B2 @ Du, Bk @ Dy])
    Ccl = np.hstack([plant.C1, np.zeros((plant.C1.shape[0], nk))]) + plant.D12 @ Cu
    Dcl = plant.D11 + plant.D12 @ Du
    return control.ss(Acl, Bcl, Ccl, Dcl, plant.dt)


def lft_response(plant: Plant, K, w) -> np.ndarray:
    """``Fl(P(s), K(s))`` at the frequencies ``w`` (rad/s), from ``P`` and ``K`` separately.

    The plant and the controller are evaluated one at a time and closed frequency by
    frequency, so a stiff controller (poles far apart from the plant's) does not make the
    evaluation ill conditioned the way the closed-loop realisation of :func:`closed_loop`
    can be.  ``s = j w`` (continuous) or ``exp(j w dt)`` (discrete).  Returns an array of
    shape ``(len(w), p1, m1)``.  On a pole of ``P`` or ``K`` to rounding (within
    ``10 n eps ||A||_F kappa`` of an eigenvalue, ``kappa`` its condition number, so in
    any realisation) the closed loop's realisation (:func:`closed_loop`) is evaluated
    instead; a frequency on a pole of that realisation, or where ``I - P22 K`` is
    singular, gives ``nan``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant, lft_response
    >>> z, o = np.zeros((1, 1)), np.ones((1, 1))
    >>> P = Plant(-o, o, o, o, o, z, z, z, z)  # every block 1 / (s + 1)
    >>> F = lft_response(P, (z - 2.0, o, o, z), np.array([0.0]))  # K = 1 / (s + 2)
    >>> bool(np.isclose(F[0, 0, 0].real, 1.0 + 0.5 / (1.0 - 0.5)))
    True
    """
    w = np.asarray(w, float).ravel()
    s = np.exp(1j * w * plant.dt) if plant.dt else 1j * w
    Ak, Bk, Ck, Dk = (np.asarray(M, float) for M in K)
    n, m1, m2, p1, p2 = plant.dims

    def resp(A, B, C, D):
        """Frequency response and the mask of frequencies near a pole of ``A``."""
        G = np.broadcast_to(D.astype(complex), (len(s),) + D.shape).copy()
        near = np.zeros(len(s), bool)
        if A.shape[0]:
            M = s[:, None, None] * np.eye(A.shape[0]) - A
            near = _near_pole(A, s)
            far = ~near
            if np.any(far):
                G[far] = C @ np.linalg.solve(M[far], B) + D  # batched
            G[near] = np.nan
        return G, near

    B = np.hstack([plant.B1, plant.B2])
    C = np.vstack([plant.C1, plant.C2])
    D = np.block([[plant.D11, plant.D12], [plant.D21, plant.D22]])
    G, near_p = resp(plant.A, B, C, D)
    Kr, near_k = resp(Ak, Bk, Ck, Dk)
    P11, P12, P21, P22 = G[:, :p1, :m1], G[:, :p1, m1:], G[:, p1:, :m1], G[:, p1:, m1:]
    F = np.full((len(s), p1, m1), np.nan, complex)
    good = np.all(np.isfinite(G), axis=(1, 2)) & np.all(np.isfinite(Kr), axis=(1, 2))
    idx = np.flatnonzero(good)
    if idx.size:
        # batched over the frequencies (the same LAPACK calls as one at a time)
        E = np.eye(p2) - P22[idx] @ Kr[idx]
        keep = np.linalg.cond(E) < 1e15  # not on a point where I - P22 K is singular
        idx, E = idx[keep], E[keep]
        if idx.size:
            F[idx] = P11[idx] + P12[idx] @ Kr[idx] @ np.linalg.solve(E, P21[idx])
    near = near_p | near_k
    if np.any(near):
        # Near a pole of P or K on the boundary the separate evaluation subtracts large
        # terms computed from a nearly singular sI - A (a pole at z = -1 in a non-diagonal
        # realisation gave |Fl| = 2.0156 at w = pi for a loop of norm 1.48467): there the
        # closed loop's own realisation, regular where the loop is stable, is used.
        try:
            cl = closed_loop(plant, (Ak, Bk, Ck, Dk))
        except IllPosedError:
            return F
        H, on_cl = resp(cl.A, cl.B, cl.C, cl.D)
        F[near] = np.where(on_cl[near, None, None], np.nan, H[near])
    return F


# Multiple of ``n eps ||A||_F kappa_i`` (the first-order rounding of the eigenvalue
# ``lam_i``, ``kappa_i`` its condition number) within which ``lft_response`` takes a
# point as on the pole ``lam_i``.  Not wider: a stiff controller (poles -2.4e6 and
# -2e-7) is evaluated accurately at w = 0, sigma_min(-Ak) = 8e-14 ||Ak||, where its
# closed loop's realisation is not (a band of 1e-8 ||A|| made a verified norm 0.5 % low).
_POLE_BAND = 10.0


def _near_pole(A, s):
    """Mask of the points ``s`` within the rounding band of an eigenvalue of ``A``:
    there ``s I - A`` is singular to rounding and ``(s I - A)^-1 B`` is noise (at a pole
    ``z = -1`` in a non-diagonal realisation, ``sigma_min(-I - A) = 3e-17``)."""
    n = A.shape[0]
    scale = _POLE_BAND * n * np.finfo(float).eps * np.linalg.norm(A)
    try:
        lam, vl, vr = scipy.linalg.eig(A, left=True, right=True)
        with np.errstate(divide="ignore"):
            kappa = 1.0 / np.abs(np.sum(vl.conj() * vr, axis=0))  # unit-norm vectors
    except (np.linalg.LinAlgError, ValueError):
        lam, kappa = np.linalg.eigvals(A), np.ones(n)
    # A defective eigenvalue (a Jordan block: a double pole 1/(s+1)^2 in a companion or
    # series realisation) has kappa ~ 1/eps and a first-order band of 100 rad/s, wider
    # than the rounding of the block itself, of order sqrt(scale ||A||); the loose band
    # hid the whole peak region of a loop (every point returned nan) and the
    # frequency-wise verification of hinfsyn saw nothing there.
    band = np.minimum(scale * kappa, np.sqrt(scale * np.linalg.norm(A)))
    return np.any(np.abs(s[:, None] - lam[None, :]) <= band[None, :], axis=1)


def as_controller(K, dt) -> control.StateSpace:
    """``control.StateSpace`` of controller matrices (a static gain keeps zero states)."""
    Ak, Bk, Ck, Dk = K
    return control.ss(Ak, Bk, Ck, Dk, dt)


def regularise(plant, eps, *, states=False):
    """The plant with ``eps u`` added to ``z`` and ``eps v`` to ``y`` (``v`` a new input).

    ``eps`` is relative: the added feedthroughs are ``eps`` times the scales that
    :func:`.hinf_riccati.is_regular` measures ranks against, so the result is regular for
    every ``eps`` above that test's tolerance.  ``states=True`` also adds ``eps x`` to
    ``z`` and ``eps`` times a new input to ``dx/dt`` (scaled by ``max(||A||, 1)``): this
    removes the invariant zeros of ``(A, B2, C1, D12)`` and ``(A, B1, C2, D21)`` on the
    stability boundary too.  For every controller the closed loop of ``plant`` is the
    sub-block ``(z, w)`` of the regularised closed loop, so a level achieved on the
    regularised plant is achieved on ``plant``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant, regularise
    >>> z = np.zeros((1, 1))
    >>> P = Plant(-np.eye(1), z + 1, z + 1, z + 1, z + 1, z, z, z, z)  # D12 = D21 = 0
    >>> R = regularise(P, 1e-3)
    >>> R.dims, float(R.D12[1, 0]), float(R.D21[0, 1])
    ((1, 2, 1, 2, 1), 0.001, 0.001)
    >>> regularise(P, 1e-3, states=True).dims
    (1, 3, 1, 3, 1)
    """
    n, m1, m2, p1, p2 = plant.dims
    e12 = eps * max(np.linalg.norm(plant.C1), np.linalg.norm(plant.B2), 1.0)
    e21 = eps * max(np.linalg.norm(plant.B1), np.linalg.norm(plant.C2), 1.0)
    nx = n if states else 0
    ex = eps * max(np.linalg.norm(plant.A), 1.0)
    D11 = np.zeros((p1 + m2 + nx, m1 + p2 + nx))
    D11[:p1, :m1] = plant.D11
    return Plant(
        plant.A,
        np.hstack([plant.B1, np.zeros((n, p2)), ex * np.eye(n)[:, :nx]]),
        plant.B2,
        np.vstack([plant.C1, np.zeros((m2, n)), ex * np.eye(n)[:nx]]),
        plant.C2,
        D11,
        np.vstack([plant.D12, e12 * np.eye(m2), np.zeros((nx, m2))]),
        np.hstack([plant.D21, e21 * np.eye(p2), np.zeros((p2, nx))]),
        plant.D22,
        plant.dt,
    )


def balanced_controller(K):
    """``K = (Ak, Bk, Ck, Dk)`` in a better conditioned realisation of the same transfer
    function: a diagonal similarity by powers of two that balances ``[[Ak, Bk], [Ck, 0]]``
    (LAPACK's gebal through scipy, no permutation; exact), then ``Ak`` in real Schur form
    (orthogonal similarity), then balancing again.  Schur before balancing lost up to 0.25
    relative of a badly scaled controller's transfer function (the orthogonal basis mixes
    entries of very different size); balanced first it keeps it to ~1e-13. The central
    controller of a regularised plant carries ``1 / eps`` in ``Bk`` (AC7 at eps = 1e-7:
    entries of ``Ak`` up to 1.2e10 for poles of at most 8.5e3); its closed loop's
    realisation lost ``hinfnorm``'s stability proof, and python-control's lft evaluated it
    1.3e-4 high at 0.018 rad/s against 30-digit ``Fl(P, K)``.  Balancing alone fixed that
    controller but not those at eps = 2e-8 to 1e-7 with backoffs 1e-5 to 1e-4 (stability
    still not proved); after the Schur step ``hinfnorm`` proves them stable and agrees with
    ``Fl(P, K)`` evaluated from the data to 6e-7.  Applied to the regularised route's
    controllers only: elsewhere the realisation is kept (musyn's separated closed loop of
    the distillation column, whose weight pole at -1e-6 has a copy in the controller, is
    accurate at low frequency in it and lost 1e-2 at w = 0 with a balanced one).

    Examples
    --------
    >>> import numpy as np
    >>> K = (np.array([[-1.0, 1e8], [0.0, -2.0]]), np.array([[0.0], [1e-4]]),
    ...      np.array([[1.0, 0.0]]), np.zeros((1, 1)))
    >>> Kb = balanced_controller(K)
    >>> def dc(K):
    ...     return (K[3] - K[2] @ np.linalg.solve(K[0], K[1]))[0, 0]
    >>> bool(np.isclose(dc(Kb), dc(K)) and np.abs(Kb[0]).max() < 1e4)
    True
    """
    Ak, Bk, Ck, Dk = (np.asarray(M, dtype=float) for M in K)
    nk, nu, ny = Ak.shape[0], Ck.shape[0], Bk.shape[1]
    if nk == 0 or not (np.all(np.isfinite(Ak)) and np.all(np.isfinite(Bk))
                       and np.all(np.isfinite(Ck))):  # fmt: skip
        return (Ak, Bk, Ck, Dk)

    def balance(Ak, Bk, Ck):
        size = nk + max(nu, ny)
        M = np.zeros((size, size))
        M[:nk, :nk], M[:nk, nk : nk + ny], M[nk : nk + nu, :nk] = Ak, Bk, Ck
        _, (scale, _) = scipy.linalg.matrix_balance(M, permute=False, separate=True)
        d = scale[:nk]
        return Ak / d[:, None] * d[None, :], Bk / d[:, None], Ck * d[None, :]

    try:
        # Balance first: an orthogonal Schur transform of a badly scaled realisation
        # mixes entries of very different size and loses the transfer function; after
        # balancing it is backward stable relative to the balanced data. Balance again
        # to even out what the Schur basis left.
        Ak, Bk, Ck = balance(Ak, Bk, Ck)
        Ak, Z = scipy.linalg.schur(Ak, output="real")
        Ak, Bk, Ck = balance(Ak, Z.T @ Bk, Ck @ Z)
    except (ValueError, np.linalg.LinAlgError):
        return tuple(np.asarray(M, dtype=float) for M in K)
    return (Ak, Bk, Ck, Dk)
