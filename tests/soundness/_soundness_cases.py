"""Random and adversarial uncertain systems for the soundness harness.

Each generator returns a :class:`Case`: the uncertain system built through
robustmb's public constructors, and, independently, the numpy data the harness
uses for brute force (``evaluate``: closed-loop state-space matrices for given
normalised parameter values).  The brute force never goes through robustmb, so a
value lost while building the LFT (a dropped imaginary part, a wrong scaling)
shows up as a disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import control
import numpy as np
from _soundness_brute import affine_box_margin, close_dynamic, close_lft, slicot_hinf

import robustmb as rmb


@dataclass
class Param:
    """One uncertain element, in the harness's own terms."""

    name: str
    kind: str  # "real", "complex", "ltidyn"
    center: complex = 0.0  # range centre (real) or nominal (complex)
    scale: float = 1.0  # half width (real), radius (complex), bound (ltidyn)
    shape: tuple = (1, 1)  # ltidyn only

    def physical(self, delta):
        if self.kind == "ltidyn":
            return delta  # handled by the evaluator
        return self.center + self.scale * delta

    def normalize(self, value):
        if self.kind == "ltidyn":
            raise TypeError("ltidyn values are systems")
        return (value - self.center) / self.scale


@dataclass
class Case:
    """An uncertain system and its independent numpy description.

    ``evaluate(deltas)`` maps ``{name: normalised value}`` (real or complex
    numbers; for ``ltidyn`` a static matrix or an ``(a, b, c, d)`` tuple of a
    system with peak gain at most 1 times the scaling wanted) to the closed-loop
    ``(a, b, c, d)``, or ``None`` for an ill-posed member.
    """

    label: str
    usys: object
    params: list
    evaluate: object
    dt: float = 0.0
    affine: tuple | None = None  # (a0, [a_i per normalised parameter]) when A is affine
    complex_rank: tuple | None = None  # (a0, e) for a single complex parameter in A
    small_gain: tuple | None = None  # (a, b, c, d) of M11 for a single ltidyn element
    defect: str | None = None  # known issue-10 defect this case exercises
    tags: set = field(default_factory=set)


def _stable_matrix(rng, n, dt=0.0, margin=(0.2, 1.5), complex_data=False):
    a = rng.standard_normal((n, n))
    if complex_data:
        a = a + 1j * rng.standard_normal((n, n))
    if dt:
        rho = max(np.max(np.abs(np.linalg.eigvals(a))), 1e-9)
        return a * rng.uniform(0.4, 0.85) / rho
    shift = np.max(np.linalg.eigvals(a).real) + rng.uniform(*margin)
    return a - shift * np.eye(n)


def _similarity(rng, n, decades):
    """A diagonal state-coordinate change spanning ``decades`` orders of magnitude."""
    return np.diag(10.0 ** rng.uniform(-decades / 2, decades / 2, n))


