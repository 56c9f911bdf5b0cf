"""Step responses of a worst-case report: nominal and worst case, with their overshoots."""

from __future__ import annotations

from dataclasses import dataclass, field

import control
import numpy as np
import scipy.linalg

N_STEP_SAMPLES = 20  # random samples drawn in the step-response figure
N_REFINE = 200  # exact samples between the neighbours of each candidate extremum


def refined_step(sys, t, y, i, j, n_candidates=3):
    """The step response ``y`` of ``sys`` (input ``j`` to output ``i``) on ``t`` with exact
    samples added around its largest maxima and minima.

    A uniform grid samples an oscillation's crest up to ``1 - cos(pi / N)`` of its
    amplitude below the top (1.2 % at ``N = 20`` points per period); between the
    neighbours of each of the ``n_candidates`` highest local maxima and lowest local
    minima, ``N_REFINE`` (200) samples of the exact response
    ``[x; 1](t) = expm([[A, b_j], [0, 0]] t) [0; 1]`` bring the extremes to within
    ``(pi / 2000)^2 / 2 = 1.3e-6`` of the amplitude on a grid of 20 points per
    period.  Discrete-time responses are exact at their samples and are returned
    unchanged.

    Returns
    -------
    t, y : numpy.ndarray
        Sorted times and the response values there.

    Examples
    --------
    >>> s = control.tf("s")
    >>> G = control.ss(1 / (s**2 + 0.2 * s + 1))  # zeta = 0.1: overshoot exp(-pi 0.1 / sqrt(0.99))
    >>> t = np.linspace(0, 20, 41)
    >>> y = control.step_response(G, T=t).outputs
    >>> _, yf = refined_step(G, t, y, 0, 0)
    >>> bool(abs(yf.max() - 1 - np.exp(-np.pi * 0.1 / np.sqrt(0.99))) < 1e-5)
    True
    """
    t, y = np.asarray(t, float), np.asarray(y, float)
    if sys.isdtime(strict=True) or t.size < 3 or not np.all(np.isfinite(y)):
        return t, y
    A, B = np.asarray(sys.A), np.asarray(sys.B)
    C, D = np.asarray(sys.C), np.asarray(sys.D)
    n = A.shape[0]
    inner = np.flatnonzero((y[1:-1] >= y[:-2]) & (y[1:-1] >= y[2:])) + 1
    lows = np.flatnonzero((y[1:-1] <= y[:-2]) & (y[1:-1] <= y[2:])) + 1
    cand = np.concatenate(
        [inner[np.argsort(-y[inner])][:n_candidates], lows[np.argsort(y[lows])][:n_candidates]]
    )
    if n == 0 or cand.size == 0:
        return t, y
    M = np.zeros((n + 1, n + 1))
    M[:n, :n], M[:n, n] = A, B[:, j]
    ts, ys = [t], [y]
    for k in np.unique(cand):
        a, b = t[k - 1], t[k + 1]
        h = (b - a) / N_REFINE
        z = scipy.linalg.expm(M * a)[:, n]
        step_h = scipy.linalg.expm(M * h)
        zs = np.empty((N_REFINE + 1, n + 1))
        for m in range(N_REFINE + 1):
            zs[m] = z
            z = step_h @ z
        ts.append(a + h * np.arange(N_REFINE + 1))
        ys.append(zs[:, :n] @ C[i] + D[i, j])
    tt, yy = np.concatenate(ts), np.concatenate(ys)
    order = np.argsort(tt, kind="stable")
    return tt[order], yy[order]


def overshoot(y, final):
    """Percent overshoot of a step response ``y`` settling at ``final`` (0 if none).

    Examples
    --------
    >>> round(overshoot([0.0, 1.2, 0.9, 1.0], 1.0), 9)
    20.0
    """
    y = np.asarray(y, float)
    if final == 0 or not np.isfinite(final):
        return float("nan")
    return float(max(0.0, 100.0 * (np.max(y / final) - 1.0)))


@dataclass
class StepAnalysis:
    """Step responses of ``system[outputs, inputs]``: nominal and the worst case of a channel.

    Attributes
    ----------
    outputs, inputs : list of str
    system : UncertainSystem
        The selection ``system[outputs, inputs]`` (drawn by :func:`robustmb.plotting.step`).
    worst_channel : str
        The performance channel whose worst-case parameter values are used.
    worst_values : dict
    time : numpy.ndarray
    nominal, worst : numpy.ndarray
        ``(ny, nu, n_time)`` step responses.
    """

    outputs: list
    inputs: list
    system: object = field(repr=False)
    worst_channel: str
    worst_values: dict
    time: np.ndarray = field(repr=False)
    nominal: np.ndarray = field(repr=False)
    worst: np.ndarray = field(repr=False)

    def metrics(self):
        """``[{input, output, final, overshoot_nominal, overshoot_worst, ...}]`` per diagonal pair.

        Final values are the DC gains; overshoots in percent of them; peaks are
        the largest response values, refined between the samples of ``time`` by
        :func:`refined_step` (to ``1.3e-6`` of an oscillation's amplitude
        on the default grid).  An unstable system (nominal or worst case) has no
        final value and no overshoot: both are NaN and ``stable_nominal`` /
        ``stable_worst`` say so (its response diverges).
        """
        nom_sys, worst_sys = self.system.nominal(), self.system.usubs(self.worst_values)
        nom_ss, worst_ss = control.ss(nom_sys), control.ss(worst_sys)
        stable = {"nominal": _is_stable(nom_sys), "worst": _is_stable(worst_sys)}
        shape = (len(self.outputs), len(self.inputs))
        dc = {
            key: np.atleast_2d(np.asarray(control.dcgain(g), float))
            if stable[key]
            else np.full(shape, np.nan)
            for key, g in (("nominal", nom_sys), ("worst", worst_sys))
        }
        out = []
        for i, o in enumerate(self.outputs):
            for j, u in enumerate(self.inputs):
                if len(self.outputs) == len(self.inputs) and i != j:
                    continue  # square selections: the diagonal (reference -> its output)
                _, y_nom = refined_step(nom_ss, self.time, self.nominal[i, j], i, j)
                _, y_worst = refined_step(worst_ss, self.time, self.worst[i, j], i, j)
                out.append(
                    {
                        "input": u,
                        "output": o,
                        "stable_nominal": stable["nominal"],
                        "stable_worst": stable["worst"],
                        "final_nominal": float(dc["nominal"][i, j]),
                        "final_worst": float(dc["worst"][i, j]),
                        "peak_nominal": float(np.max(y_nom)),
                        "peak_worst": float(np.max(y_worst)),
                        "overshoot_nominal": overshoot(y_nom, dc["nominal"][i, j]),
                        "overshoot_worst": overshoot(y_worst, dc["worst"][i, j]),
                    }
                )
        return out


def _is_stable(g):
    """Whether every pole of ``g`` is strictly stable (a step response then settles)."""
    if not g.nstates:
        return True
    poles = np.linalg.eigvals(np.asarray(g.A, float))
    if g.dt:
        return bool(np.all(np.abs(poles) < 1.0))
    return bool(np.all(poles.real < 0.0))
