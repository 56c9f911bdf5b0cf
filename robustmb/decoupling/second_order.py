"""Linear mechanical systems ``M q'' + C q' + K q = F u + K_w w + C_w w'``.

``u`` are actuator inputs (forces), ``w`` optional support (ground) displacements.
Outputs are linear measurements of the absolute position, velocity or acceleration,
``y = S q``, ``S q'`` or ``S q''``. A model can be turned into a python-control state
space (states ``[q, v]`` with ``v = q' - M^{-1} C_w w`` so that ground displacement
inputs stay proper) or evaluated directly in the frequency domain from the dynamic
stiffness ``-w^2 M + jw C + K`` (one batched solve for all frequencies). The two routes
are independent and are checked against each other in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import control
import numpy as np

from robustmb.decoupling.plant_data import _check_omega
from robustmb.errors import ArgumentError, DimensionError, SignalError, UncertainTypeError

__all__ = ["Measurement", "SecondOrderSystem"]

_KINDS = {"position": 0, "velocity": 1, "acceleration": 2}


@dataclass(frozen=True)
class Measurement:
    """A set of sensors: ``y = matrix @ d^k q / dt^k`` with ``k`` given by ``kind``.

    Attributes
    ----------
    matrix : numpy.ndarray ``(p, n)``
        Map from the generalised coordinates to the measured quantities.
    kind : {"position", "velocity", "acceleration"}
    names : list of str
        One name per measured channel.
    ground_matrix : numpy.ndarray ``(p, r)``, optional
        For relative sensors (for example strut elongations): the measurement is
        ``matrix @ q - ground_matrix @ w`` (differentiated ``k`` times).
    frame : tuple of float, optional
        Origin of the frame whose coordinates ``q`` the matrix reads (set by
        :class:`~robustmb.decoupling.ParallelManipulator`).  A model built in another
        frame refuses the measurement; ``None`` is not checked.

    Examples
    --------
    >>> import numpy as np
    >>> Measurement(np.eye(2), "acceleration", ["ax", "ay"]).matrix.shape
    (2, 2)
    """

    matrix: np.ndarray
    kind: str
    names: list = field(default_factory=list)
    ground_matrix: np.ndarray | None = None
    frame: tuple | None = None

    def __post_init__(self):
        S = np.atleast_2d(np.asarray(self.matrix, dtype=float))
        if S.ndim != 2:
            raise DimensionError(f"measurement matrix must be 2-D, got shape {S.shape}")
        if self.kind not in _KINDS:
            raise ArgumentError(
                f"measurement kind must be one of {sorted(_KINDS)}, got {self.kind!r}"
            )
        names = list(self.names) if self.names else [f"y{i + 1}" for i in range(S.shape[0])]
        if len(names) != S.shape[0]:
            raise DimensionError(
                f"measurement has {S.shape[0]} rows but {len(names)} names were given"
            )
        object.__setattr__(self, "matrix", S)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "frame", _frame(self.frame, "frame"))
        if self.ground_matrix is not None:
            Sw = np.atleast_2d(np.asarray(self.ground_matrix, dtype=float))
            if Sw.shape[0] != S.shape[0]:
                raise DimensionError(
                    f"ground_matrix has {Sw.shape[0]} rows, the measurement has {S.shape[0]}"
                )
            object.__setattr__(self, "ground_matrix", Sw)

    @property
    def order(self) -> int:
        """Derivative order: 0 position, 1 velocity, 2 acceleration."""
        return _KINDS[self.kind]


def _sym_square(X, n, name):
    X = np.asarray(X, dtype=float)
    if X.shape != (n, n):
        raise DimensionError(f"{name} must be {n}x{n}, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ArgumentError(f"{name} contains non-finite entries")
    return X


# relative asymmetry max|X - X^T| / max|X| accepted as rounding (J^T diag(k) J is not
# bitwise symmetric)
_SYMMETRY_RTOL = 1e-10


def _finite(X, name, where=""):
    """``X`` as a float array, refused with an ArgumentError naming it when not finite."""
    X = np.asarray(X, dtype=float)
    if not np.all(np.isfinite(X)):
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(X))[0])
        raise ArgumentError(f"{where}{name} has a non-finite entry {float(X[idx])!r} at {idx}")
    return X


def _check_symmetric(X, name, where=""):
    scale = float(np.abs(X).max(initial=0.0))
    gap = float(np.abs(X - X.T).max(initial=0.0))
    if gap > _SYMMETRY_RTOL * scale:
        raise ArgumentError(
            f"{where}{name} must be symmetric: max |{name} - {name}^T| = {gap:.3g} for "
            f"entries up to {scale:.3g}"
        )


def _check_mechanical_matrices(M, K=None, C=None, *, where="", allow_nonsymmetric=False):
    """Refuse matrices that do not describe a passive mechanical system.

    ``M`` must be symmetric positive definite, ``K`` and ``C`` symmetric (unless
    ``allow_nonsymmetric``: circulatory and gyroscopic forces) and the symmetric part of
    ``C`` positive semidefinite (no energy source in the dampers). ``K`` may be indefinite
    (negative stiffness of an unstable equilibrium). Every error is an
    :class:`~robustmb.errors.ArgumentError` naming the matrix; ``where`` prefixes the
    message with the calling function.

    Examples
    --------
    >>> import numpy as np
    >>> _check_mechanical_matrices(np.eye(2), -np.eye(2), 0.1 * np.eye(2))
    >>> try:
    ...     _check_mechanical_matrices(-np.eye(2))
    ... except ValueError as e:
    ...     print(str(e)[:45])
    M (mass matrix) must be symmetric positive de
    """
    M = np.asarray(M, dtype=float)
    _check_symmetric(M, "M", where)
    try:
        np.linalg.cholesky(0.5 * (M + M.T))
    except np.linalg.LinAlgError:
        ev = float(np.linalg.eigvalsh(0.5 * (M + M.T))[0])
        raise ArgumentError(
            f"{where}M (mass matrix) must be symmetric positive definite; its smallest "
            f"eigenvalue is {ev:.3g} (singular or negative: a massless coordinate?)"
        ) from None
    if K is not None and not allow_nonsymmetric:
        _check_symmetric(np.asarray(K, dtype=float), "K", where)
    if C is not None:
        C = np.asarray(C, dtype=float)
        if not allow_nonsymmetric:
            _check_symmetric(C, "C", where)
        ev = np.linalg.eigvalsh(0.5 * (C + C.T))
        top = float(np.abs(ev).max(initial=0.0))
        if ev.size and ev[0] < -_SYMMETRY_RTOL * top:
            raise ArgumentError(
                f"{where}C (damping matrix) must be positive semidefinite (no negative "
                f"damping); its symmetric part has the eigenvalue {float(ev[0]):.3g}"
            )


class SecondOrderSystem:
    """Linear second-order mechanical model with actuator and ground-motion inputs.

    Parameters
    ----------
    M, K : array_like ``(n, n)``
        Mass matrix, symmetric positive definite, and stiffness matrix, symmetric (it
        may be indefinite: negative stiffness).
    C : array_like ``(n, n)``, optional
        Damping matrix (zero by default), symmetric positive semidefinite.
    input_matrix : array_like ``(n, m)``
        ``F`` in ``M q'' + C q' + K q = F u``; for struts with Jacobian ``J`` this is
        ``J^T``. Finite.
    input_names : list of str, optional
    ground_stiffness, ground_damping : array_like ``(n, r)``, optional
        ``K_w`` and ``C_w`` coupling the support displacement ``w`` into the equations
        (finite).
    ground_names : list of str, optional
    coordinate_names : list of str, optional
        Names of the generalised coordinates (used for body-motion outputs).
    frame : array_like, optional
        Origin of the frame of the coordinates (set by
        :class:`~robustmb.decoupling.ParallelManipulator`): a measurement tagged with
        another frame is refused, because its matrix reads other coordinates.
    allow_nonsymmetric : bool
        ``False`` (default) requires symmetric ``K`` and ``C``. ``True`` accepts a
        circulatory (skew) part in ``K`` and a gyroscopic (skew) part in ``C``, as in
        rotating machinery; ``M`` must still be symmetric positive definite and the
        symmetric part of ``C`` positive semidefinite.

    Raises
    ------
    DimensionError
        A matrix of the wrong shape.
    ArgumentError
        A non-finite entry, a mass matrix that is not symmetric positive definite, an
        asymmetric ``K`` or ``C`` (without ``allow_nonsymmetric``), or negative damping
        (names the matrix).

    Examples
    --------
    >>> import numpy as np
    >>> sys = SecondOrderSystem(np.eye(1), np.eye(1), input_matrix=np.eye(1))
    >>> np.allclose(sorted(np.abs(sys.poles().imag)), [1.0, 1.0])
    True
    """

    def __init__(
        self,
        M,
        K,
        C=None,
        *,
        input_matrix,
        input_names=None,
        ground_stiffness=None,
        ground_damping=None,
        ground_names=None,
        coordinate_names=None,
        frame=None,
        allow_nonsymmetric=False,
    ):
        M = np.atleast_2d(np.asarray(M, dtype=float))
        n = M.shape[0]
        self.M = _sym_square(M, n, "M")
        self.K = _sym_square(K, n, "K")
        self.C = np.zeros((n, n)) if C is None else _sym_square(C, n, "C")
        _check_mechanical_matrices(self.M, self.K, self.C, allow_nonsymmetric=allow_nonsymmetric)
        F = np.atleast_2d(np.asarray(input_matrix, dtype=float))
        if F.shape[0] != n:
            raise DimensionError(
                f"input_matrix must have {n} rows (one per coordinate), got {F.shape}"
            )
        self.F = _finite(F, "input_matrix")
        self.input_names = _names(input_names, F.shape[1], "u", "input")
        if ground_stiffness is None and ground_damping is None:
            self.K_w = np.zeros((n, 0))
            self.C_w = np.zeros((n, 0))
        else:
            r = np.atleast_2d(ground_stiffness if ground_stiffness is not None else ground_damping)
            r = r.shape[1]
            self.K_w = (
                np.zeros((n, r))
                if ground_stiffness is None
                else np.asarray(ground_stiffness, float)
            )
            self.C_w = (
                np.zeros((n, r)) if ground_damping is None else np.asarray(ground_damping, float)
            )
            if self.K_w.shape != (n, r) or self.C_w.shape != (n, r):
                raise DimensionError(
                    f"ground_stiffness {self.K_w.shape} and ground_damping {self.C_w.shape} "
                    f"must both be ({n}, r)"
                )
            self.K_w = _finite(self.K_w, "ground_stiffness")
            self.C_w = _finite(self.C_w, "ground_damping")
        self.ground_names = _names(ground_names, self.K_w.shape[1], "w", "ground")
        self.coordinate_names = _names(coordinate_names, n, "q", "coordinate")
        self.frame = _frame(frame, "frame")

    @property
    def ndof(self) -> int:
        """Number of generalised coordinates."""
        return self.M.shape[0]

    def body_motion(self, kind="acceleration", names=None) -> Measurement:
        """Measurement of the generalised coordinates themselves (or their derivatives).

        Examples
        --------
        >>> import numpy as np
        >>> SecondOrderSystem(np.eye(2), np.eye(2), input_matrix=np.eye(2)).body_motion().kind
        'acceleration'
        """
        prefix = {"position": "", "velocity": "d", "acceleration": "dd"}.get(kind, "")
        if names is None:
            names = [f"{prefix}{c}" for c in self.coordinate_names]
        return Measurement(np.eye(self.ndof), kind, names, frame=self.frame)

    def poles(self) -> np.ndarray:
        """Eigenvalues of the state matrix, sorted by imaginary part then real part.

        Examples
        --------
        >>> import numpy as np
        >>> s = SecondOrderSystem(np.eye(1), 4 * np.eye(1), 0.2 * np.eye(1), input_matrix=[[1]])
        >>> np.allclose(s.poles(), [-0.1 - 1.997498j, -0.1 + 1.997498j])
        True
        """
        A = self._state_matrix()
        p = np.linalg.eigvals(A)
        return p[np.lexsort((p.real, p.imag))]

    def _state_matrix(self):
        n = self.ndof
        MiK = np.linalg.solve(self.M, self.K)
        MiC = np.linalg.solve(self.M, self.C)
        return np.block([[np.zeros((n, n)), np.eye(n)], [-MiK, -MiC]])

    def state_space(self, outputs, *, ground=False) -> control.StateSpace:
        """State-space model from ``[w (if ground), u]`` to the stacked measurements.

        Parameters
        ----------
        outputs : Measurement or list of Measurement
        ground : bool
            Include the support displacements ``w`` as the first inputs.

        Returns
        -------
        control.StateSpace
            States ``[q, v]`` with ``v = q' - M^{-1} C_w w``; signal names from the
            measurements and the model.

        Raises
        ------
        ArgumentError
            An acceleration output with ground *displacement* inputs and support damping
            (the transfer is improper); measure position or velocity instead.
        UncertainTypeError
            An output that is not a :class:`Measurement`.

        Examples
        --------
        >>> import numpy as np
        >>> s = SecondOrderSystem(np.eye(1), np.eye(1), input_matrix=[[1.0]])
        >>> G = s.state_space(s.body_motion("position"))
        >>> float(G.dcgain())
        1.0
        """
        meas = [outputs] if isinstance(outputs, Measurement) else list(outputs)
        n = self.ndof
        Mi = np.linalg.inv(self.M)
        MiK, MiC = Mi @ self.K, Mi @ self.C
        E = Mi @ self.C_w if ground else np.zeros((n, 0))
        Kw = self.K_w if ground else np.zeros((n, 0))
        Bw_v = Mi @ (Kw - self.C @ E) if ground else np.zeros((n, 0))
        A = self._state_matrix()
        B = np.vstack(
            [np.hstack([E, np.zeros((n, self.F.shape[1]))]), np.hstack([Bw_v, Mi @ self.F])]
        )
        Cs, Ds, names = [], [], []
        for ms in meas:
            S = _check_meas(ms, n, self.frame)
            if ms.order == 0:
                Cq, Cv = S, np.zeros_like(S)
                D = np.zeros((S.shape[0], B.shape[1]))
            elif ms.order == 1:
                Cq, Cv = np.zeros_like(S), S
                D = np.hstack([S @ E, np.zeros((S.shape[0], self.F.shape[1]))])
            else:
                if ground and np.abs(S @ E).max(initial=0.0) > 0:
                    raise ArgumentError(
                        f"outputs: acceleration outputs {ms.names} respond to the derivative "
                        "of the ground displacement through the support damping, so with "
                        "ground=True the transfer is improper; use position outputs "
                        "(transmissibility) instead"
                    )
                Cq, Cv = -S @ MiK, -S @ MiC
                D = S @ B[n:]
            if ground and ms.ground_matrix is not None:
                Sw = _check_ground(ms, self.K_w.shape[1])
                if ms.order != 0:
                    raise ArgumentError(
                        f"outputs: relative {ms.kind} outputs {ms.names} with ground "
                        "displacement inputs (ground=True) are improper; use relative "
                        "position outputs"
                    )
                D = D.copy()
                D[:, : Sw.shape[1]] -= Sw
            Cs.append(np.hstack([Cq, Cv]))
            Ds.append(D)
            names += ms.names
        inputs = (self.ground_names if ground else []) + self.input_names
        return control.ss(A, B, np.vstack(Cs), np.vstack(Ds), inputs=inputs, outputs=names)

    def frequency_response(self, omega, outputs, *, ground=False) -> np.ndarray:
        """Frequency response from ``[w (if ground), u]`` to the measurements.

        Evaluated from the dynamic stiffness ``Z(jw) = -w^2 M + jw C + K`` for all
        frequencies in one batched solve (independent of :meth:`state_space`).

        Parameters
        ----------
        omega : array_like
            Frequencies (rad/s).
        outputs : Measurement or list of Measurement
        ground : bool

        Returns
        -------
        numpy.ndarray ``(nw, p, r + m)``

        Examples
        --------
        >>> import numpy as np
        >>> s = SecondOrderSystem(np.eye(1), np.eye(1), input_matrix=[[1.0]])
        >>> H = s.frequency_response([0.0, 2.0], s.body_motion("position"))
        >>> np.allclose(H[:, 0, 0], [1.0, -1 / 3])
        True
        """
        w = _check_omega(omega)
        meas = [outputs] if isinstance(outputs, Measurement) else list(outputs)
        n = self.ndof
        s = 1j * w[:, None, None]
        Z = s**2 * self.M + s * self.C + self.K
        rhs_u = np.broadcast_to(self.F.astype(complex), (w.size, *self.F.shape))
        rhs = rhs_u
        if ground:
            rhs = np.concatenate([self.K_w + s * self.C_w, rhs_u], axis=2)
        try:
            Q = np.linalg.solve(Z, rhs)
        except np.linalg.LinAlgError:
            bad = [k for k in range(w.size) if np.linalg.matrix_rank(Z[k]) < n]
            raise ArgumentError(
                f"omega: the frequency {float(w[bad[0]])!r} rad/s (index {bad[0]}) is an "
                "undamped resonance of the model (-w^2 M + jw C + K is singular): the "
                "response is infinite there; leave it out of omega"
            ) from None
        blocks = []
        nr = self.K_w.shape[1] if ground else 0
        for ms in meas:
            S = _check_meas(ms, n, self.frame)
            Y = S @ Q
            if ground and ms.ground_matrix is not None:
                Y[:, :, :nr] -= _check_ground(ms, nr)
            blocks.append(s**ms.order * Y)
        return np.concatenate(blocks, axis=1)


def _frame(origin, name):
    if origin is None:
        return None
    o = np.atleast_1d(np.asarray(origin, dtype=float))
    if o.ndim != 1 or not np.all(np.isfinite(o)):
        raise ArgumentError(f"{name} must be a finite point, got {origin!r}")
    return tuple(float(x) for x in o)


def _check_frame(ms, frame):
    """Refuse a measurement whose matrix reads the coordinates of another frame."""
    if ms.frame is None or frame is None:
        return
    if len(ms.frame) != len(frame) or not np.allclose(ms.frame, frame, rtol=0, atol=1e-12):
        raise ArgumentError(
            f"measurement {ms.names} reads the coordinates of the frame at {list(ms.frame)}, "
            f"but the model's coordinates are those of the frame at {list(frame)}; build "
            "the sensors with the same origin as the model"
        )


def _check_meas(ms, n, frame=None):
    if not isinstance(ms, Measurement):
        raise UncertainTypeError(f"outputs must be Measurement objects, got {type(ms).__name__}")
    if ms.matrix.shape[1] != n:
        raise DimensionError(
            f"measurement {ms.names} has {ms.matrix.shape[1]} columns but the model has "
            f"{n} coordinates"
        )
    _check_frame(ms, frame)
    return ms.matrix


def _check_ground(ms, r):
    if ms.ground_matrix.shape[1] != r:
        raise DimensionError(
            f"measurement {ms.names} has a ground_matrix with {ms.ground_matrix.shape[1]} "
            f"columns but the model has {r} ground inputs"
        )
    return ms.ground_matrix


def _names(names, count, prefix, what):
    if names is None:
        return [f"{prefix}{i + 1}" for i in range(count)]
    names = [str(x) for x in names]
    if len(names) != count:
        raise DimensionError(f"{count} {what} names expected, got {len(names)}")
    if len(set(names)) != len(names):
        raise SignalError(f"duplicate {what} names in {names}")
    return names
