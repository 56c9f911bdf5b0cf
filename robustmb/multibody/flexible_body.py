"""Flexible TITOP body from clamped-free modal data (seed 003, Eqs. 1-6).

A body clamped at its parent port P and free at its child port C is described
by its rigid mass ``D_P`` at P, ``n`` clamped-free modes (unit modal mass,
frequencies ``w_j``, damping ratios ``xi_j``), the modal participation factors
``L`` (n x 6) at P and the mode shapes ``Phi`` (6 x n) at C.  With ``f`` the
modal forcing ``Phi^T W_C - L x''_P``::

    eta''_j = -w_j^2 eta_j - 2 xi_j w_j eta'_j + f_j
    x''_C   = Phi eta'' + tau_CP x''_P
    W_P     = -L^T eta'' - D_P x''_P + tau_CP^T W_C

(``W_P`` is the wrench the body applies to its parent, ``W_C`` the wrench the
child applies to the body; accelerations are twists ``[a; omega']``.)

Why the modal states are ``[w_j eta_j; eta'_j]``: in these coordinates the
mode's state matrix is ``w_j [[0, 1], [-1, -2 xi_j]]`` and every term of
``eta''_j`` is ``w_j`` times a fixed combination of the states, so an uncertain
frequency enters affinely with exactly two occurrences (``delta I2`` per mode),
the structure used in the paper for the solar-array mode.
"""

from __future__ import annotations

import numpy as np

from ..errors import (
    ArgumentError,
    DimensionError,
    NonphysicalInertiaWarning,
    ResidualMassWarning,
    warn,
)
from ..lft.elements import UncertainElement
from ..lft.model import UncertainModel, UncertainSystem
from ..lft.realization import make_realization
from .signals import WRENCH_COMPONENTS, check_name
from .spatial import kinematic_model, spatial_inertia

#: Components of an acceleration twist: linear then angular.
ACCELERATION_COMPONENTS = ("ax", "ay", "az", "alphax", "alphay", "alphaz")


#: What may be uncertain in the TITOP blocks, for the error raised on any other uncertain data.
_UNCERTAIN_HINT = (
    "only the modal frequencies of a FlexibleBody and the joint parameter tau of a "
    "revolute_frame_block may be uncertain (ureal)"
)


def _is_uncertain(x) -> bool:
    return isinstance(x, UncertainElement | UncertainModel)


def _holds_uncertain(x) -> bool:
    """Whether ``x`` or an entry of its nested lists / tuples / object arrays is uncertain."""
    if _is_uncertain(x):
        return True
    if isinstance(x, list | tuple):
        return any(_holds_uncertain(e) for e in x)
    if isinstance(x, np.ndarray) and x.dtype == object:
        return any(_holds_uncertain(e) for e in x.ravel())
    return False


def numeric_array(x, what) -> np.ndarray:
    """``x`` as a float array; an uncertain entry or a non-number raises naming ``what``.

    The TITOP blocks take masses, inertias, vectors and damping as plain
    numbers; the builtin ``float()`` error on a ``ureal`` would name neither
    the argument nor what may be uncertain instead.

    Examples
    --------
    >>> from robustmb.multibody.flexible_body import numeric_array
    >>> numeric_array([1, 2], "com")
    array([1., 2.])
    """
    if _holds_uncertain(x):
        raise ArgumentError(f"{what} must be numeric: {_UNCERTAIN_HINT}")
    # float() would take True as 1 and drop an imaginary part with only a warning
    try:
        entries = np.asarray(x, dtype=object).ravel()
    except (TypeError, ValueError):
        entries = ()  # ragged: refused by the conversion below
    for e in entries:
        if isinstance(e, bool | np.bool_) or np.iscomplexobj(e):
            raise ArgumentError(f"{what} must be real numbers, got {type(e).__name__} {e!r}")
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be numeric, got {x!r}") from None


