"""Gravimeter case study: Jacobian vs SVD decoupling (seed 004, section 1).

Run ``python case_studies/gravimeter/run.py`` from the repository root. It prints the
reproduced numbers next to the seed's (``[doc]``: printed in the seed; ``[digest]``:
reproduced independently by the digest ``shared/digests/004_decoupling.md``) and writes
the comparison plots into ``case_studies/gravimeter/figures/``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

try:
    import robustmb  # noqa: F401
except ImportError:  # running from a source checkout without installation
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb.decoupling import (  # noqa: E402
    closed_loop_poles,
    diagonal_lowpass_controller,
    frequency_response,
    gershgorin_ratios,
    jacobian_decouple,
    loop_gains,
    rga,
    rga_abs_sum_minus_n,
    rga_number,
    svd_decouple,
    transmissibility,
)
from robustmb.decoupling.plots import (  # noqa: E402
    coupling_magnitude_plot,
    gershgorin_plot,
    magnitude_plot,
    rga_number_variants_figure,
)
from robustmb.decoupling.robust_coupling import worst_case_gershgorin  # noqa: E402
from robustmb.examples.gravimeter import (
    gravimeter,  # noqa: E402
    uncertain_gravimeter,  # noqa: E402
)

HERE = Path(__file__).resolve().parent
WC = 2 * np.pi * 10.0  # decoupling frequency and crossover (rad/s)
WP = 2 * np.pi * 0.1  # low-pass pole of the diagonal controller (rad/s)
GRID_HZ = np.logspace(-1, 3, 1000)  # the seed's plotting grid

# [doc] numbers printed in the seed
DOC_POLES = [-0.12243 + 13.551j, -0.05 + 8.6601j, -0.0088785 + 3.6493j]
DOC_TABLE1 = np.array(
    [
        [0.0092, -0.0039, 0.0039],
        [-0.0039, 0.0048, 0.00028],
        [-0.004, 0.0038, -0.0038],
        [8.4e-09, 0.0025, 0.0025],
    ]
)
DOC_U = np.array(
    [
        [-0.78, 0.26, -0.53, -0.2],
        [0.4, 0.61, -0.04, -0.68],
        [0.48, -0.14, -0.85, 0.2],
        [0.03, 0.73, 0.06, 0.68],
    ]
)
DOC_V = np.array([[-0.79, 0.11, -0.6], [0.51, 0.67, -0.54], [-0.35, 0.73, 0.59]])
# [digest] reproduced values (section 5.1 of the digest)
DIG_G0_CEN = [3.9613e4, 3.9242e4, 1.1034e4]
DIG_G0_SVD = [7.398e3, 2.0456e4, 4.5239e4]
DIG_GERSH = {  # f: (coupled, jacobian, svd)
    0.1: ("0.018 0.017 1.60", "0.697 ~0 0.859", "1.035 0.209 0.085"),
    1.0: ("1.58 1.50 3.40", "0.925 ~0 14.6", "0.806 0.156 0.134"),
    10.0: ("0.846 0.867 2.06", "0.030 ~0 0.0083", "5e-4 3e-4 3e-4"),
    100.0: ("0.842 0.861 2.02", "3.7e-4 ~0 1.1e-4", "0.0062 0.0035 0.0030"),
    1000.0: ("0.8416 0.8605 2.0235", "2.4e-5 ~0 6.8e-6", "0.0063 0.0035 0.0030"),
}
DIG_RGA = {
    0.1: "5.97 5.97 0.284 0.284",
    1.0: "3.73 0.0015 0.206 0.125",
    10.0: "9.8e-4 9.7e-4 5.9e-7 4.4e-9",
    20.0: "5.8e-5 5.7e-5 4.5e-5 4.4e-5",
    100.0: "1.6e-7 9.2e-8 7.6e-5 7.6e-5",
    1000.0: "6.5e-10 9.1e-12 7.7e-5 7.7e-5",
}
DIG_CL_POLES = "-62.50 -61.15 -58.20 -2.23 -0.887 -0.607±0.634j -0.106±0.351j"
DIG_T_CEN = {
    "x": "1.026 1.838 0.548 0.092 0.0068 1e-4",
    "y": "1.005 1.115 1.281 0.195 0.0137 2e-4",
    "Rz": "1.006 1.137 0.944 0.407 0.0297 5e-4",
}


def on_grid(f):
    return GRID_HZ[[int(np.argmin(np.abs(np.log(GRID_HZ / x)))) for x in np.atleast_1d(f)]]


def fmt(v, p=4):
    return " ".join(f"{x:.{p}g}" for x in np.ravel(v))


def save(fig, name, figdir):
    fig.tight_layout()
    fig.savefig(figdir / name, dpi=110)
    plt.close(fig)


def main(figdir: Path | None = None) -> dict:
    """Run the study; return the reproduced numbers (also printed)."""
    t0 = time.perf_counter()
    figdir = HERE / "figures" if figdir is None else Path(figdir)
    figdir.mkdir(parents=True, exist_ok=True)
    out = {}
    g = gravimeter()
    G = g.plant()
    w = 2 * np.pi * GRID_HZ

    print("== Gravimeter (seed 004 section 1) ==")
    p = g.model().poles()
    p = p[p.imag > 0]
    p = p[np.argsort(-p.imag)]  # the seed's order
    print(f"open-loop poles      : {fmt(p, 6)}")
    print(f"  seed [doc]         : {fmt(DOC_POLES, 6)}")
    out["poles"] = p

    # -- decouplings ------------------------------------------------------------------
    jac = jacobian_decouple(
        G, actuator_jacobian=g.actuator_jacobian(), sensor_jacobian=g.sensor_jacobian()
    )
    svd = svd_decouple(G, WC)
    out["real_approximation"] = svd.real_response
    print("real approximation of G(j2pi10) (Table 1):")
    for r, d in zip(svd.real_response, DOC_TABLE1, strict=True):
        print(f"   {fmt(r, 3):40s} [doc] {fmt(d, 3)}")
    sgn = np.sign(np.sum(svd.U[:, :3] * DOC_U[:, :3], axis=0))
    print(
        f"max |U - U_doc| (pairs signed) = {np.abs(svd.U[:, :3] * sgn - DOC_U[:, :3]).max():.3f}, "
        f"max |V - V_doc| = {np.abs(svd.V * sgn - DOC_V).max():.3f} (doc prints 2 digits)"
    )
    print(f"singular values      : {fmt(svd.sigma)}   [digest] 0.013519 0.004889 0.002211")
    print(f"||Im H|| / ||Re H||  : {svd.imaginary_ratio:.4f}   [digest] 0.0038")

    # -- Gershgorin and RGA ------------------------------------------------------------
    R = {
        "coupled": gershgorin_ratios(G, omega=w),
        "jacobian": gershgorin_ratios(jac.plant, omega=w),
        "svd": gershgorin_ratios(svd.plant, omega=w),
    }
    print("Gershgorin ratios (rows x, y, Rz)      reproduced | [digest]")
    for f, ref in DIG_GERSH.items():
        k = int(np.argmin(np.abs(GRID_HZ - on_grid(f)[0])))
        for name, r in zip(("coupled", "jacobian", "svd"), ref, strict=True):
            print(f"  {f:7.1f} Hz {name:9s}: {fmt(R[name][k], 3):30s} | {r}")
    out["gershgorin"] = {
        k: v[[int(np.argmin(np.abs(GRID_HZ - on_grid(f)[0]))) for f in DIG_GERSH]]
        for k, v in R.items()
    }
    rn = {
        "jacobian": (rga_number(jac.plant, omega=w), rga_abs_sum_minus_n(jac.plant, omega=w)),
        "svd": (rga_number(svd.plant, omega=w), rga_abs_sum_minus_n(svd.plant, omega=w)),
    }
    print("RGA-number sum|L-I| and code variant sum|L|-3: jac(def, var) svd(def, var) | [digest]")
    for f, ref in DIG_RGA.items():
        k = int(np.argmin(np.abs(GRID_HZ - on_grid(f)[0])))
        vals = [rn["jacobian"][0][k], rn["jacobian"][1][k], rn["svd"][0][k], rn["svd"][1][k]]
        print(f"  {f:7.1f} Hz: {fmt(vals, 2):36s} | {ref}")

    # -- controllers and closed loop ----------------------------------------------------
    cen = diagonal_lowpass_controller(jac.plant, WC, WP)
    sv = diagonal_lowpass_controller(svd.plant, WC, WP)
    K_cen, K_svd = jac.controller(cen.controller), svd.controller(sv.controller)
    print(
        f"|diag Gx(j2pi10)|    : {fmt(np.abs(np.diag(frequency_response(jac.plant, [WC])[0])), 5)}"
        "   [digest] 0.0025246 0.0025484 0.0090637"
    )
    print(f"G0 centralized       : {fmt(cen.gains, 5)}   [digest] {fmt(DIG_G0_CEN, 5)}")
    print(f"G0 SVD               : {fmt(sv.gains, 5)}   [digest] {fmt(DIG_G0_SVD, 5)}")
    out["G0_cen"], out["G0_svd"] = cen.gains, sv.gains
    pc, ps = closed_loop_poles(G, K_cen), closed_loop_poles(G, K_svd)
    print(f"closed-loop poles (centralized): {fmt(pc, 4)}")
    print(f"  [digest] {DIG_CL_POLES}")
    print(
        f"stable: centralized {bool(np.all(pc.real < 0))}, SVD {bool(np.all(ps.real < 0))}"
        "   [doc] both 1"
    )
    out["stable"] = (bool(np.all(pc.real < 0)), bool(np.all(ps.real < 0)))

    ft = np.logspace(-2, 2, 1000)
    wt = 2 * np.pi * ft
    mdl = g.model()
    T_ol = transmissibility(mdl, wt)
    T_cen = transmissibility(mdl, wt, sensors=g.sensors, controller=K_cen)
    T_svd = transmissibility(mdl, wt, sensors=g.sensors, controller=K_svd)
    f_tab = np.array([0.01, 0.05, 0.1, 1, 10, 100])
    T_tab = np.abs(
        np.diagonal(
            transmissibility(mdl, 2 * np.pi * f_tab, sensors=g.sensors, controller=K_cen),
            axis1=1,
            axis2=2,
        )
    ).T
    print("|T_ii| centralized at 0.01 0.05 0.1 1 10 100 Hz       | [digest]")
    for i, name in enumerate(("x", "y", "Rz")):
        print(f"  {name:2s}: {fmt(T_tab[i], 4):42s} | {DIG_T_CEN[name]}")
    out["T_cen_table"] = T_tab

    # -- robustness to moved actuators (section 1.11) --------------------------------------
    gb = gravimeter(la=0.7 * 0.5, ha=0.7 * 0.85)
    Gb = gb.plant()
    pcb, psb = closed_loop_poles(Gb, K_cen), closed_loop_poles(Gb, K_svd)
    print(
        f"moved actuators: max Re(poles) centralized {pcb.real.max():.4f}, SVD {psb.real.max():.4f}"
        "   [digest] -0.0995, -0.0983 (both stable [doc])"
    )
    T_b = transmissibility(gb.model(), wt, sensors=gb.sensors, controller=K_cen)
    out["moved_stable"] = (bool(np.all(pcb.real < 0)), bool(np.all(psb.real < 0)))

    # -- frame choice (section 1.12) -------------------------------------------------------
    O_K = g.manipulator.center_of_stiffness()
    GK = jacobian_decouple(
        G, actuator_jacobian=g.actuator_jacobian(O_K), sensor_jacobian=g.sensor_jacobian(O_K)
    ).plant
    gkm = gravimeter(ha=0.0)
    GKM = jacobian_decouple(
        gkm.plant(),
        actuator_jacobian=gkm.actuator_jacobian(),
        sensor_jacobian=gkm.sensor_jacobian(),
    ).plant
    print(
        f"centre of stiffness O_K = {fmt(O_K)} (digest: (0, -h/2)); "
        f"K_K diag = {fmt(np.diag(g.manipulator.stiffness_matrix(O_K)))}"
    )
    rK = gershgorin_ratios(GK, omega=2 * np.pi * on_grid([0.1, 10, 100]))
    print(
        f"Gershgorin G_K at 0.1/10/100 Hz: {fmt(rK, 2)}"
        "   [digest] 0.018 ~0 0.009 | 0.85 ~0 0.86 | 0.84 ~0 0.85"
    )
    rKM = gershgorin_ratios(GKM, omega=w).max()
    print(
        f"ha = 0 (K diagonal at the CoM): max Gershgorin ratio over the grid {rKM:.1e}"
        " (exactly diagonal)"
    )

    # -- damping (section 1.13) --------------------------------------------------------------
    g500 = gravimeter(c=500.0)
    svd500 = svd_decouple(g500.plant(), WC)
    r20 = gershgorin_ratios(svd.plant, omega=[WC])[0]
    r500 = gershgorin_ratios(svd500.plant, omega=[WC])[0]
    print(
        f"SVD at 10 Hz, c=20 : ||Im||/||Re|| {svd.imaginary_ratio:.4f}, Gershgorin {fmt(r20, 2)}"
        "   [digest] 0.0038, 5e-4 3e-4 3e-4"
    )
    print(
        f"SVD at 10 Hz, c=500: ||Im||/||Re|| {svd500.imaginary_ratio:.4f}, "
        f"Gershgorin {fmt(r500, 2)}"
        "   [digest] 0.095, 0.013 0.008 0.019"
    )

    # -- robust coupling over uncertain actuator positions (item 4) -------------------------
    la = rmb.ureal("la", 0.5, percent=30)
    ha = rmb.ureal("ha", 0.85, percent=30)
    Gu = uncertain_gravimeter(la=la, ha=ha)
    fr = np.logspace(-1, 3, 300)  # realised worst case (lower bound) on a fine grid
    fc = np.logspace(0, 2, 5)  # certified upper bound (mu) on a coarse grid, 1-100 Hz
    have_mu = hasattr(rmb, "mussv")
    robust, certified = {}, {}
    for name, dec in (("jacobian", jac), ("svd", svd)):
        Gd = dec.apply(Gu)
        robust[name] = worst_case_gershgorin(Gd, 2 * np.pi * fr, upper=False, samples=32)
        if have_mu:
            cert = worst_case_gershgorin(Gd, 2 * np.pi * fc, samples=32, rtol=2e-2)
            certified[name] = (cert, bool(cert.verify(Gd)[np.isfinite(cert.upper)].all()))
    print("worst-case Gershgorin ratio over la, ha in +-30 % (nominal decoupling matrices):")
    band = (fr >= 5) & (fr <= 50)  # around the 10 Hz crossover
    for name, r in robust.items():
        for c, row in enumerate(r.rows):
            fpk = r.worst_frequency[c] / (2 * np.pi)
            vals = {k: round(v, 4) for k, v in r.worst_values[c].items()}
            print(
                f"  {name:8s} row {row}: nominal peak {r.nominal[:, c].max():.3g}, realised peak "
                f"{r.lower[:, c].max():.3g} at {fpk:.3g} Hz with {vals}; 5-50 Hz: nominal "
                f"{r.nominal[band, c].max():.3g}, realised {r.lower[band, c].max():.3g}"
            )
    for name, (r, verified) in certified.items():
        print(
            f"  {name:8s} realised / certified upper bound at {fmt(fc, 3)} Hz "
            f"(certificates re-verified: {verified}):"
        )
        for c, row in enumerate(r.rows):
            pairs = "  ".join(
                f"{lo:.3g}/{up:.3g}" for lo, up in zip(r.lower[:, c], r.upper[:, c], strict=True)
            )
            print(f"    row {row}: {pairs}")
    if not have_mu:
        print("  (certified upper bound not computed: robustmb.mussv is not available)")
    print(f"  realised worst case: {robust['svd'].coverage}")
    out["robust"], out["certified"] = robust, certified

    # -- figures -------------------------------------------------------------------------------
    fig, ax = plt.subplots(figsize=(7, 4.5))
    H = frequency_response(G, w)
    for i in range(4):
        for j in range(3):
            ax.plot(
                GRID_HZ,
                np.abs(H[:, i, j]),
                lw=0.9,
                label=f"{G.input_labels[j]}->{G.output_labels[i]}",
            )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="Frequency [Hz]",
        ylabel="|G| [(m/s^2)/N]",
        title="Coupled plant: 3 struts to 4 accelerometer channels",
        xlim=(0.1, 20),
        ylim=(1e-4, 1),
    )
    ax.legend(fontsize=6, ncol=3)
    save(fig, "open_loop_tf.png", figdir)
    for name, plant, title in (
        ("jacobian_plant.png", jac.plant, "Jacobian-decoupled plant G_x (CoM)"),
        ("svd_plant.png", svd.plant, "SVD-decoupled plant (10 Hz)"),
    ):
        save(coupling_magnitude_plot(plant, w, title=title).figure, name, figdir)
    save(
        gershgorin_plot(
            {"coupled": G, "Jacobian": jac.plant, "SVD": svd.plant}, w, title="Gershgorin ratios"
        ).figure,
        "gershgorin_radii.png",
        figdir,
    )
    fig = rga_number_variants_figure({"Jacobian": jac.plant, "SVD": svd.plant}, w)
    save(fig, "rga_number.png", figdir)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    Lj, Ls = np.abs(rga(jac.plant, omega=w)), np.abs(rga(svd.plant, omega=w))
    for i in range(3):
        for j in range(3):
            kw = {"lw": 1.4} if i == j else {"lw": 0.7, "alpha": 0.6}
            ax.plot(GRID_HZ, Lj[:, i, j], color="C0", **kw)
            ax.plot(GRID_HZ, Ls[:, i, j], color="C1", **kw)
    ax.plot([], [], color="C0", label="Jacobian")
    ax.plot([], [], color="C1", label="SVD")
    ax.set(
        xscale="log",
        yscale="log",
        ylim=(1e-5, 1e1),
        xlabel="Frequency [Hz]",
        ylabel="|RGA elements|",
    )
    ax.legend()
    save(fig, "rga_elements.png", figdir)
    Lc, Lsv = loop_gains(cen.controller, jac.plant, w), loop_gains(sv.controller, svd.plant, w)
    curves = {f"centralized {n}": Lc[:, i] for i, n in enumerate(("x", "y", "Rz"))}
    curves.update({f"SVD {i + 1}": Lsv[:, i] for i in range(3)})
    save(
        magnitude_plot(curves, w, ylabel="|L_ii|", title="Diagonal loop gains").figure,
        "loop_gains.png",
        figdir,
    )
    fig, axs = plt.subplots(1, 3, figsize=(13, 4))
    for i, name in enumerate(("x", "y", "Rz")):
        magnitude_plot(
            {
                "open loop": T_ol[:, i, i],
                "centralized": T_cen[:, i, i],
                "SVD": T_svd[:, i, i],
                "centralized, actuators moved": T_b[:, i, i],
            },
            wt,
            ax=axs[i],
            ylabel="|T|",
            title=f"Transmissibility {name}",
            styles={"SVD": {"ls": "--"}, "centralized, actuators moved": {"ls": ":"}},
        )
    save(fig, "transmissibility.png", figdir)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for T, lab, col in (
        (T_ol, "open loop", "C0"),
        (T_cen, "centralized", "C1"),
        (T_svd, "SVD", "C2"),
    ):
        for i in range(3):
            for j in range(3):
                if i != j:
                    ax.plot(
                        ft,
                        np.abs(T[:, i, j]),
                        color=col,
                        lw=0.8,
                        label=lab if (i, j) == (0, 1) else None,
                    )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="Frequency [Hz]",
        ylabel="|T_ij| (displacement/displacement)",
        title="Coupling terms of the transmissibility",
    )
    ax.legend()
    save(fig, "transmissibility_coupling.png", figdir)
    fig, axs = plt.subplots(1, 3, figsize=(14, 4))
    for ax, (plant, title) in zip(
        axs,
        ((jac.plant, "{M}: CoM"), (GK, "{K}: centre of stiffness"), (GKM, "ha = 0, {M}")),
        strict=True,
    ):
        coupling_magnitude_plot(plant, w, ax=ax, title=title)
    save(fig, "jacobian_frames.png", figdir)
    fig, axs = plt.subplots(1, 2, figsize=(11, 4.2))
    coupling_magnitude_plot(svd.plant, w, ax=axs[0], title="SVD plant, c = 20 N s/m")
    coupling_magnitude_plot(svd500.plant, w, ax=axs[1], title="SVD plant, c = 500 N s/m")
    save(fig, "svd_damping.png", figdir)
    fig, axs = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, (name, r) in zip(axs, robust.items(), strict=True):
        for c in range(len(r.rows)):
            ax.plot(fr, r.nominal[:, c], color=f"C{c}", lw=1.0, label=f"row {r.rows[c]} nominal")
            ax.plot(fr, r.lower[:, c], color=f"C{c}", ls="--", lw=1.0, label="realised worst case")
            if name in certified:
                rc = certified[name][0]
                ax.plot(fc, rc.upper[:, c], "v", color=f"C{c}", ms=5, label="certified upper bound")
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="Frequency [Hz]",
            ylabel="Gershgorin ratio",
            title=f"{name}: la, ha +-30 %",
        )
        ax.legend(fontsize=7)
    save(fig, "robust_coupling.png", figdir)
    dt = time.perf_counter() - t0
    print(
        f"figures written to {figdir} ({len(list(figdir.glob('*.png')))} PNG files) in {dt:.1f} s"
    )
    return out


if __name__ == "__main__":
    main()
