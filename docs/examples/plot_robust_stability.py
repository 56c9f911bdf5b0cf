"""
Robust stability of a feedback loop: mu bounds and the destabilising case
=========================================================================

A PI controller on a lightly damped plant whose gain and damping ratio are
uncertain.  :func:`robustmb.robstab` returns the robust stability margin with
its evidence (mu bounds over frequency) and the parameter values that put a
closed-loop pole on the imaginary axis.
"""

# %%
import control

import robustmb as rmb
from robustmb import plotting

s = control.tf("s")
K = rmb.ureal("K", 2.0, percent=50)  # plant gain
zeta = rmb.ureal("zeta", 0.3, range=(0.1, 0.5))  # damping ratio of the resonance
wn = 3.0  # natural frequency (rad/s)
plant = K * wn**2 / (s**2 + 2 * zeta * wn * s + wn**2)
controller = 0.15 * (1 + 1 / s)
loop = rmb.feedback(plant * controller, 1)

rs = rmb.robstab(loop)
print(f"stability margin in [{rs.lower:.3f}, {rs.upper:.3f}] (1 = the declared ranges)")
print("destabilising values:", {n: round(v, 3) for n, v in rs.destabilizing.items()})

# %%
# A margin above 1 means every parameter combination inside the declared
# ranges is stable: the destabilising damping ratio lies below the range
# ``[0.1, 0.5]``.
#
# mu over frequency
# -----------------
# The margin is one over the peak of mu.  The upper bound is certified on the
# whole frequency axis; the lower bound is drawn where it was searched.
out = plotting.mu_bounds(rs)

# %%
# Step responses with the destabilising case
# ------------------------------------------
# With the ``robstab`` result as ``worst=``, the red curve is the loop at the
# destabilising values: it oscillates without decaying at the critical
# frequency, while every sample inside the ranges settles.
out = plotting.step(loop, n=20, seed=1, worst=rs)

# %%
# The same loop over a grid of damping ratios (gain at its nominal value):
# ``grid=`` replaces the random samples by the grid's points.
out = plotting.bode(loop, grid={"zeta": [0.1, 0.2, 0.3, 0.4, 0.5]})
