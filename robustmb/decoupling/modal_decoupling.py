"""Modal (physics-driven) decoupling from the mass, stiffness and damping matrices.

With mode shapes ``Phi`` (``K Phi = M Phi Omega^2``), modal masses
``mu = Phi^T M Phi`` and classical damping (``Phi^T C Phi`` diagonal), the plant
``y = S q^(k)``, ``M q'' + C q' + K q = F u`` factors as

``G(s) = C_m diag(s^k / (s^2 + 2 xi_i w_i s + w_i^2)) B_m``,
``B_m = mu^{-1} Phi^T F``, ``C_m = S Phi``

so ``C_m^{-1} G B_m^{-1}`` is exactly diagonal (seed 004, section 3.3).

Two cases need more than ``eigh(K, M)``:

* Repeated natural frequencies.  Any ``M``-orthonormal basis of a repeated
  eigenspace diagonalises ``M`` and ``K``; only some of them diagonalise ``C``.
  Under classical damping ``Phi_c^T C Phi_c`` is symmetric on the cluster
  ``Phi_c`` (mass-normalised), and rotating the cluster by its eigenvectors
  makes ``Phi^T C Phi`` diagonal while keeping ``M`` and ``K`` diagonal.
* Negative stiffness (an unstable equilibrium, e.g. gravity on an inverted
  pendulum or a negative-stiffness suspension).  A mode with
  ``lambda_i = (Phi^T K Phi)_ii / mu_i < 0`` is divergent: its channel is
  ``s^k / (s^2 + c_i s + lambda_i)`` with a real pole in the right half-plane, and
  it is kept as such (a controller must stabilise it), not clamped to a rigid-body
  mode.
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np
import scipy.linalg

from robustmb.decoupling.decoupling_result import Decoupling
from robustmb.decoupling.plant_data import numeric_array
from robustmb.decoupling.second_order import (
    _KINDS,
    Measurement,
    SecondOrderSystem,
    _check_mechanical_matrices,
    _finite,
)
from robustmb.errors import ArgumentError, DimensionError, IllPosedError

__all__ = ["ModalDecoupling", "modal_decouple", "modal_plant"]


@dataclass
class ModalDecoupling(Decoupling):
    """Result of :func:`modal_decouple`.

    Attributes
    ----------
    mode_shapes : numpy.ndarray ``(n, n)``
        ``Phi``, one mode per column, ordered by increasing natural frequency.
    modal_masses : numpy.ndarray ``(n,)``
        Diagonal of ``Phi^T M Phi`` (all ones with ``normalization="mass"``).
    natural_frequencies : numpy.ndarray ``(n,)``
        ``w_i = sqrt(|lambda_i|)`` in rad/s.  For a divergent mode (``lambda_i < 0``,
        see ``modal_stiffnesses``) this is the rate of its undamped divergence
        ``exp(w_i t)``.
    modal_stiffnesses : numpy.ndarray ``(n,)``
        ``lambda_i = (Phi^T K Phi)_ii / mu_i``, signed (``w_i^2`` for an oscillating
        mode, negative for a divergent one, 0 for a rigid-body mode: ``|lambda_i|`` at the
        roundoff level of ``eigh(K, M)``, below ``1e3 eps ||K||_2 / lambda_min(M)``, is
        rounded to 0).
    damping_ratios : numpy.ndarray ``(n,)``
        ``xi_i = (Phi^T C Phi)_ii / (2 mu_i w_i)`` (``nan`` for a rigid-body mode).
    damping_coupling : float
        Largest ``|(Phi^T C Phi)_ij| / sqrt((Phi^T C Phi)_ii (Phi^T C Phi)_jj)`` over
        ``i != j``: zero for classical damping, when the decoupling is exact.
    modal_input_matrix, modal_output_matrix : numpy.ndarray
        ``B_m`` and ``C_m``.
    diagonal_plant : control.StateSpace
        ``diag(s^k / (s^2 + c_i s + lambda_i))`` with ``c_i = (Phi^T C Phi)_ii / mu_i``
        (``2 xi_i w_i`` for an oscillating mode), the exact decoupled plant under
        classical damping; divergent modes keep their unstable pole
        ``(-c_i + sqrt(c_i^2 - 4 lambda_i)) / 2``.
    """

    mode_shapes: np.ndarray | None = None
    modal_masses: np.ndarray | None = None
    natural_frequencies: np.ndarray | None = None
    damping_ratios: np.ndarray | None = None
    modal_stiffnesses: np.ndarray | None = None
    damping_coupling: float = 0.0
    modal_input_matrix: np.ndarray | None = None
    modal_output_matrix: np.ndarray | None = None
    diagonal_plant: control.StateSpace | None = None


def modal_plant(natural_frequencies, damping_ratios, derivative_order=0) -> control.StateSpace:
    """Diagonal state space ``diag(s^k / (s^2 + 2 xi_i w_i s + w_i^2))``.

    Parameters
    ----------
    natural_frequencies, damping_ratios : array_like ``(n,)``
    derivative_order : {0, 1, 2}
        ``k``: 0 for position, 1 velocity, 2 acceleration outputs.

    Examples
    --------
    >>> import numpy as np
    >>> G = modal_plant([2.0], [0.1])
    >>> float(G.dcgain())
    0.25
    """
    w = np.atleast_1d(numeric_array(natural_frequencies, "natural_frequencies").astype(float))
    z = np.atleast_1d(numeric_array(damping_ratios, "damping_ratios").astype(float))
    if w.ndim != 1 or z.shape != w.shape:
        raise DimensionError(
            f"modal_plant: natural_frequencies {w.shape} and damping_ratios {z.shape} must "
            "be 1-D arrays of the same length (one per mode)"
        )
    # a negative frequency would turn 2 xi w into negative damping: an unstable channel
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        bad = int(np.flatnonzero(~(np.isfinite(w) & (w >= 0)))[0])
        raise ArgumentError(
            f"modal_plant: natural_frequencies[{bad}] = {float(w[bad])!r}; natural frequencies "
            "are finite and >= 0 rad/s"
        )
    # nan damping is the undefined ratio of a rigid-body mode (w = 0): no damping term
    if np.any(np.isinf(z)) or np.any(np.isnan(z) & (w > 0)):
        bad = int(np.flatnonzero(np.isinf(z) | (np.isnan(z) & (w > 0)))[0])
        raise ArgumentError(f"modal_plant: damping_ratios[{bad}] = {float(z[bad])!r} is not finite")
    z = np.nan_to_num(z, nan=0.0)
    return _second_order_channels(w**2, 2 * z * w, derivative_order)


def _second_order_channels(stiffness, damping, derivative_order):
    """``diag(s^k / (s^2 + damping_i s + stiffness_i))`` (any sign of ``stiffness``)."""
    lam = np.asarray(stiffness, dtype=float)
    c = np.asarray(damping, dtype=float)
    n = lam.size
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-np.diag(lam), -np.diag(c)]])
    B = np.vstack([np.zeros((n, n)), np.eye(n)])
    if derivative_order == 0:
        C, D = np.hstack([np.eye(n), np.zeros((n, n))]), np.zeros((n, n))
    elif derivative_order == 1:
        C, D = np.hstack([np.zeros((n, n)), np.eye(n)]), np.zeros((n, n))
    elif derivative_order == 2:
        C, D = A[n:], np.eye(n)
    else:
        raise ArgumentError(f"derivative_order must be 0, 1 or 2, got {derivative_order}")
    return control.ss(A, B, C, D)


def _rotate_repeated_modes(lam, Phi, Cd, rtol, floor):
    """Within every cluster of equal eigenvalues (to ``rtol`` of their size, or to the
    absolute roundoff ``floor``), rotate the mass-normalised mode shapes by the
    eigenvectors of ``Phi_c^T C Phi_c``.

    The rotation is orthogonal, so ``Phi^T M Phi = I`` and ``Phi^T K Phi`` (``lambda I``
    on the cluster) are kept, and ``Phi^T C Phi`` becomes diagonal on the cluster when
    the damping is classical.
    """
    n = lam.size
    # relative to each pair, so that widely spread frequencies (1e-3 to 1e3 rad/s) are
    # not merged
    start = 0
    Phi = Phi.copy()
    while start < n:
        stop = start + 1
        while stop < n and lam[stop] - lam[start] <= (
            rtol * max(abs(lam[start]), abs(lam[stop])) + floor
        ):
            stop += 1
        if stop - start > 1:
            blk = Phi[:, start:stop]
            cc = blk.T @ Cd @ blk
            _, R = np.linalg.eigh(0.5 * (cc + cc.T))
            Phi[:, start:stop] = blk @ R
        start = stop
    return Phi


def modal_decouple(
    M,
    K,
    C=None,
    *,
    input_matrix,
    output_matrix,
    output_kind="position",
    normalization="unit",
    plant=None,
):
    """Decouple a mechanical plant in its modal coordinates.

    Parameters
    ----------
    M, K : array_like ``(n, n)``
        Symmetric mass (positive definite) and stiffness matrices.  ``K`` may be
        indefinite: a negative eigenvalue of ``(K, M)`` gives a divergent mode, kept with
        its unstable pole in ``diagonal_plant`` (see ``modal_stiffnesses``).
    C : array_like ``(n, n)``, optional
        Damping matrix, symmetric positive semidefinite.
    input_matrix : array_like ``(n, m)``
        ``F`` with generalised forces ``F u`` (``J^T`` for struts).
    output_matrix : array_like ``(p, n)``
        ``S`` with outputs ``y = S q^(k)``.
    output_kind : {"position", "velocity", "acceleration"}
        Which derivative of ``q`` is measured (``k``).
    normalization : {"unit", "mass"}
        Mode shapes of unit 2-norm (the seed's MATLAB ``eig``) or unit modal mass.
    plant : object, optional
        Plant to decouple (LTI, stack or uncertain). Default: the state-space model built
        from the matrices.

    Returns
    -------
    ModalDecoupling
        ``input_matrix = pinv(B_m)``, ``output_matrix = pinv(C_m)``; ``plant`` is the
        decoupled plant.

    Raises
    ------
    IllPosedError
        When ``B_m`` or ``C_m`` has rank below the number of modes (fewer independent
        actuators or sensors than modes): no constant matrices decouple the modes.

    Examples
    --------
    >>> import numpy as np
    >>> J = np.array([[1.0, 0, 1.7], [0, 1, -0.5], [0, 1, 0.5]])
    >>> K = J.T @ (15e3 * J); C = J.T @ (20.0 * J); M = np.diag([400.0, 400, 115])
    >>> d = modal_decouple(M, K, C, input_matrix=J.T, output_matrix=J)
    >>> (d.natural_frequencies / (2 * np.pi)).round(4)
    array([0.3613, 1.3783, 3.4669])
    """
    where = "modal_decouple: "
    M = numeric_array(M, "M", where).astype(float)
    K = numeric_array(K, "K", where).astype(float)
    n = M.shape[0]
    if M.shape != (n, n) or K.shape != (n, n):
        raise DimensionError(f"M {M.shape} and K {K.shape} must be square and equal in size")
    Cd = np.zeros((n, n)) if C is None else numeric_array(C, "C", where).astype(float)
    if Cd.shape != (n, n):
        raise DimensionError(f"C must be {n}x{n}, got {Cd.shape}")
    F = np.atleast_2d(numeric_array(input_matrix, "input_matrix", where).astype(float))
    S = np.atleast_2d(numeric_array(output_matrix, "output_matrix", where).astype(float))
    if F.shape[0] != n:
        raise DimensionError(f"input_matrix must have {n} rows, got {F.shape}")
    if S.shape[1] != n:
        raise DimensionError(f"output_matrix must have {n} columns, got {S.shape}")
    if output_kind not in _KINDS:
        raise ArgumentError(f"output_kind must be one of {sorted(_KINDS)}, got {output_kind!r}")
    if normalization not in ("unit", "mass"):
        raise ArgumentError(f"normalization must be 'unit' or 'mass', got {normalization!r}")
    for name, X in (("M", M), ("K", K), ("C", Cd), ("input_matrix", F), ("output_matrix", S)):
        _finite(X, name, "modal_decouple: ")
    # the same physical requirements as SecondOrderSystem (M SPD, K and C symmetric, C
    # positive semidefinite); eigh(K, M) below needs the first two
    _check_mechanical_matrices(M, K, Cd, where="modal_decouple: ")
    # symmetric-definite generalised problem: real modes, ascending eigenvalues, Phi
    # mass-normalised (Phi^T M Phi = I)
    lam, Phi = scipy.linalg.eigh(K, M)
    # a repeated frequency leaves the basis of its eigenspace arbitrary: pick the one
    # that also diagonalises C (exists under classical damping)
    # absolute roundoff of the eigenvalues of (K, M) through the Cholesky factor of M:
    # eps ||L^-1 K L^-T|| <= eps ||K|| / lambda_min(M), with a safety factor
    roundoff = 1e3 * np.finfo(float).eps * np.linalg.norm(K, 2) / np.linalg.eigvalsh(M)[0]
    Phi = _rotate_repeated_modes(lam, Phi, Cd, rtol=1e-8, floor=roundoff)
    if normalization == "unit":
        Phi = Phi / np.linalg.norm(Phi, axis=0)
    # reproducible signs: the largest-magnitude entry of each mode shape is positive
    idx = np.argmax(np.abs(Phi) + 1e-12 * np.arange(n)[::-1, None], axis=0)
    Phi = Phi * np.sign(Phi[idx, np.arange(n)])
    mu_mat = Phi.T @ M @ Phi
    mu = np.diag(mu_mat).copy()
    # signed modal stiffness: negative for a divergent mode; roundoff-level values of a
    # rigid-body mode are set to exactly 0
    lam = np.diag(Phi.T @ K @ Phi) / mu
    lam = np.where(np.abs(lam) <= roundoff, 0.0, lam)
    w = np.sqrt(np.abs(lam))
    Cm_modal = Phi.T @ Cd @ Phi
    with np.errstate(divide="ignore", invalid="ignore"):
        zeta = np.where(w > 0, np.diag(Cm_modal) / (2 * mu * w), np.nan)
        dd = np.sqrt(np.abs(np.outer(np.diag(Cm_modal), np.diag(Cm_modal))))
        ratio = np.where(dd > 0, np.abs(Cm_modal) / dd, 0.0)
    np.fill_diagonal(ratio, 0.0)
    coupling = float(ratio.max(initial=0.0))
    B_m = (Phi.T @ F) / mu[:, None]
    C_m = S @ Phi
    # pinv(B_m) and pinv(C_m) invert the modal matrices only when every mode is actuated
    # and measured; otherwise the "decoupled" plant mixes the modes
    for name, X, side in (("input_matrix", B_m, "actuated"), ("output_matrix", C_m, "measured")):
        rank = int(np.linalg.matrix_rank(X))
        if rank < n:
            raise IllPosedError(
                f"modal_decouple: {name}: only {rank} of the {n} modes are independently "
                f"{side} (rank {rank} < {n}), so pinv({name}) mixes the modes instead of "
                "decoupling them; modal decoupling needs one independent actuator and "
                "sensor per mode"
            )
    order = _KINDS[output_kind]
    res = ModalDecoupling(
        method="modal",
        input_matrix=np.linalg.pinv(B_m),
        output_matrix=np.linalg.pinv(C_m),
        input_names=[f"mode{i + 1}" for i in range(n)],
        output_names=[f"mode{i + 1}" for i in range(n)],
        mode_shapes=Phi,
        modal_masses=mu,
        natural_frequencies=w,
        damping_ratios=zeta,
        modal_stiffnesses=lam,
        damping_coupling=coupling,
        modal_input_matrix=B_m,
        modal_output_matrix=C_m,
        diagonal_plant=_second_order_channels(lam, np.diag(Cm_modal) / mu, order),
    )
    if plant is None:
        model = SecondOrderSystem(M, K, Cd, input_matrix=F)
        plant = model.state_space(Measurement(S, output_kind))
    res.plant = res.apply(plant)
    return res