def affine_real(
    rng,
    *,
    n=3,
    k=2,
    dt=0.0,
    rank_one=True,
    decades=0.0,
    ny=1,
    nu=1,
    margin_at_least=None,
    io_gain=1.0,
    unstable_centre=False,
):
    """``x' = (A0 + sum_i p_i E_i) x + B u``: real parameters entering A affinely.

    With ``margin_at_least = t`` the E_i are scaled so that the stability margin
    (over box directions, see ``affine_box_margin``) is about ``t``.  ``io_gain``
    scales C and D; ``unstable_centre`` moves one pole of A0 into the right half plane.
    """
    a0 = _stable_matrix(rng, n, dt)
    if unstable_centre:
        a0 = (
            a0 + (0.5 - np.max(np.linalg.eigvals(a0).real)) * np.eye(n)
            if not dt
            else 1.3 * a0 / (np.max(np.abs(np.linalg.eigvals(a0))))
        )
    mats, params = [], []
    for i in range(k):
        if rank_one:
            e = np.outer(rng.standard_normal(n), rng.standard_normal(n))
        else:
            e = rng.standard_normal((n, n))
        e *= rng.uniform(0.3, 1.5) * (np.linalg.norm(a0, 2) / np.linalg.norm(e, 2))
        if dt:
            e *= 0.3
        center = float(rng.uniform(-2, 2))
        hw = float(rng.uniform(0.2, 1.0))
        params.append(Param(f"p{i}", "real", center, hw))
        mats.append(e)
    b = rng.standard_normal((n, nu))
    c = rng.standard_normal((ny, n)) * io_gain
    d = rng.standard_normal((ny, nu)) * 0.1 * io_gain
    t = _similarity(rng, n, decades) if decades else np.eye(n)
    ti = np.linalg.inv(t)
    a0t, bt, ct = t @ a0 @ ti, t @ b, c @ ti
    matst = [t @ e @ ti for e in mats]
    if margin_at_least:
        scaled = [p.scale * e for p, e in zip(params, matst, strict=True)]
        m0 = affine_box_margin(a0t, scaled, dt)[0]
        if np.isfinite(m0):
            matst = [e * (m0 / margin_at_least) for e in matst]
    # a0 is the matrix at the range centres: the uncertain A is a0 + sum (p_i - c_i) E_i
    aconst = a0t - sum(p.center * e for p, e in zip(params, matst, strict=True))
    elements = [
        rmb.ureal(p.name, nominal, range=(p.center - p.scale, p.center + p.scale))
        for p, nominal in zip(
            params,
            [float(p.center + p.scale * rng.uniform(-0.9, 0.9)) for p in params],
            strict=True,
        )
    ]
    ua = rmb.umat(aconst)
    for el, e in zip(elements, matst, strict=True):
        ua = ua + el * e
    usys = rmb.uss(ua, bt, ct, d) if not dt else rmb.uss(ua, bt, ct, d, dt=dt)

    def evaluate(deltas):
        a = a0t + sum(deltas[p.name] * p.scale * e for p, e in zip(params, matst, strict=True))
        return a, bt, ct, d

    tags = {"real", "discrete" if dt else "continuous"}
    if decades:
        tags.add("badly-scaled")
    return Case(
        f"affine_real(n={n}, k={k}, dt={dt}, rank_one={rank_one}, decades={decades})",
        usys,
        params,
        evaluate,
        dt,
        affine=(a0t, [p.scale * e for p, e in zip(params, matst, strict=True)]),
        tags=tags,
    )


def stiff_chain(rng):
    """Two masses (1 g and 1 kg) joined by a 1e8 N/m spring; uncertain damping and wall spring.

    The slow mode has ``|Re lambda| ~ 1e-4`` against ``||A|| ~ 1e11`` (issue 10, item 4).
    """
    m1, m2, k = 1e-3, 1.0, 1e8
    c12 = rng.uniform(0.5, 2.0)
    kw_c, kw_hw = 1.0, rng.uniform(0.2, 0.6)
    cw_c, cw_hw = 1e-3 * rng.uniform(1, 3), 1e-3 * rng.uniform(0.2, 0.5)

    def amat(kw, cw):
        return np.array(
            [
                [0, 0, 1, 0],
                [0, 0, 0, 1],
                [-k / m1, k / m1, -c12 / m1, c12 / m1],
                [k / m2, -(k + kw) / m2, c12 / m2, -(c12 + cw) / m2],
            ]
        )

    b = np.array([[0.0], [0.0], [1 / m1], [0.0]])
    c = np.array([[0.0, 1.0, 0.0, 0.0]])
    d = np.zeros((1, 1))
    kw = rmb.ureal("kw", kw_c, plusminus=kw_hw)
    cw = rmb.ureal("cw", cw_c, plusminus=cw_hw)
    ek = np.zeros((4, 4))
    ek[3, 1] = -1 / m2
    ec = np.zeros((4, 4))
    ec[3, 3] = -1 / m2
    ua = rmb.umat(amat(0.0, 0.0)) + kw * ek + cw * ec
    usys = rmb.uss(ua, b, c, d)
    params = [Param("kw", "real", kw_c, kw_hw), Param("cw", "real", cw_c, cw_hw)]

    def evaluate(deltas):
        return amat(kw_c + kw_hw * deltas["kw"], cw_c + cw_hw * deltas["cw"]), b, c, d

    return Case(
        "stiff_chain(1e8 N/m, 1 g / 1 kg)",
        usys,
        params,
        evaluate,
        affine=(amat(kw_c, cw_c), [kw_hw * ek, cw_hw * ec]),
        defect="4",
        tags={"real", "stiff", "continuous"},
    )


