"""
Bode and step responses of an uncertain mass-spring-damper
==========================================================

A mass on a spring and a damper, force to position, with the three
parameters known to within a few tens of percent.  We draw the Bode plot and
the step response of the nominal system and of 20 random samples, then ask
:func:`robustmb.wcgain` for the worst-case peak gain and overlay the
worst-case system on the Bode plot.
"""

# %%
# The uncertain model
# -------------------
# ``ureal`` declares a real parameter by name, nominal value and range.  The
# state-space form of :math:`m \ddot x + c \dot x + k x = F` with states
# :math:`(x, \dot x)` gives the uncertain system from force to position,
# :math:`G(s) = 1 / (m s^2 + c s + k)`; ``simplify`` leaves one occurrence of
# each parameter, which keeps the analysis below fast.
import robustmb as rmb
from robustmb import plotting

m = rmb.ureal("m", 1.0, percent=20)  # mass (kg)
c = rmb.ureal("c", 0.4, percent=30)  # damping (N s/m)
k = rmb.ureal("k", 1.0, percent=20)  # stiffness (N/m)
G = rmb.uss([[0, 1], [-k / m, -c / m]], [[0], [1 / m]], [[1, 0]], [[0]])
G = rmb.simplify(G)
print(G)

# %%
# Bode plot of 20 samples
# -----------------------
# ``plotting.bode`` draws the nominal system (blue) and 20 random samples
# (grey); ``seed`` makes the samples reproducible.
out = plotting.bode(G, n=20, seed=0)

# %%
# Step responses of the same samples
# ----------------------------------
out = plotting.step(G, n=20, seed=0)

# %%
# Worst-case gain, overlaid
# -------------------------
# ``rmb.wcgain`` bounds the peak gain over every parameter combination in the
# ranges, on the whole frequency axis.  ``lower`` is attained by the parameter
# values ``worst``; ``upper`` is certified.
wc = rmb.wcgain(G)
print(f"worst-case peak gain in [{wc.lower:.4f}, {wc.upper:.4f}]")
print(f"at {wc.critical_frequency:.3f} rad/s for", {n: round(v, 3) for n, v in wc.worst.items()})

# %%
# Passing the result as ``worst=`` adds the worst-case system (red) to any plot.
out = plotting.bode(G, n=20, seed=0, worst=wc)

# %%
# ``wcsigma`` shows the largest singular value with the certified bound: no
# sample rises above the dotted line, and the worst case found touches it.
out = plotting.wcsigma(G, wc, n=20, seed=0)
