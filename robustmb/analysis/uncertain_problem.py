"""An uncertain system as an analysis problem: ``M``, its mu structure and its elements.

The LFT coefficient of an uncertain object is normalised about the centres of
the parameter ranges (``value = center + half_width * delta``), so a
stability or performance margin ``alpha`` means: guaranteed for every
``delta`` in ``alpha`` times the unit ball, i.e. for every parameter in its
range scaled by ``alpha`` about the range centre (``alpha = 1`` is the
declared set).
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np

from ..errors import FreeTunableError, UncertainTypeError
from ..lft import lftdata
from ..lft.model import UncertainModel, as_model
from .balancing import pole_bands


@dataclass
class BlockInfo:
    """One element of the problem: its mu blocks and Delta channels."""

    name: str
    element: object
    reps: int
    kind: str
    w: slice
    z: slice


@dataclass
class UncertainProblem:
    """State-space data of ``M`` (Delta channels first) with the mu structure."""

    model: UncertainModel
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    dt: float
    nw: int
    nz: int
    blocks: list
    blk: list  # MATLAB mussv convention, one entry per mu block

    @property
    def m11(self):
        """``(A, Bw, Cz, Dzw)``: the part of ``M`` seen by the uncertainty."""
        return self.a, self.b[:, : self.nw], self.c[: self.nz], self.d[: self.nz, : self.nw]

    def performance(self, gamma, alpha=1.0):
        """``(A, B, C, D)`` of ``diag(I, 1/gamma) M diag(alpha I, I)``.

        The robust-performance problem for the level ``gamma`` with the
        uncertainty scaled by ``alpha``.
        """
        b, c, d = self.b.copy(), self.c.copy(), self.d.copy()
        c[self.nz :] /= gamma
        d[self.nz :] /= gamma
        b[:, : self.nw] *= alpha
        d[:, : self.nw] *= alpha
        return self.a, b, c, d

    @property
    def is_complex(self) -> bool:
        """True when ``M`` has complex coefficients (both half-axes must be analysed)."""
        return np.iscomplexobj(self.a) or np.iscomplexobj(self.d)

    @property
    def centre_stable(self) -> bool:
        """Stability at ``Delta = 0`` (all parameters at their range centres)."""
        return is_stable(self.a, self.dt)


def box_vertices(k):
    """The ``2^k`` vertices of the normalised box ``[-1, 1]^k``, one per row.

    Examples
    --------
    >>> box_vertices(2)
    array([[-1., -1.],
           [ 1., -1.],
           [-1.,  1.],
           [ 1.,  1.]])
    """
    return np.array(np.meshgrid(*[[-1.0, 1.0]] * k)).reshape(k, -1).T


def is_stable(a, dt, margin=0.0):
    if a.shape[0] == 0:
        return True
    # balanced first: the slow poles of a stiff model keep their relative accuracy
    ev = pole_bands(a, dt)[0]
    if dt:
        return bool(np.all(np.abs(ev) < 1.0 - margin))
    return bool(np.all(ev.real < -margin))


def uncertain_problem(usys, *, what="analysis") -> UncertainProblem:
    """Extract ``M`` and the block structure of an uncertain system."""
    if isinstance(usys, control.LTI):
        raise UncertainTypeError(
            f"{what} needs an uncertain system (robustmb.uss); got a certain "
            f"{type(usys).__name__}: use hinfnorm or a stability test instead"
        )
    m = as_model(usys)
    if m.tunables:
        raise FreeTunableError(
            f"{what}: {m.name!r} has free tunable parameters {sorted(m.tunables)}; substitute "
            "them first (X.usubs(result.values)) or analyse a tuned closed loop"
        )
    if not m.blocks:
        raise UncertainTypeError(f"{what}: {m.name!r} has no uncertain elements")
    sysm, blocks = lftdata(m)
    if m.is_system:
        a, b, c, d = (np.asarray(x) for x in (sysm.A, sysm.B, sysm.C, sysm.D))
        dt = 0.0 if m.dt in (None, 0) else float(m.dt)
    else:
        d = np.asarray(sysm)
        a, b, c = np.zeros((0, 0)), np.zeros((0, d.shape[1])), np.zeros((d.shape[0], 0))
        dt = 0.0
    # complex coefficients (a complex nominal value) are kept: the analyses then cover
    # negative frequencies too, since M(-jw) is no longer conj(M(jw))
    mats = (a, b, c, d)
    if any(np.iscomplexobj(x) and np.any(np.imag(x) != 0) for x in mats):
        a, b, c, d = (np.asarray(x, dtype=complex) for x in mats)
    else:
        a, b, c, d = (np.real(x).astype(float) for x in mats)
    info, blk = [], []
    iw = iz = 0
    for name, kind, reps, shape in blocks:
        el = m.uncertainty[name]
        p, q = shape
        info.append(
            BlockInfo(name, el, reps, kind, slice(iw, iw + reps * p), slice(iz, iz + reps * q))
        )
        if kind == "real":
            blk.append((-reps, 0))
        elif kind == "complex":
            blk.append((reps, 0))
        else:
            # Repeated LTI blocks are analysed as independent full blocks: a valid
            # (possibly conservative) upper bound; lower bounds are verified by substitution.
            blk.extend([(p, q)] * reps)
        iw += reps * p
        iz += reps * q
    nw = sum(r * s[0] for _, _, r, s in blocks)
    nz = sum(r * s[1] for _, _, r, s in blocks)
    return UncertainProblem(m, a, b, c, d, dt, nw, nz, info, blk)


def _allpass_entry(c, w0, dt):
    """Stable SISO system with gain ``|c|`` at every frequency and value ``c`` at ``w0``.

    ``(a - s)/(a + s)`` has phase ``-2 atan(w0/a)``, anywhere in ``(-pi, 0)``; a
    sign flip covers ``(0, pi)``.  Discrete time uses the bilinear map.  A negative
    ``w0`` (models with complex coefficients) is the point ``-w0`` with ``conj(c)``:
    real coefficients give ``G(-j w) = conj(G(j w))``, and ``a`` must stay positive
    (a negative one puts the pole in the right half-plane).
    """
    if w0 < 0:
        return _allpass_entry(np.conj(c), -w0, dt)
    mag, ph = abs(c), np.angle(c)
    if _at_nyquist(w0, dt):  # z = -1, where a real system is real: the real gain +-|c|
        return control.ss([], [], [], [[mag * (1.0 if c.real >= 0 else -1.0)]], dt)
    freq = w0 if not dt else np.tan(w0 * dt / 2)
    if mag == 0 or freq == 0 or abs(np.sin(ph)) < 1e-12:
        return control.ss([], [], [], [[mag * (1.0 if np.cos(ph) >= 0 else -1.0)]], dt)
    sign, target = (1.0, ph) if ph < 0 else (-1.0, ph - np.pi)
    a = freq / np.tan(-target / 2)
    cs = control.ss(-a, 1.0, 2 * a, -1.0)
    if dt:
        ds = control.sample_system(cs, 2.0, method="bilinear")
        cs = control.ss(ds.A, ds.B, ds.C, ds.D, dt)
    return sign * mag * cs


#: Relative distance to ``pi / dt`` within which a frequency counts as the Nyquist frequency:
#: a real-coefficient interpolant of a non-real value there needs a pole within about
#: this of the unit circle.
_NYQUIST_RTOL = 1e-8


def _at_nyquist(w0, dt):
    """Whether ``w0`` is (to ``_NYQUIST_RTOL``) the Nyquist frequency ``+-pi/dt``."""
    return bool(dt) and abs(abs(w0) * dt - np.pi) <= _NYQUIST_RTOL * np.pi


def _allpass_vector(vec, w0, dt):
    """Diagonal stable system whose value at ``w0`` is ``diag(vec)``."""
    out = _allpass_entry(vec[0], w0, dt)
    for c in vec[1:]:
        out = control.append(out, _allpass_entry(c, w0, dt))
    return out


def _real_rank_one(top):
    """The rank-one ``top`` with the phase of its largest entry removed, real, of the same
    norm, signed to be nearest ``top`` (``+`` when as near either way)."""
    k = np.unravel_index(np.argmax(np.abs(top)), top.shape)
    gain = (top * np.exp(-1j * np.angle(top[k]))).real
    return -gain if np.real(np.vdot(gain, top)) < 0 else gain


def ltidyn_interpolant(delta, w0, dt):
    """A stable LTI system equal to the complex matrix ``delta`` at ``w0``.

    Uses the dominant singular pair ``delta ~ s u v^H`` and all-pass factors per
    entry, so the peak gain equals ``s`` (Boyd-Desoer-style interpolation).  At the
    Nyquist frequency ``w0 = +-pi/dt`` (``z = -1``) a stable real system is a real matrix
    there: the interpolant is the static real gain of the dominant term with its phase
    removed (``+-|delta|`` for a scalar), equal to ``delta`` when that is real.

    Examples
    --------
    >>> import numpy as np
    >>> g = ltidyn_interpolant(np.array([[0.5j]]), np.pi / 0.1, 0.1)
    >>> g.nstates, complex(g(-1.0))
    (0, (0.5+0j))
    """
    u, s, vh = np.linalg.svd(np.atleast_2d(delta))
    p, m = np.atleast_2d(delta).shape
    if p and m and _at_nyquist(w0, dt):
        # z = -1 (the Nyquist frequency), where a real system is a real matrix: the
        # dominant term with the phase of its largest entry removed (a real rank-one
        # matrix of norm s), signed to lie closest to it: delta itself when it is real
        top = s[0] * np.outer(u[:, 0], vh[0])
        gain = top.real if not np.any(top.imag) else _real_rank_one(top)
        return control.ss([], [], [], gain, dt)
    left = _allpass_vector(u[:, 0], w0, dt)  # p x p diagonal all-pass
    right = _allpass_vector(vh[0], w0, dt)  # m x m diagonal all-pass
    dt_ = dt if dt else 0
    ones_l = control.ss([], [], [], np.ones((p, 1)), dt_)
    ones_r = control.ss([], [], [], np.ones((1, m)), dt_)
    return control.series(right, s[0] * ones_r, ones_l, left) if p and m else left


def values_from_delta(problem: UncertainProblem, delta, w0):
    """Physical values ``{name: value}`` of a (normalised) perturbation matrix.

    ``delta`` is block-diagonal in the problem's structure (``n_w x n_z``).
    Real and complex scalars take the mean of their diagonal; LTI blocks become
    stable systems interpolating the block at ``w0``.
    """
    out = {}
    for bi in problem.blocks:
        blockd = delta[bi.w, bi.z]
        if bi.kind in ("real", "complex"):
            val = np.mean(np.diag(blockd))
            if bi.kind == "real":
                out[bi.name] = float(bi.element.denormalize(np.real(val)))
            else:
                out[bi.name] = complex(bi.element.denormalize(val))
        else:
            p, q = bi.element.shape
            first = blockd[:p, :q]
            out[bi.name] = ltidyn_interpolant(first * bi.element.bound, w0, problem.dt)
    return out


def unstable_centre_reason(problem: UncertainProblem, what: str) -> str:
    """Why an analysis stops at once: the loop is unstable with every element at its centre.

    Names the unstable poles, and says whether the centre is the nominal point, so a
    user who left a signal unconnected (an open loop) sees it at once.
    """
    ev = np.linalg.eigvals(problem.a) if problem.a.shape[0] else np.zeros(0)
    bad = ev[np.abs(ev) >= 1.0] if problem.dt else ev[ev.real >= 0]
    shown = ", ".join(f"{z:.4g}" for z in sorted(bad, key=lambda z: -z.real)[:4])
    more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
    off_nominal = [
        bi.name
        for bi in problem.blocks
        if bi.kind == "real" and not np.isclose(bi.element.center, bi.element.nominal)
    ]
    where = (
        "at the centre of the uncertainty ranges"
        if not off_nominal
        else "at the centre of the uncertainty ranges (not the nominal values for "
        + ", ".join(off_nominal)
        + ")"
    )
    return (
        f"{what}: the closed loop is unstable {where}, with {len(bad)} pole(s) "
        f"{'outside the unit circle' if problem.dt else 'in the closed right half-plane'}: "
        f"{shown}{more}; no margin or critical frequency exists (check the loop is closed: "
        "an unconnected signal leaves it open)"
    )


def nominal_unstable_note(problem: UncertainProblem, what: str) -> str:
    """A sentence for ``reason`` when the model is stable at the centre of the ranges but
    unstable at the nominal values (asymmetric ranges), else ``""``.

    The analyses normalise every range about its centre: their margins are scalings of
    the box about the centre model.  MATLAB's ``robstab`` scales about the nominal model
    instead, so when the nominal model is unstable the two disagree, and the user must
    be told that the nominal point lies inside the box, where the model is unstable.

    Examples
    --------
    >>> import control, robustmb as rmb
    >>> b = rmb.ureal("b", -0.1, range=(-0.2, 3.0))
    >>> s = control.tf("s")
    >>> problem = uncertain_problem(1 / (s + b))
    >>> nominal_unstable_note(problem, "robstab")[:53]
    '; note: the nominal model (every element at its nomin'
    """
    off = [
        bi
        for bi in problem.blocks
        if bi.kind == "real" and not np.isclose(bi.element.center, bi.element.nominal)
    ]
    if not off or problem.a.shape[0] == 0:
        return ""
    delta = np.zeros((problem.nw, problem.nz))
    for bi in off:
        value = float(bi.element.normalize(bi.element.nominal))
        delta[bi.w, bi.z] = value * np.eye(bi.w.stop - bi.w.start, bi.z.stop - bi.z.start)
    a, bw, cz, dzw = problem.m11
    lhs = np.eye(problem.nz) - dzw @ delta
    if np.linalg.cond(lhs) > 1e14:
        return (
            f"; note: the nominal model (every element at its nominal value) is not "
            f"well-posed; {what} measures about the centre of the ranges"
        )
    a_nom = a + bw @ delta @ np.linalg.solve(lhs, cz)
    if is_stable(a_nom, problem.dt):
        return ""
    ev = np.linalg.eigvals(a_nom)
    bad = ev[np.abs(ev) >= 1.0] if problem.dt else ev[ev.real >= 0]
    shown = ", ".join(f"{z:.4g}" for z in sorted(bad, key=lambda z: -z.real)[:4])
    centres = ", ".join(
        f"{bi.name}: nominal {bi.element.nominal:.6g}, centre {bi.element.center:.6g}" for bi in off
    )
    head = (
        f"; note: the nominal model (every element at its nominal value) is unstable, with "
        f"pole(s) {shown}; {what} normalises every range about its centre ({centres}), "
        "where the model is stable"
    )
    if what == "wcgain":
        return head + ", and the nominal point lies in the box analysed"
    return head + (
        ", so its margin is a scaling of the box about the centre model (MATLAB's robstab "
        "scales about the nominal model, which here is unstable: a margin of 0)"
    )