def check_titop_inertia(inertia, what, *, definite=False) -> np.ndarray:
    """A finite, symmetric, positive (semi)definite 3x3 inertia as a float array.

    A non-symmetric matrix is refused rather than replaced by its symmetric
    part (which matrix the user meant is unknown).  The eigenvalue tolerance
    is that of :func:`robustmb.multibody.bodies.check_inertia`: exact for a
    diagonal matrix, ``16 eps`` times the largest eigenvalue otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.flexible_body import check_titop_inertia
    >>> check_titop_inertia(np.diag([1.0, 2.0, 2.5]), "inertia").diagonal()
    array([1. , 2. , 2.5])
    """
    j = numeric_array(inertia, what)
    if j.shape != (3, 3):
        raise DimensionError(f"{what} must be 3x3, got shape {j.shape}")
    if not np.all(np.isfinite(j)):
        raise ArgumentError(f"{what} must be finite, got {j.tolist()}")
    scale = np.abs(j).max()
    if np.abs(j - j.T).max() > 1e-12 * scale:
        raise ArgumentError(f"{what} must be symmetric, got {j.tolist()}")
    eig = np.linalg.eigvalsh(j)
    off = j - np.diag(np.diag(j))
    tol = 0.0 if not off.any() else 16.0 * np.finfo(float).eps * float(np.abs(eig).max())
    if (eig[0] <= tol) if definite else (eig[0] < -tol):
        kind = "definite" if definite else "semidefinite"
        raise ArgumentError(f"{what} must be positive {kind}, its eigenvalues are {eig}")
    return j


def warn_nonphysical_inertia(j, what, allow) -> None:
    """Warn when the principal moments of ``j`` break the triangle inequality.

    The same rule as :class:`~robustmb.multibody.RigidBody` (and its opt-out
    ``allow``, which must be a bool): a :class:`NonphysicalInertiaWarning`
    naming ``what`` and the moments, the data being kept
    (:func:`~robustmb.multibody.bodies.check_triangle_inequality`).

    Examples
    --------
    >>> import warnings
    >>> from robustmb.multibody.flexible_body import warn_nonphysical_inertia
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_nonphysical_inertia(np.diag([1.0, 1.0, 5.0]), "inertia", False)
    >>> caught[0].category.__name__
    'NonphysicalInertiaWarning'
    """
    from .bodies import check_triangle_inequality

    if not isinstance(allow, bool):
        raise ArgumentError(
            f"{what.rsplit(':', 1)[0]}: allow_nonphysical_inertia must be True or False, "
            f"got {allow!r}"
        )
    if allow:
        return
    try:
        check_triangle_inequality(j, what)
    except DimensionError as err:
        warn(str(err), NonphysicalInertiaWarning)


def _vector3(v, what):
    a = numeric_array(v, what)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise DimensionError(f"{what} must be 3 finite numbers, got shape {a.shape}")
    return a


def _frequency(w, j, what="FlexibleBody"):
    """``(center, half_width, element or None)`` of mode ``j``'s frequency (rad/s)."""
    if isinstance(w, UncertainElement):
        if w.kind != "real":
            raise ArgumentError(
                f"{what}: frequencies[{j}] must be a number or a ureal, got a {w.kind} element"
            )
        if w.range[0] <= 0.0:
            raise ArgumentError(
                f"{what}: frequencies[{j}] ({w.name!r}) must stay positive over its "
                f"range, got {w.range}"
            )
        return w.center, w.half_width, w
    try:
        if isinstance(w, bool | np.bool_):  # float(True) would be a frequency of 1 rad/s
            raise TypeError
        x = float(w)
    except (TypeError, ValueError):
        raise ArgumentError(
            f"{what}: frequencies[{j}] must be a number or a ureal, got {type(w).__name__}"
        ) from None
    if not np.isfinite(x) or x <= 0.0:
        raise ArgumentError(f"{what}: frequencies[{j}] must be positive, got {x}")
    return x, 0.0, None


def _mode_shapes(mode_shapes, n, what):
    """``Phi`` as a (6, n) array; any other layout is refused, never reshaped.

    A transposed (n x 6) array has the 6n entries a reshape would accept but
    scrambles the components and modes, so only (6, n) is taken (and a 1-D
    vector of 6 entries for a single mode).
    """
    phi = numeric_array(mode_shapes, f"{what}: mode_shapes")
    if n == 1 and phi.shape == (6,):
        phi = phi.reshape(6, 1)
    if n == 0 and phi.size == 0:
        phi = np.zeros((6, 0))
    if phi.shape != (6, n):
        raise DimensionError(
            f"{what}: mode_shapes must be 6 x {n} (6 components, one column per mode), "
            f"got shape {phi.shape}"
        )
    if not np.all(np.isfinite(phi)):
        raise ArgumentError(f"{what}: mode_shapes must be finite")
    return phi


