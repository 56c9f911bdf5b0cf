"""Figures of docs/synthesis.md: run `PYTHONPATH=$PWD python docs/synthesis_figures.py`."""

from pathlib import Path

import control
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb.synthesis.plant import closed_loop, partition_plant  # noqa: E402

out = Path(__file__).resolve().parent / "figures"
d = rmb.ultidyn("d", (1, 1), bound=0.5)
G = rmb.uss(control.tf([1.0], [1.0, 1.0])) * (1 + d)
W = rmb.uss(control.tf([0.5, 0.5], [1.0, 0.01]))
P = rmb.vstack(W, 1.0) * rmb.hstack(1.0, -G)

hinf = rmb.hinfsyn(P, 1, 1)  # nominal design
mu = rmb.musyn(P, 1, 1, max_iter=3)

M, _ = rmb.lftdata(P)
Mp = partition_plant(M, 1, 1)
w = np.logspace(-2, 3, 300)
fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
for K, label in ((hinf.controller, "hinfsyn (nominal)"), (mu.controller, "musyn")):
    N = closed_loop(Mp, (K.A, K.B, K.C, K.D))
    r = rmb.mussv(rmb.freqresp(N, w), mu.blk, lower=False)
    ax[0].semilogx(w, r.upper, label=label)
ax[0].axhline(1.0, color="k", lw=0.8, ls=":")
ax[0].set_xlabel("frequency (rad/s)")
ax[0].set_ylabel("robust-performance mu (upper bound)")
ax[0].legend()
samples, _ = P.usample(20, seed=0)
for Ps in samples:
    for K, c in ((hinf.controller, "C0"), (mu.controller, "C1")):
        cl = Ps.lft(K)
        ax[1].loglog(w, np.abs(cl(1j * w)).ravel(), color=c, lw=0.6, alpha=0.6)
ax[1].set_xlabel("frequency (rad/s)")
ax[1].set_ylabel("|z / w| over 20 sampled plants")
ax[1].set_title("blue: hinfsyn, orange: musyn")
fig.tight_layout()
fig.savefig(out / "synthesis_musyn.png", dpi=110)
print(hinf.gamma, mu.mu, [round(h["mu_peak"], 4) for h in mu.history])
