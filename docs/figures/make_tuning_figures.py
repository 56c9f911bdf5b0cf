"""Figures and numbers of docs/tuning.md (run: python docs/figures/make_tuning_figures.py)."""

from pathlib import Path

import control
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import robustmb as rmb
from robustmb.tuning import Margins, Tracking, analysis_point

HERE = Path(__file__).resolve().parent

# --- worked PID example ---------------------------------------------------------------
G = control.ss(control.tf([2.0], [1.0, 3.0, 2.0]), inputs="u", outputs="y", name="G")
C = rmb.tunable_pid("C", tf=0.05)
C.input_names, C.output_names = ["e"], ["u_in"]
S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
CL = rmb.connect([G, C, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
res = rmb.systune(CL, [Tracking("r", "y", 2.0)], [Margins("u", 6.0, 45.0)], random_start=2, seed=0)
print("PID values", {k: round(v, 4) for k, v in res.values.items()})
print("soft", res.soft, "hard", res.hard, "verify", res.verify())
T = res.closed_loop[0, 0]
t = np.linspace(0, 10, 500)
_, y = control.step_response(T, t)
ref = 1 - np.exp(-t * 2.0 / 2.0)  # first order at the tracking bandwidth wc = 2 / tau
fig, ax = plt.subplots(1, 2, figsize=(9, 3.2))
ax[0].plot(t, y, label="tuned PID")
ax[0].plot(t, ref, "--", label="first order at wc = 2/tau (tau = 2 s)")
ax[0].set_xlabel("time [s]")
ax[0].set_ylabel("y")
ax[0].legend()
v = res.values
s = control.tf("s")
L = (v["C.Kp"] + v["C.Ki"] / s + v["C.Kd"] * s / (0.05 * s + 1)) * control.tf(G)
w = np.logspace(-2, 2, 400)
Sm = np.abs(control.evalfr(control.feedback(1, L), 1j * w))
ax[1].loglog(w, Sm, label="|S|")
dm = rmb.diskmargin(L)
ax[1].axhline(1 / dm.alpha + 0.5, ls=":", c="k", label="disk-margin bound on |S|")
ax[1].set_xlabel("frequency [rad/s]")
ax[1].legend()
fig.tight_layout()
fig.savefig(HERE / "tuning_pid.png", dpi=110)
print("disk margin alpha", dm.alpha, "gain margins", dm.gain_margin, "phase", dm.phase_margin)

# --- worked scheduled-gain example -----------------------------------------------------
v = rmb.ureal("v", 2.0, range=(1.0, 4.0))  # actuator effectiveness, varies with operation
Gs = rmb.uss(v * control.tf([1.0], [1.0, 1.0]))
Gs.input_names, Gs.output_names, Gs.name = ["u"], ["y"], "G"
Integ = control.ss([[0.0]], [[1.0]], [[1.0]], [[0.0]], inputs="e", outputs="ie", name="I")
K = rmb.tunable_surface("K", (1, 2), v, basis="polynomial", degree=2)  # [Kp(v), Ki(v)]
K.input_names, K.output_names = ["e", "ie"], ["u_in"]
CLs = rmb.connect([Gs, Integ, K, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
grid = [{"v": x} for x in (1.0, 1.75, 2.5, 3.25, 4.0)]
rs = rmb.systune(CLs, [Tracking("r", "y", 0.5)], [Margins("u", 6.0, 45.0)], samples=grid, seed=0)
print("scheduled values", rs.values, "soft", rs.soft, "hard", rs.hard)
print("verify", rs.verify())
print("certified", rs.certified)
fig, ax = plt.subplots(figsize=(5, 3.2))
for pt in grid:
    _, yy = control.step_response(rs.closed_loop.usubs(pt)[0, 0], t)
    ax.plot(t, yy, label=f"v = {pt['v']}")
ax.set_xlabel("time [s]")
ax.set_ylabel("y")
ax.legend()
fig.tight_layout()
fig.savefig(HERE / "tuning_scheduled.png", dpi=110)