def complex_affine(rng, *, n=3, complex_a0=False, dt=0.0):
    """``A0 + c E`` with a ``ucomplex`` c of complex nominal (complex-coefficient system)."""
    a0 = _stable_matrix(rng, n, dt, complex_data=complex_a0)
    e = np.outer(rng.standard_normal(n), rng.standard_normal(n))
    e *= np.linalg.norm(a0, 2) / np.linalg.norm(e, 2) * rng.uniform(0.3, 1.0)
    nominal = complex(rng.uniform(-1, 1), rng.uniform(-1, 1))
    radius = float(rng.uniform(0.3, 1.5))
    el = rmb.ucomplex("c", nominal, radius=radius)
    b = rng.standard_normal((n, 1))
    cc = rng.standard_normal((1, n))
    d = np.zeros((1, 1))
    usys = rmb.uss(rmb.umat(a0 - nominal * e) + el * e, b, cc, d, **({"dt": dt} if dt else {}))

    def evaluate(deltas):
        return a0 + radius * deltas["c"] * e, b, cc, d

    return Case(
        f"complex_affine(n={n}, complex_a0={complex_a0}, dt={dt})",
        usys,
        [Param("c", "complex", nominal, radius)],
        evaluate,
        dt,
        complex_rank=(a0, radius * e),
        defect="1",
        tags={"complex", "complex-coefficient", "discrete" if dt else "continuous"},
    )


def complex_gain_loop(rng, *, n=3):
    """``feedback(c G, 1)`` with G real and c a ``ucomplex`` of complex nominal (built from LTI)."""
    a = _stable_matrix(rng, n)
    b = rng.standard_normal((n, 1))
    cc = rng.standard_normal((1, n))
    g = control.ss(a, b, cc, 0)
    gain0 = np.max(np.abs(np.linalg.eigvals(a))) / max(np.linalg.norm(b) * np.linalg.norm(cc), 1e-9)
    nominal = complex(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)) * gain0
    radius = float(rng.uniform(0.3, 1.0) * gain0)
    el = rmb.ucomplex("c", nominal, radius=radius)
    usys = rmb.feedback(el * g, 1)
    bc = b @ cc

    def evaluate(deltas):
        k = nominal + radius * deltas["c"]
        return a - k * bc, k * b, cc, np.zeros((1, 1))

    return Case(
        f"complex_gain_loop(n={n})",
        usys,
        [Param("c", "complex", nominal, radius)],
        evaluate,
        complex_rank=(a - nominal * bc, -radius * bc),
        defect="1",
        tags={"complex", "complex-coefficient", "continuous"},
    )


