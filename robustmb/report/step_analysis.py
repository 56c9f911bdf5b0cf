"""Step responses of a worst-case report: nominal and worst case, with their overshoots."""

from __future__ import annotations

from dataclasses import dataclass, field

import control
import numpy as np

N_STEP_SAMPLES = 20  # random samples drawn in the step-response figure


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
        the largest response values.  An unstable system (nominal or worst case)
        has no final value and no overshoot: both are NaN and ``stable_nominal`` /
        ``stable_worst`` say so (its response diverges).
        """
        nom_sys, worst_sys = self.system.nominal(), self.system.usubs(self.worst_values)
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
                out.append(
                    {
                        "input": u,
                        "output": o,
                        "stable_nominal": stable["nominal"],
                        "stable_worst": stable["worst"],
                        "final_nominal": float(dc["nominal"][i, j]),
                        "final_worst": float(dc["worst"][i, j]),
                        "peak_nominal": float(np.max(self.nominal[i, j])),
                        "peak_worst": float(np.max(self.worst[i, j])),
                        "overshoot_nominal": overshoot(self.nominal[i, j], dc["nominal"][i, j]),
                        "overshoot_worst": overshoot(self.worst[i, j], dc["worst"][i, j]),
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
