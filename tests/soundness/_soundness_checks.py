"""Certificate checks: robustmb's answers against the brute force of ``_soundness_brute``.

Every check returns a :class:`Verdict`: the list of violations (a certified bound
contradicted by a brute-force value, or a reported perturbation that does not do
what it claims) and the numbers behind it, so a failing test prints input,
reported value and brute-force value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import control
import numpy as np
import scipy.linalg as sla
from _soundness_brute import (
    affine_box_margin,
    boundary_pole,
    complex_disc_margin,
    grid_peak,
    slicot_hinf,
    unstable,
)

REL = 1e-6  # relative slack on certified bounds (bisection tolerances are ~1e-4 of a gap)


@dataclass
class Verdict:
    label: str
    violations: list = field(default_factory=list)
    numbers: dict = field(default_factory=dict)

    def fail(self, what, **numbers):
        self.violations.append(what + " " + ", ".join(f"{k}={v!r}" for k, v in numbers.items()))

    @property
    def ok(self):
        return not self.violations

    def __str__(self):
        head = f"{self.label}: {self.numbers}"
        return head + "".join("\n  VIOLATION: " + v for v in self.violations)


# ---------------------------------------------------------------------------
# Samples of the normalised uncertainty set


def _allpass(a, dt):
    """A scalar stable all-pass of unit peak gain: ``(ad, bd, cd, dd)``."""
    if dt:  # (1 - a z) / (z - a), pole a inside the unit disc
        return np.array([[a]]), np.array([[1.0]]), np.array([[1 - a * a]]), np.array([[-a]])
    return np.array([[-a]]), np.array([[1.0]]), np.array([[-2 * a]]), np.array([[1.0]])


def _ltidyn_sample(rng, shape, t, dt, kind):
    """Normalised LTI perturbation with peak gain ``t``: static or all-pass, rank one."""
    p, q = shape
    u = rng.standard_normal(p)
    v = rng.standard_normal(q)
    u /= np.linalg.norm(u)
    v /= np.linalg.norm(v)
    if kind == "static":
        return t * np.outer(u, v)
    a = rng.uniform(-0.95, 0.95) if dt else 10 ** rng.uniform(-2, 2)
    ad, bd, cd, dd = _allpass(a, dt)
    return ad, bd @ v[None, :], t * np.outer(u, cd[0]), t * dd[0, 0] * np.outer(u, v)


def samples(case, t, rng, n_random=60):
    """Normalised points of the set scaled by ``t``: vertices, boundary and interior points."""
    scalar = [p for p in case.params if p.kind != "ltidyn"]
    lti = [p for p in case.params if p.kind == "ltidyn"]
    pts = []
    k = len(scalar)
    if 0 < k <= 8:
        for bits in np.array(np.meshgrid(*[[-1.0, 1.0]] * k, indexing="ij")).reshape(k, -1).T:
            pts.append(dict(zip([p.name for p in scalar], bits, strict=True)))
    for i in range(n_random):
        d = {}
        for p in scalar:
            if p.kind == "real":
                d[p.name] = rng.uniform(-1, 1) if i % 2 else rng.choice([-1.0, 1.0])
            else:
                r = 1.0 if i % 2 == 0 else np.sqrt(rng.uniform())
                d[p.name] = r * np.exp(2j * np.pi * rng.uniform())
        pts.append(d)
    out = []
    for i, d in enumerate(pts or [{}]):
        d = {name: t * v for name, v in d.items()}
        for p in lti:
            kind = "static" if i % 3 == 0 else "allpass"
            d[p.name] = _ltidyn_sample(rng, p.shape, t, case.dt, kind)
        out.append(d)
    return out


def _zero(case):
    return {p.name: (np.zeros(p.shape) if p.kind == "ltidyn" else 0.0) for p in case.params}


def normalise(case, values):
    """``{name: normalised value}`` of a reported value dict, and its largest norm."""
    out, size = {}, 0.0
    for p in case.params:
        v = values[p.name]
        if p.kind == "ltidyn":
            if isinstance(v, control.LTI):
                ss = control.ss(v)
                sysn = (ss.A, ss.B, ss.C / p.scale, ss.D / p.scale)
                g = slicot_hinf(*sysn, dt=case.dt)[0] if ss.nstates else np.linalg.norm(sysn[3], 2)
                out[p.name] = sysn if ss.nstates else sysn[3]
            else:
                out[p.name] = np.asarray(v, float) / p.scale
                g = np.linalg.norm(out[p.name], 2) if out[p.name].size else 0.0
            size = max(size, g)
        else:
            out[p.name] = complex(p.normalize(v)) if p.kind == "complex" else p.normalize(v)
            size = max(size, abs(out[p.name]))
    return out, size


def _scaled(deltas, f):
    out = {}
    for name, v in deltas.items():
        if isinstance(v, tuple):
            out[name] = (v[0], v[1], f * np.asarray(v[2]), f * np.asarray(v[3]))
        else:
            out[name] = f * v
    return out


def _evaluate(case, deltas):
    # ltidyn entries given as static matrices or (a, b, c, d) tuples
    fixed = {}
    for name, v in deltas.items():
        if isinstance(v, tuple) and len(v) == 4 and np.asarray(v[0]).size == 0:
            v = np.asarray(v[3])
        fixed[name] = v
    return case.evaluate(fixed)


def peak(case, sysdata):
    """Brute-force peak gain: SLICOT AB13DD for real data, a refined dense grid otherwise."""
    a, b, c, d = sysdata
    if unstable(a, case.dt, rtol=1e-9):
        return np.inf
    real = not any(np.iscomplexobj(x) and np.any(np.imag(x)) for x in sysdata)
    g_grid = grid_peak(a, b, c, d, case.dt)[0]
    if real:
        g_slicot = slicot_hinf(np.real(a), np.real(b), np.real(c), np.real(d), case.dt)[0]
        return max(g_grid, g_slicot)
    return g_grid


# ---------------------------------------------------------------------------
# robstab


def exact_margin(case):
    """The exact (or, over finitely many box directions, slightly high) stability margin.

    Returns ``(margin, witness)``: ``witness(t)`` is the normalised point at scaling
    ``t`` along the critical direction (``None`` when the margin comes from the
    small-gain theorem, whose critical perturbation is not formed here).
    """
    if case.affine is not None:
        a0, mats = case.affine
        t, direction, _ = affine_box_margin(a0, mats, case.dt)
        names = [p.name for p in case.params]
        if direction is None:
            return t, None
        return t, lambda s: dict(zip(names, s * direction, strict=True))
    if case.complex_rank is not None:
        t, w = complex_disc_margin(*case.complex_rank, dt=case.dt)
        a0, e = case.complex_rank
        s0 = np.exp(1j * w * case.dt) if case.dt else 1j * w
        ev = sla.eigvals(s0 * np.eye(a0.shape[0]) - a0, e)
        ev = ev[np.isfinite(ev)]
        delta = ev[int(np.argmin(np.abs(ev)))] if ev.size else 0.0
        name = case.params[0].name
        return t, lambda s: {name: s * delta / abs(delta) if delta else 0.0}
    if case.small_gain is not None:
        a, b, c, d = case.small_gain
        g = slicot_hinf(a, b, c, d, case.dt)[0]
        prm = case.params[0]
        return (np.inf if g == 0 else 1.0 / (prm.scale * g)), None
    return None, None


def check_robstab(case, res, rng, n_random=60):
    """No member inside ``lower`` times the set is unstable; ``upper`` is a verified crossing."""
    v = Verdict(case.label)
    lower, upper = float(res.lower), float(res.upper)
    v.numbers.update(lower=lower, upper=upper, crit=float(res.critical_frequency))
    centre = _evaluate(case, _zero(case))
    if centre is None or unstable(centre[0], case.dt):
        v.numbers["centre"] = "unstable"
        if lower > 0:
            v.fail("nominally unstable loop certified", lower=lower)
        return v
    if lower > upper * (1 + REL):
        v.fail("lower above upper", lower=lower, upper=upper)
    exact, witness = exact_margin(case)
    if exact is not None:
        v.numbers["brute_margin"] = exact
        if lower > exact * (1 + REL):
            # a false certificate needs an unstable member inside lower times the set
            confirmed = witness is None
            hi = lower * (1 - REL) if np.isfinite(lower) else 10 * exact
            for s in np.linspace(exact * (1 + 1e-6), hi, 8):
                if witness is None:
                    break
                sysdata = _evaluate(case, witness(s))
                if sysdata is None or unstable(sysdata[0], case.dt):
                    confirmed = True
                    break
            if confirmed:
                v.fail("certified margin above the exact margin", lower=lower, exact=exact)
            else:
                v.numbers["note"] = "brute crossing is a touch, no unstable member inside lower"
    # dense sampling just inside the certified set
    t = lower * (1 - REL) if np.isfinite(lower) else 1e3
    worst = -np.inf
    for d in samples(case, t, rng, n_random):
        sysdata = _evaluate(case, d)
        if sysdata is None:
            v.fail("ill-posed member inside the certified set", point=d)
            break
        a = sysdata[0]
        if unstable(a, case.dt):
            ev = np.linalg.eigvals(a)
            v.fail(
                "unstable member inside the certified set",
                scale=t,
                point={k: x for k, x in d.items() if not isinstance(x, tuple)},
                max_re=float(np.max(np.abs(ev)) - 1 if case.dt else np.max(ev.real)),
            )
            break
        worst = max(worst, float(np.max(np.linalg.eigvals(a).real)) if a.size else -np.inf)
    # the reported destabilising perturbation
    if np.isfinite(upper):
        try:
            deltas, size = normalise(case, res.destabilizing)
        except KeyError as exc:
            v.fail("destabilizing values incomplete", missing=str(exc))
            return v
        v.numbers["destab_size"] = size
        if size > upper * (1 + 1e-5) + 1e-12:
            v.fail("destabilizing values outside upper times the set", size=size, upper=upper)
        sysdata = _evaluate(case, deltas)
        if sysdata is not None:
            on, w = boundary_pole(sysdata[0], case.dt)
            # a crossing at s = 0 leaves a pole at rounding level: the loop just beyond
            # the reported values (1e-4 further along the same direction) must be unstable
            beyond = _evaluate(case, _scaled(deltas, 1 + 1e-4))
            on = on or beyond is None or unstable(beyond[0], case.dt, rtol=0.0)
            if not on:
                ev = np.linalg.eigvals(sysdata[0])
                v.fail(
                    "destabilizing values leave the loop stable",
                    poles=np.sort_complex(ev)[-3:].tolist(),
                )
            v.numbers["brute_crit"] = w
            crit = float(res.critical_frequency)
            if np.isinf(crit) and not case.dt:
                # a pole escaping to infinity (e.g. a mass through 0): the boundary pole
                # must be far larger than every other pole of the loop
                ev = np.sort(np.abs(np.linalg.eigvals(sysdata[0])))
                if ev.size < 2 or ev[-1] < 1e4 * max(ev[-2], 1.0):
                    v.fail("critical frequency inf but no pole escapes", poles=ev[-2:].tolist())
            elif (
                on
                and boundary_pole(sysdata[0], case.dt)[0]
                and not (abs(crit - w) <= 1e-3 * max(1.0, abs(w)))
            ):
                v.fail("critical frequency is not the boundary pole's", reported=crit, pole=w)
    elif exact is not None and np.isfinite(exact):
        v.fail("upper is infinite but the exact margin is finite", exact=exact)
    if np.isfinite(upper):
        if exact is not None and upper < exact * (1 - 1e-4) and len(case.params) == 1:
            v.fail("upper below the exact margin (one element)", upper=upper, exact=exact)
    return v


# ---------------------------------------------------------------------------
# wcgain


def check_wcgain(case, res, rng, n_random=40):
    """``upper`` is at least every sampled peak gain; ``lower`` is the gain of ``worst``."""
    v = Verdict(case.label)
    lower, upper = float(res.lower), float(res.upper)
    v.numbers.update(lower=lower, upper=upper)
    best = -np.inf
    for d in samples(case, 1.0, rng, n_random):
        sysdata = _evaluate(case, d)
        g = np.inf if sysdata is None else peak(case, sysdata)
        best = max(best, g)
        if g > upper * (1 + REL):
            v.fail(
                "sampled gain above the certified upper bound",
                gain=g,
                upper=upper,
                point={k: x for k, x in d.items() if not isinstance(x, tuple)},
            )
            break
    v.numbers["brute_max"] = best
    if res.worst and np.isfinite(lower):
        deltas, size = normalise(case, res.worst)
        v.numbers["worst_size"] = size
        if size > 1 + 1e-9:
            v.fail("worst-case values outside the set", size=size)
        sysdata = _evaluate(case, deltas)
        g = np.inf if sysdata is None else peak(case, sysdata)
        v.numbers["worst_gain"] = g
        if g < lower * (1 - 1e-5):
            v.fail("worst-case values do not reach lower", gain=g, lower=lower)
    elif np.isfinite(lower) and lower > 0:
        v.fail("lower bound without worst-case values", lower=lower)
    return v


# ---------------------------------------------------------------------------
# robgain


def check_robgain(case, res, rng, n_random=40):
    """No member inside ``lower`` times the set has gain >= gamma; ``worst`` reaches gamma."""
    v = Verdict(case.label)
    lower, upper, gamma = float(res.lower), float(res.upper), float(res.gamma)
    v.numbers.update(lower=lower, upper=upper, gamma=gamma)
    t = lower * (1 - REL)
    best = -np.inf
    for d in samples(case, t, rng, n_random) if lower > 0 else []:  # lower = 0 claims nothing
        sysdata = _evaluate(case, d)
        g = np.inf if sysdata is None else peak(case, sysdata)
        best = max(best, g)
        if g >= gamma * (1 + REL):
            v.fail("gain reaches gamma inside the certified scaling", gain=g, scale=t)
            break
    v.numbers["brute_max_inside"] = best
    if upper == 0 and not res.worst:
        # a zero margin claims the centre of the set itself reaches gamma
        centre = {p.name: 0.0 for p in case.params if p.kind != "ltidyn"}
        centre.update({p.name: np.zeros(p.shape) for p in case.params if p.kind == "ltidyn"})
        sysdata = _evaluate(case, centre)
        g = np.inf if sysdata is None else peak(case, sysdata)
        v.numbers["centre_gain"] = g
        if g < gamma * (1 - 1e-5):
            v.fail("zero margin but the centre does not reach gamma", gain=g, gamma=gamma)
    elif np.isfinite(upper):
        if not res.worst:
            v.fail("finite upper without values reaching gamma", upper=upper)
            return v
        deltas, size = normalise(case, res.worst)
        sysdata = _evaluate(case, deltas)
        g = np.inf if sysdata is None else peak(case, sysdata)
        v.numbers.update(worst_size=size, worst_gain=g)
        if size > upper * (1 + 1e-5) + 1e-12:
            v.fail("worst values beyond upper times the set", size=size, upper=upper)
        if g < gamma * (1 - 1e-5):
            v.fail("worst values do not reach gamma", gain=g, gamma=gamma)
    elif lower > 0:
        # an infinite upper bound claims no finite scaling reaches gamma
        for f in (1.5, 3.0, 10.0):
            hits = [
                d
                for d in samples(case, f * lower, rng, 20)
                if (sd := _evaluate(case, d)) is None or peak(case, sd) >= gamma
            ]
            if hits:
                v.fail("upper is infinite but a finite scaling reaches gamma", scale=f * lower)
                break
    return v


# ---------------------------------------------------------------------------
# One case, one analysis


def run(name, seed, analysis):
    """Build case ``name`` with ``seed``, run ``analysis`` on it, check it: a :class:`Verdict`."""
    import warnings

    from _soundness_cases import build

    import robustmb as rmb

    case = build(name, seed)
    rng = np.random.default_rng(1000 + seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if analysis == "robstab":
            res = rmb.robstab(case.usys, sensitivity=False)
            v = check_robstab(case, res, rng)
        elif analysis == "wcgain":
            res = rmb.wcgain(case.usys)
            v = check_wcgain(case, res, rng)
        elif analysis == "robgain":
            a, b, c, d = case.evaluate(_zero(case))
            g0 = peak(case, (a, b, c, d))
            gamma = 1.2 * g0 if np.isfinite(g0) else 1.0  # unstable centre: any level
            res = rmb.robgain(case.usys, gamma)
            v = check_robgain(case, res, rng)
        else:
            raise ValueError(analysis)
    v.label = f"{name}[seed={seed}] {analysis}: {case.label}"
    v.numbers["defect"] = case.defect
    return v
