"""Flexible rectangular panels from a small Kirchhoff plate finite-element model.

Available as ``robustmb.examples.plate``.  A thin isotropic plate ``a x b``, thickness
``h``, meshed with ``nx x ny`` rectangular ACM elements (12 degrees of freedom: at
each corner the deflection ``w`` and the rotations ``theta_x = dw/dy`` and
``theta_y = -dw/dx`` about the x and y axes; the shape functions are the 12-term
polynomial ``1, x, y, x^2, xy, y^2, x^3, x^2 y, x y^2, y^3, x^3 y, x y^3``).  Element
matrices are integrated by Gauss quadrature, exact for these polynomials.

:func:`panel_modes` clamps the panel along its edge ``x = 0`` (the parent port P at the
middle of that edge) and returns the clamped-free modal data of a TITOP body: rigid
mass and inertia, participation factors ``L = Phi^T (M Psi)`` at P (unit modal mass),
the mode shapes at a child port, and the frequencies -- what
:class:`~robustmb.multibody.FlexibleBody` takes (:func:`flexible_panel`).  The
out-of-plane bending modes only: the in-plane motion of a thin plate is rigid.

The frequencies converge to the closed-form values of a simply supported plate,
``omega_mn = pi^2 (m^2 / a^2 + n^2 / b^2) sqrt(D / (rho h))``, and to the tabulated
cantilever values (Leissa, *Vibration of Plates*, NASA SP-160, 1969), which the tests
check.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._blas import single_blas_thread
from ..errors import ArgumentError

_POWERS = [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3),
           (3, 1), (1, 3)]  # fmt: skip


def _monomials(x, y, dx=0, dy=0):
    """Derivative ``d^dx/dx d^dy/dy`` of the 12 monomials at points ``x, y`` -> (K, 12)."""
    x, y = np.atleast_1d(x).astype(float), np.atleast_1d(y).astype(float)
    out = np.zeros((x.size, len(_POWERS)))
    for k, (p, q) in enumerate(_POWERS):
        if p < dx or q < dy:
            continue
        cx = np.prod(np.arange(p, p - dx, -1)) if dx else 1.0
        cy = np.prod(np.arange(q, q - dy, -1)) if dy else 1.0
        out[:, k] = cx * cy * x ** (p - dx) * y ** (q - dy)
    return out


def element_matrices(ae, be, h, E, nu, rho):
    """Stiffness and consistent mass (12 x 12) of one ACM element ``ae x be``.

    Degrees of freedom per corner ``(w, theta_x, theta_y)``, corners counter-clockwise
    from ``(0, 0)``.

    Examples
    --------
    >>> K, M = element_matrices(0.5, 0.5, 0.01, 70e9, 0.3, 2700.0)
    >>> K.shape, bool(np.allclose(K, K.T)), bool(np.all(np.linalg.eigvalsh(M) > 0))
    ((12, 12), True, True)
    """
    corners = np.array([[0.0, 0.0], [ae, 0.0], [ae, be], [0.0, be]])
    rows = []
    for cx, cy in corners:  # w, dw/dy, -dw/dx at each corner
        rows += [
            _monomials(cx, cy)[0],
            _monomials(cx, cy, dy=1)[0],
            -_monomials(cx, cy, dx=1)[0],
        ]
    Cinv = np.linalg.inv(np.array(rows))
    g, wg = np.polynomial.legendre.leggauss(5)  # exact to degree 9 per direction
    X, Y = np.meshgrid(0.5 * ae * (g + 1), 0.5 * be * (g + 1), indexing="ij")
    W = np.outer(wg, wg).ravel() * 0.25 * ae * be
    x, y = X.ravel(), Y.ravel()
    N = _monomials(x, y) @ Cinv  # (K, 12)
    curv = np.stack(
        [
            _monomials(x, y, dx=2) @ Cinv,
            _monomials(x, y, dy=2) @ Cinv,
            2.0 * _monomials(x, y, dx=1, dy=1) @ Cinv,
        ],
        axis=1,
    )  # (K, 3, 12)
    D0 = E * h**3 / (12.0 * (1.0 - nu**2))
    Dm = D0 * np.array([[1.0, nu, 0.0], [nu, 1.0, 0.0], [0.0, 0.0, 0.5 * (1.0 - nu)]])
    K = np.einsum("k,kai,ab,kbj->ij", W, curv, Dm, curv)
    M = rho * h * np.einsum("k,ki,kj->ij", W, N, N)
    return 0.5 * (K + K.T), 0.5 * (M + M.T)


def plate_model(a, b, h, E, nu, rho, nx, ny):
    """Assembled stiffness and mass of the whole plate ``[0, a] x [-b/2, b/2]``.

    Returns
    -------
    K, M : numpy.ndarray
        ``(3 N, 3 N)`` with ``N = (nx + 1)(ny + 1)`` nodes; node ``i + (nx + 1) j`` at
        ``(i a / nx, -b/2 + j b / ny)``, its DOFs ``3 node + (0, 1, 2)`` =
        ``(w, theta_x, theta_y)``.
    nodes : numpy.ndarray
        ``(N, 2)`` node coordinates.

    Examples
    --------
    >>> K, M, nodes = plate_model(1.0, 1.0, 0.01, 70e9, 0.3, 2700.0, 2, 2)
    >>> K.shape, nodes.shape
    ((27, 27), (9, 2))
    """
    for name, v in (("a", a), ("b", b), ("h", h), ("E", E), ("rho", rho)):
        if not np.isfinite(v) or v <= 0:
            raise ArgumentError(f"plate_model: {name} must be positive, got {v!r}")
    if not -1.0 < nu < 0.5:
        raise ArgumentError(f"plate_model: nu must be in (-1, 0.5), got {nu!r}")
    if int(nx) < 1 or int(ny) < 1:
        raise ArgumentError(f"plate_model: nx and ny must be at least 1, got {nx}, {ny}")
    nx, ny = int(nx), int(ny)
    Ke, Me = element_matrices(a / nx, b / ny, h, E, nu, rho)
    ii, jj = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    base = (ii + (nx + 1) * jj).ravel()
    corner_nodes = np.stack([base, base + 1, base + nx + 2, base + nx + 1], axis=1)
    dofs = (3 * corner_nodes[:, :, None] + np.arange(3)).reshape(-1, 12)
    ndof = 3 * (nx + 1) * (ny + 1)
    K, M = np.zeros((ndof, ndof)), np.zeros((ndof, ndof))
    r, c = dofs[:, :, None], dofs[:, None, :]
    np.add.at(K, (r, c), Ke)
    np.add.at(M, (r, c), Me)
    gx, gy = np.meshgrid(np.linspace(0, a, nx + 1), np.linspace(-b / 2, b / 2, ny + 1))
    nodes = np.column_stack([gx.ravel(), gy.ravel()])
    return K, M, nodes


def plate_frequencies(a, b, h, E, nu, rho, *, nx=12, ny=12, support="ssss", count=6):
    """Lowest natural frequencies (rad/s) of the plate with simply supported (``"ssss"``)
    or cantilevered (``"cfff"``: clamped along ``x = 0``) edges.

    ``count`` (a positive integer, at most the mesh's free degrees of freedom)
    is the number of frequencies returned.

    Examples
    --------
    >>> D = 70e9 * 0.01**3 / (12 * (1 - 0.3**2))
    >>> w = plate_frequencies(1.0, 1.0, 0.01, 70e9, 0.3, 2700.0, nx=8, ny=8)
    >>> bool(abs(w[0] / (2 * np.pi**2 * np.sqrt(D / (2700.0 * 0.01))) - 1) < 0.01)
    True
    """
    import scipy.linalg

    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 1:
        raise ArgumentError(f"plate_frequencies: count must be a positive integer, got {count!r}")
    K, M, nodes = plate_model(a, b, h, E, nu, rho, nx, ny)
    x, y = nodes[:, 0], nodes[:, 1]
    tol = 1e-9 * max(a, b)
    fixed = []
    if support == "ssss":
        ex = np.flatnonzero((np.abs(x) < tol) | (np.abs(x - a) < tol))
        ey = np.flatnonzero((np.abs(y + b / 2) < tol) | (np.abs(y - b / 2) < tol))
        # w = 0 on the edges, hence its derivative along each edge too
        fixed = np.unique(np.r_[3 * ex, 3 * ey, 3 * ex + 1, 3 * ey + 2])
    elif support == "cfff":
        root = np.flatnonzero(np.abs(x) < tol)
        fixed = (3 * root[:, None] + np.arange(3)).ravel()
    else:
        raise ArgumentError(f"plate_frequencies: support must be 'ssss' or 'cfff', got {support!r}")
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    if count > free.size:
        raise ArgumentError(
            f"plate_frequencies: count must be at most {free.size} (the free degrees of "
            f"freedom of the {nx} x {ny} mesh), got {count}"
        )
    with single_blas_thread():
        lam = scipy.linalg.eigh(
            K[np.ix_(free, free)],
            M[np.ix_(free, free)],
            eigvals_only=True,
            subset_by_index=[0, count - 1],
        )
    return np.sqrt(np.maximum(lam, 0.0))


def panel_modes(a, b, h, E, nu, rho, *, nx=8, ny=8, n_modes=4, child=None):
    """Clamped-free modal data of a panel clamped along ``x = 0`` (port P at ``(0, 0)``).

    Parameters
    ----------
    a, b, h : float
        Span (along x, away from the clamped edge), width and thickness (m).
    E, nu, rho : float
        Young's modulus (Pa), Poisson's ratio, density (kg/m^3).
    nx, ny : int
        Elements along x and y.
    n_modes : int
        Modes kept.
    child : 2 numbers, optional
        A node ``(x, y)`` of the mesh where the child port C is (e.g. the tip
        ``(a, 0)`` with an even ``ny``).

    Returns
    -------
    dict
        ``mass``, ``inertia`` (at the CoM, thin plate), ``com`` (from P),
        ``participation`` L ``(n_modes, 6)``, ``frequencies`` (rad/s),
        ``mode_shapes`` Phi ``(6, n_modes)`` at C (None without ``child``), ``child``
        (from P), ``fe_rigid_mass`` (6 x 6, ``Psi^T M Psi`` of the FE model at P: its
        out-of-plane entries equal the thin plate's).

    Examples
    --------
    >>> m = panel_modes(2.0, 1.0, 0.01, 70e9, 0.3, 2700.0, nx=4, ny=2, n_modes=2)
    >>> m["participation"].shape, round(m["mass"], 6)
    ((2, 6), 54.0)
    """
    import scipy.linalg

    K, M, nodes = plate_model(a, b, h, E, nu, rho, nx, ny)
    x, y = nodes[:, 0], nodes[:, 1]
    tol = 1e-9 * max(a, b)
    root = np.abs(x) < tol
    fixed = (3 * np.flatnonzero(root)[:, None] + np.arange(3)).ravel()
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    nfree = free.size
    if not 1 <= int(n_modes) <= nfree:
        raise ArgumentError(f"panel_modes: n_modes must be in 1..{nfree}, got {n_modes}")
    # rigid motions of every DOF for unit twist components at P, order (ax, ay, az, ...):
    # az: w = 1; alpha_x: w = y, theta_x = 1; alpha_y: w = -x, theta_y = 1
    Psi = np.zeros((K.shape[0], 6))
    Psi[0::3, 2] = 1.0
    Psi[0::3, 3], Psi[1::3, 3] = y, 1.0
    Psi[0::3, 4], Psi[2::3, 4] = -x, 1.0
    with single_blas_thread():  # mass-normalised: Phi^T M_ff Phi = I
        lam, Phi = scipy.linalg.eigh(
            K[np.ix_(free, free)], M[np.ix_(free, free)], subset_by_index=[0, int(n_modes) - 1]
        )
    L = Phi.T @ (M[free] @ Psi)
    mass = rho * h * a * b
    com = np.array([a / 2, 0.0, 0.0])
    inertia = mass / 12.0 * np.diag([b**2, a**2, a**2 + b**2])
    shapes, pc = None, None
    if child is not None:
        d2 = np.sum((nodes - np.asarray(child, dtype=float)) ** 2, axis=1)
        node = int(np.argmin(d2))
        if d2[node] > tol**2 or root[node]:
            raise ArgumentError(f"panel_modes: child {child!r} is not a free node of the mesh")
        full = np.zeros((K.shape[0], int(n_modes)))
        full[free] = Phi
        shapes = np.zeros((6, int(n_modes)))
        shapes[2], shapes[3], shapes[4] = full[3 * node], full[3 * node + 1], full[3 * node + 2]
        pc = np.array([nodes[node, 0], nodes[node, 1], 0.0])
    return {
        "mass": mass,
        "inertia": inertia,
        "com": com,
        "participation": L,
        "frequencies": np.sqrt(np.maximum(lam, 0.0)),
        "mode_shapes": shapes,
        "child": pc,
        "fe_rigid_mass": Psi.T @ M @ Psi,
    }


def flexible_panel(name, a, b, h, E, nu, rho, *, damping=0.005, **options):
    """A :class:`~robustmb.multibody.FlexibleBody` from :func:`panel_modes`.

    Examples
    --------
    >>> body = flexible_panel("panel", 2.0, 1.0, 0.01, 70e9, 0.3, 2700.0, nx=4, ny=2,
    ...                       n_modes=3)
    >>> bool(np.allclose(body.dc_gain(), -body.rigid_mass))     # one port: W_P = -D_P a_P
    True
    """
    from ..multibody import FlexibleBody

    m = panel_modes(a, b, h, E, nu, rho, **options)
    return FlexibleBody(
        name,
        m["mass"],
        m["inertia"],
        m["com"],
        m["participation"],
        list(m["frequencies"]),
        damping,
        mode_shapes=m["mode_shapes"],
        child=m["child"],
    )