def lft_case(rng, kinds, *, n=3, dt=0.0, ny=1, nu=1, small_gain_margin=None):
    """``Fu(M, Delta)`` with M random (real, stable) and Delta = diag of the given element kinds.

    ``kinds`` lists ``"real"``, ``"complex"`` (real nominal: a real system) or
    ``("ltidyn", p, q)``.  Ranges are centred on zero (nominals elsewhere in them).
    With ``small_gain_margin = t`` the Delta channels of M are scaled so that
    ``||M11 diag(scales)||_inf = 1 / t``: the loop is then robustly stable with a
    margin of at least ``t`` (small-gain theorem), as worst-case gain needs.
    """
    params, elements, sizes = [], [], []
    for i, kind in enumerate(kinds):
        if kind == "real":
            hw = float(rng.uniform(0.2, 1.0))
            params.append(Param(f"r{i}", "real", 0.0, hw))
            nominal = float(hw * rng.uniform(-0.8, 0.8))
            elements.append(rmb.ureal(f"r{i}", nominal, range=(-hw, hw)))
            sizes.append((1, 1))
        elif kind == "complex":
            rad = float(rng.uniform(0.3, 1.0))
            params.append(Param(f"c{i}", "complex", 0.0, rad))
            elements.append(rmb.ucomplex(f"c{i}", 0.0, radius=rad))
            sizes.append((1, 1))
        else:
            _, p, q = kind
            bound = float(rng.uniform(0.3, 2.0))
            params.append(Param(f"d{i}", "ltidyn", 0.0, bound, (p, q)))
            elements.append(rmb.ultidyn(f"d{i}", (p, q), bound=bound))
            sizes.append((p, q))
    nw = sum(s[0] for s in sizes)
    nz = sum(s[1] for s in sizes)
    a = _stable_matrix(rng, n, dt)
    b = rng.standard_normal((n, nw + nu))
    c = rng.standard_normal((nz + ny, n))
    d = rng.standard_normal((nz + ny, nw + nu)) * 0.3
    if small_gain_margin:
        pairs = zip(params, sizes, strict=True)
        scales = np.concatenate([np.full(p, prm.scale) for prm, (p, _q) in pairs])
        m11 = (a, b[:, :nw] * scales, c[:nz], d[:nz, :nw] * scales)
        gamma = slicot_hinf(*m11, dt=dt)[0]
        b[:, :nw] /= gamma * small_gain_margin
        d[:, :nw] /= gamma * small_gain_margin
    if dt:
        m = control.ss(a, b, c, d, dt)
    else:
        m = control.ss(a, b, c, d)
    usys = rmb.lft_upper(m, rmb.block_diag(*elements) if len(elements) > 1 else elements[0])

    def evaluate(deltas):
        static = np.zeros((nw, nz), complex)
        dyn = None
        i = j = 0
        for prm, (p, q) in zip(params, sizes, strict=True):
            v = deltas[prm.name]
            if prm.kind == "ltidyn":
                if isinstance(v, tuple):
                    dyn = (prm, i, j, v)
                else:
                    static[i : i + p, j : j + q] = prm.scale * np.asarray(v)
            else:
                static[i, j] = prm.physical(v)
            i, j = i + p, j + q
        if not np.any(static.imag):
            static = static.real
        if dyn is None:
            return close_lft(a, b, c, d, nw, nz, static)
        prm, i0, j0, (ad, bd, cd, dd) = dyn
        p, q = prm.shape
        # the dynamic block as a state-space block diagonal with the static part
        k = ad.shape[0]
        big_b = np.zeros((k, nz))
        big_b[:, j0 : j0 + q] = bd
        big_c = np.zeros((nw, k))
        big_c[i0 : i0 + p] = prm.scale * cd
        big_d = static.astype(complex) if np.iscomplexobj(static) else static.copy()
        big_d[i0 : i0 + p, j0 : j0 + q] = prm.scale * dd
        return close_dynamic(a, b, c, d, nw, nz, (ad, big_b, big_c, big_d))

    small_gain = None
    if len(kinds) == 1 and not isinstance(kinds[0], str):
        small_gain = (a, b[:, :nw], c[:nz], d[:nz, :nw])
    names = "+".join(k if isinstance(k, str) else "ltidyn" for k in kinds)
    tags = {k if isinstance(k, str) else "ltidyn" for k in kinds}
    tags.add("discrete" if dt else "continuous")
    if len(tags) > 2:
        tags.add("mixed")
    return Case(
        f"lft({names}, n={n}, dt={dt})",
        usys,
        params,
        evaluate,
        dt,
        small_gain=small_gain,
        tags=tags,
    )


def mass_spring_pid(rng):
    """A mass-spring-damper with uncertain m, c, k under PID control (rational dependence)."""
    mc, mh = rng.uniform(0.5, 2.0), rng.uniform(0.1, 0.4)
    cc, ch = rng.uniform(0.2, 1.0), rng.uniform(0.05, 0.2)
    kc, kh = rng.uniform(0.5, 3.0), rng.uniform(0.1, 0.8)
    kp, ki, kd, tau = rng.uniform(1, 5), rng.uniform(0.2, 2), rng.uniform(0.2, 1.5), 0.05
    s = control.tf("s")
    m = rmb.ureal("m", mc, plusminus=mh)
    c = rmb.ureal("c", cc, plusminus=ch)
    k = rmb.ureal("k", kc, plusminus=kh)
    ctrl = kp + ki / s + kd * s / (tau * s + 1)
    usys = rmb.feedback(1 / (m * s * s + c * s + k) * ctrl, 1)
    params = [Param("m", "real", mc, mh), Param("c", "real", cc, ch), Param("k", "real", kc, kh)]

    def evaluate(deltas):
        mv, cv, kv = (p.physical(deltas[p.name]) for p in params)
        g = control.tf([1.0], [mv, cv, kv])
        cl = control.ss(control.feedback(g * ctrl, 1))
        return cl.A, cl.B, cl.C, cl.D

    return Case(
        "mass_spring_pid",
        usys,
        params,
        evaluate,
        tags={"real", "rational", "continuous"},
    )