class FlexibleBody:
    """A flexible body as a TITOP model built from clamped-free modal data.

    Parameters
    ----------
    name : str
        Body name, used in the signal names.
    mass : float
        Mass (kg), a positive number.
    inertia : (3, 3) array_like
        Inertia tensor at the centre of mass G, body axes (kg m^2): symmetric
        positive semidefinite (a non-symmetric matrix is refused).
    com : 3 numbers
        Vector from the parent port P to G (body axes, m).
    participation : (n, 6) array_like
        Modal participation factors ``L`` at P (unit modal mass).
    frequencies : sequence of n numbers or ``ureal``
        Clamped-free frequencies in rad/s.  A ``ureal`` gives the exact
        ``delta I2`` LFT of that mode.
    damping : float or sequence of n floats
        Modal damping ratios, each in [0, 1).
    mode_shapes : (6, n) array_like, optional
        Mode shapes ``Phi`` at the child port C, one column per mode (a
        vector of 6 entries when n = 1; the n x 6 layout of
        ``participation`` is refused).  Omit for a one-port body.
    child : 3 numbers, optional
        Vector from P to C; required with ``mode_shapes``.
    allow_nonphysical_inertia : bool, keyword-only
        Keep principal moments that break the triangle inequality
        ``I1 + I2 >= I3`` without a warning (default False: a
        :class:`~robustmb.errors.NonphysicalInertiaWarning` names the body and
        the moments, and the data are kept, as for
        :class:`~robustmb.multibody.RigidBody`).

    Notes
    -----
    Only the modal frequencies may be uncertain (``ureal``); the mass,
    inertia, vectors, participation factors, mode shapes and damping are
    numbers, and an uncertain one raises :class:`ArgumentError`.

    The rigid mass at P is the fully coupled ``D_P = tau_GP^T D_G tau_GP``
    (not ``diag(m I3, J_P)``, which is only right when P is the centre of
    mass).  The residual mass ``R_P = D_P - L^T L`` is the mass seen at P at
    high frequency; an ``R_P`` that is indefinite, or singular in a direction
    in which the rigid body has mass, means the modal data are not consistent
    with the rigid data and a :class:`ResidualMassWarning` is issued (the
    model is still built).  A semidefinite ``D_P`` (a point mass, a slender
    rod) is no defect by itself.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import FlexibleBody
    >>> body = FlexibleBody("beam", 2.0, np.diag([0.1, 0.1, 0.2]), [1.0, 0, 0],
    ...                     [[0, 0, 1.0, 0, -1.0, 0]], [10.0], 0.01)
    >>> sys = body.titop()
    >>> sys.shape, sys.nstates
    ((6, 6), 2)
    >>> bool(np.allclose(body.dc_gain(), -body.rigid_mass))
    True
    """

    def __init__(
        self,
        name,
        mass,
        inertia,
        com,
        participation,
        frequencies,
        damping,
        *,
        mode_shapes=None,
        child=None,
        allow_nonphysical_inertia=False,
    ):
        self.name = check_name(name, "body name")
        what = f"FlexibleBody {name!r}"
        m = numeric_array(mass, f"{what}: mass")
        if m.shape != () or not np.isfinite(m) or m <= 0.0:
            raise ArgumentError(f"{what}: mass must be a positive number, got {mass}")
        m = float(m)
        j = check_titop_inertia(inertia, f"{what}: inertia")
        warn_nonphysical_inertia(j, f"{what}: inertia", allow_nonphysical_inertia)
        self.mass, self.inertia = m, j
        self.com = _vector3(com, f"{what}: com")
        lmat = np.atleast_2d(numeric_array(participation, f"{what}: participation"))
        if lmat.ndim != 2 or lmat.shape[1] != 6:
            raise DimensionError(f"{what}: participation must be n x 6, got shape {lmat.shape}")
        if not np.all(np.isfinite(lmat)):
            raise ArgumentError(f"{what}: participation must be finite")
        n = lmat.shape[0]
        if isinstance(frequencies, np.ndarray) and frequencies.ndim == 0:
            frequencies = frequencies.item()  # a 0-d array is one frequency, not iterable
        freqs = (
            list(frequencies)
            if isinstance(frequencies, list | tuple | np.ndarray)
            else [frequencies]
        )
        if len(freqs) != n:
            raise DimensionError(
                f"{what}: {len(freqs)} frequencies for {n} modes (rows of participation)"
            )
        xi = numeric_array(damping, f"{what}: damping")
        if xi.ndim > 1 or (xi.ndim == 1 and xi.size != n):
            raise DimensionError(
                f"{what}: damping must be one ratio or {n} (one per mode), got shape {xi.shape}"
            )
        xi = np.broadcast_to(xi, (n,)).copy()
        if np.any(~np.isfinite(xi)) or np.any(xi < 0) or np.any(xi >= 1):
            raise ArgumentError(f"{what}: damping ratios must lie in [0, 1)")
        self.participation = lmat
        self.frequencies = freqs
        self._freq = [_frequency(w, i, what) for i, w in enumerate(freqs)]
        self.damping = xi
        if (mode_shapes is None) != (child is None):
            raise ArgumentError(f"{what}: mode_shapes and child must be given together")
        if mode_shapes is not None:
            self.mode_shapes = _mode_shapes(mode_shapes, n, what)
            self.child = _vector3(child, f"{what}: child")
        else:
            self.mode_shapes = None
            self.child = None
        lam = self._residual_defect()
        if lam is not None:
            warn(
                f"FlexibleBody {name!r}: the residual mass D_P - L^T L is not positive "
                f"definite (smallest eigenvalue {lam:.4g}); the modal data are "
                "inconsistent with the rigid data",
                ResidualMassWarning,
            )

    def _residual_defect(self):
        """Smallest eigenvalue of ``R_P`` when the modes take more mass than ``D_P`` has.

        ``R_P`` is checked where it matters: a direction ``v`` with
        ``v^T R_P v <= tol`` is a defect when ``R_P`` is indefinite there or when
        the rigid body has mass in it (``v^T D_P v > tol``).  A direction without
        rigid mass and without modal participation (a point mass's rotations, a
        slender rod's spin axis, any rigid body with no modes) is no defect.
        ``tol`` is ``64 eps`` times the largest eigenvalue of ``D_P`` (rounding).
        """
        if self.n_modes == 0:
            return None  # R_P = D_P, already checked semidefinite
        dp = self.rigid_mass
        r = self.residual_mass
        lam, vec = np.linalg.eigh(0.5 * (r + r.T))
        tol = 64.0 * np.finfo(float).eps * float(np.abs(np.linalg.eigvalsh(dp)).max())
        for k in np.flatnonzero(lam <= tol):
            v = vec[:, k]
            if lam[k] < -tol or float(v @ dp @ v) > tol:
                return float(lam[0])
        return None

    # ----------------------------------------------------------------- data
    @property
    def n_modes(self) -> int:
        """Number of clamped-free modes."""
        return self.participation.shape[0]

    @property
    def is_two_port(self) -> bool:
        """True when the body has a child port C."""
        return self.child is not None

    @property
    def rigid_mass(self) -> np.ndarray:
        """``D_P`` (6x6): rigid direct dynamic model at P, fully coupled."""
        return np.asarray(spatial_inertia(self.mass, self.inertia, -self.com), dtype=float)

    @property
    def residual_mass(self) -> np.ndarray:
        """``R_P = D_P - L^T L`` (6x6), the direct mass at P at high frequency."""
        return self.rigid_mass - self.participation.T @ self.participation

    def nominal_frequencies(self) -> np.ndarray:
        """Nominal value of each modal frequency (rad/s).

        For a ``ureal`` frequency this is its ``nominal``, which need not be
        the centre of its range.

        Examples
        --------
        >>> import robustmb as rmb
        >>> from robustmb.multibody import FlexibleBody
        >>> w = rmb.ureal("w1", 2.0, range=(1.0, 5.0))
        >>> body = FlexibleBody("a", 1.0, 0.1 * np.eye(3), [0.5, 0, 0],
        ...                     [[0, 0, 0.5, 0, 0, 0]], [w], 0.02)
        >>> body.nominal_frequencies()
        array([2.])
        """
        return np.array([c if el is None else float(el.nominal) for c, _, el in self._freq])

    # ----------------------------------------------------------------- model
    def signal_names(self):
        """``(input_names, output_names)`` of :meth:`titop`.

        Inputs: the wrench applied on the body at C (``{name}_C_Fx..Tz``, two-port
        only), then the acceleration twist at P (``{name}_P_ax..alphaz``).
        Outputs: the acceleration twist at C (two-port only), then the wrench
        the body applies to its parent (``{name}_P_to_parent_Fx..Tz``).
        """
        b = self.name
        ins = [f"{b}_P_{c}" for c in ACCELERATION_COMPONENTS]
        outs = [f"{b}_P_to_parent_{c}" for c in WRENCH_COMPONENTS]
        if self.is_two_port:
            ins = [f"{b}_C_{c}" for c in WRENCH_COMPONENTS] + ins
            outs = [f"{b}_C_{c}" for c in ACCELERATION_COMPONENTS] + outs
        return ins, outs

    def titop(self) -> UncertainSystem:
        """The TITOP model (Eqs. 4-5) as an exact LFT of the uncertain frequencies.

        Returns
        -------
        UncertainSystem
            Two-port: 12 inputs ``[W_C; x''_P]``, 12 outputs ``[x''_C; W_P]``.
            One-port: 6 inputs ``x''_P``, 6 outputs ``W_P``.  States
            ``[w_j eta_j; eta'_j]`` per mode.

        Examples
        --------
        >>> import robustmb as rmb
        >>> from robustmb.multibody import FlexibleBody
        >>> w = rmb.ureal("w1", 2.0, percent=20)
        >>> body = FlexibleBody("a", 1.0, 0.1 * np.eye(3), [0.5, 0, 0],
        ...                     [[0, 0, 0.5, 0, 0, 0]], [w], 0.02)
        >>> body.titop().blocks
        {'w1': 2}
        """
        n = self.n_modes
        lmat, xi = self.participation, self.damping
        two = self.is_two_port
        nu = 12 if two else 6
        # Modal forcing f = Bf u with u = [W_C; x''_P] (two-port) or x''_P.
        bf = np.hstack([self.mode_shapes.T, -lmat]) if two else -lmat
        # Group the uncertain modes by element name: a repeated block's channels are contiguous.
        groups: dict[str, tuple] = {}
        for jm, (_, _, el) in enumerate(self._freq):
            if el is not None:
                groups.setdefault(el.name, (el, []))[1].append(jm)
        order = [jm for _, (_, idx) in groups.items() for jm in idx]
        nw = 2 * len(order)
        a = np.zeros((2 * n, 2 * n))
        b = np.zeros((2 * n, nw + nu))
        cz = np.zeros((nw, 2 * n))
        for jm, (c, _, _) in enumerate(self._freq):
            nj = np.array([[0.0, 1.0], [-1.0, -2.0 * xi[jm]]])
            s = slice(2 * jm, 2 * jm + 2)
            a[s, s] = c * nj
            b[2 * jm + 1, nw:] = bf[jm]
        for k, jm in enumerate(order):
            h = self._freq[jm][1]
            s = slice(2 * jm, 2 * jm + 2)
            b[s, 2 * k : 2 * k + 2] = h * np.eye(2)
            cz[2 * k : 2 * k + 2, s] = np.array([[0.0, 1.0], [-1.0, -2.0 * xi[jm]]])
        # eta'' is the second row of each mode's state derivative.
        sel = np.zeros((n, 2 * n))
        sel[np.arange(n), 2 * np.arange(n) + 1] = 1.0
        eta_a, eta_b = sel @ a, sel @ b
        dp = self.rigid_mass
        if two:
            tcp = kinematic_model(-self.child)  # tau_CP, from the vector C to P
            out = np.vstack([self.mode_shapes, -lmat.T])
            d0 = np.block([[np.zeros((6, 6)), tcp], [tcp.T, -dp]])
        else:
            out = -lmat.T
            d0 = -dp
        cy = out @ eta_a
        dy = out @ eta_b
        dy[:, nw:] += d0
        c = np.vstack([cz, cy])
        d = np.vstack([np.zeros((nw, nw + nu)), dy])
        blocks = {name: (el, 2 * len(idx)) for name, (el, idx) in groups.items()}
        real = make_realization(a, b, c, d, blocks)
        ins, outs = self.signal_names()
        return UncertainSystem(real, dt=0, input_names=ins, output_names=outs, name=self.name)

    def dc_gain(self) -> np.ndarray:
        """Static gain of the nominal TITOP model (``-D_P`` block at P).

        Examples
        --------
        >>> import numpy as np
        >>> from robustmb.multibody import FlexibleBody
        >>> b = FlexibleBody("a", 1.0, np.eye(3), [0, 0, 0], np.zeros((0, 6)), [], 0.0)
        >>> bool(np.allclose(b.dc_gain(), -np.eye(6)))
        True
        """
        sys = self.titop().nominal()
        if sys.nstates == 0:
            return np.asarray(sys.D, dtype=float)
        return np.asarray(sys.D - sys.C @ np.linalg.solve(sys.A, sys.B), dtype=float)

    def __repr__(self):
        kind = "two-port" if self.is_two_port else "one-port"
        return f"FlexibleBody({self.name!r}, {kind}, {self.n_modes} modes, mass={self.mass:g})"