# ---------------------------------------------------------------------------
# The registry: name -> (builder(rng), analyses it is used for)

GENERATORS = {
    "affine_real_k1": (lambda r: affine_real(r, k=1), ("robstab",)),
    "affine_real_k2": (lambda r: affine_real(r, k=2), ("robstab",)),
    "affine_real_k3_full_rank": (lambda r: affine_real(r, k=3, rank_one=False), ("robstab",)),
    "affine_real_discrete": (lambda r: affine_real(r, k=2, dt=0.1), ("robstab",)),
    "affine_real_badly_scaled": (lambda r: affine_real(r, k=2, decades=6), ("robstab",)),
    "affine_real_n5_k4": (lambda r: affine_real(r, n=5, k=4), ("robstab",)),
    "stiff_chain": (stiff_chain, ("robstab",)),
    "unstable_centre": (
        lambda r: affine_real(r, k=2, unstable_centre=True),
        ("robstab", "wcgain", "robgain"),
    ),
    "complex_affine": (lambda r: complex_affine(r), ("robstab",)),
    "complex_affine_complex_a0": (lambda r: complex_affine(r, complex_a0=True), ("robstab",)),
    "complex_gain_loop": (complex_gain_loop, ("robstab",)),
    "complex_affine_discrete": (lambda r: complex_affine(r, dt=0.2), ("robstab",)),
    "lft_ltidyn": (lambda r: lft_case(r, [("ltidyn", 1, 1)]), ("robstab",)),
    "lft_ltidyn_2x2": (lambda r: lft_case(r, [("ltidyn", 2, 2)]), ("robstab",)),
    "lft_ltidyn_discrete": (lambda r: lft_case(r, [("ltidyn", 1, 1)], dt=0.1), ("robstab",)),
    "lft_mixed_real_ltidyn": (lambda r: lft_case(r, ["real", ("ltidyn", 1, 1)]), ("robstab",)),
    "lft_complex_real": (lambda r: lft_case(r, ["complex", "real"]), ("robstab",)),
    "lft_three_real": (lambda r: lft_case(r, ["real", "real", "real"]), ("robstab",)),
    "mass_spring_pid": (mass_spring_pid, ("robstab",)),
    # robustly stable by construction: worst-case gain and robust performance
    "wc_affine_real": (lambda r: affine_real(r, k=2, margin_at_least=1.5), ("wcgain", "robgain")),
    "wc_affine_discrete": (
        lambda r: affine_real(r, k=2, dt=0.1, margin_at_least=1.3),
        ("wcgain", "robgain"),
    ),
    "wc_affine_badly_scaled": (
        lambda r: affine_real(r, k=1, decades=6, margin_at_least=1.5),
        ("wcgain", "robgain"),
    ),
    "wc_affine_large_gain": (
        lambda r: affine_real(r, k=2, margin_at_least=1.5, io_gain=1e6),
        ("wcgain", "robgain"),
    ),
    "wc_affine_small_gain": (
        lambda r: affine_real(r, k=2, margin_at_least=1.5, io_gain=1e-6),
        ("wcgain", "robgain"),
    ),
    "wc_not_robustly_stable": (
        lambda r: affine_real(r, k=1, margin_at_least=0.6),
        ("wcgain", "robgain"),
    ),
    "wc_lft_ltidyn": (
        lambda r: lft_case(r, [("ltidyn", 1, 1)], small_gain_margin=1.2),
        ("wcgain", "robgain"),
    ),
    "wc_lft_mixed": (
        lambda r: lft_case(r, ["real", ("ltidyn", 1, 1)], small_gain_margin=1.2),
        ("wcgain", "robgain"),
    ),
    "wc_lft_real_real": (
        lambda r: lft_case(r, ["real", "real"], small_gain_margin=1.1),
        ("wcgain", "robgain"),
    ),
    "wc_lft_complex": (
        lambda r: lft_case(r, ["complex", "real"], small_gain_margin=1.2),
        ("wcgain", "robgain"),
    ),
}


def build(name, seed):
    """The case ``name`` drawn with seed ``seed``."""
    builder, _ = GENERATORS[name]
    return builder(np.random.default_rng(seed))
