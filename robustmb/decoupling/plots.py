"""Plots engineers use to judge a decoupling: coupling Bode magnitudes, Gershgorin ratios,
RGA-numbers, loop gains and transmissibilities.

Every function draws on a given matplotlib ``Axes`` (or a new figure) and returns the axes.
Frequencies are given in rad/s and shown in Hz.
"""

from __future__ import annotations

import numpy as np

from robustmb.decoupling.metrics import gershgorin_ratios, rga_abs_sum_minus_n, rga_number
from robustmb.decoupling.plant_data import as_matrix_stack, evaluate
from robustmb.errors import ArgumentError, DimensionError

__all__ = [
    "coupling_magnitude_plot",
    "gershgorin_plot",
    "rga_number_plot",
    "rga_number_variants_figure",
    "magnitude_plot",
]


def _frequencies(omega, what):
    """``omega`` as a 1-D array of finite frequencies >= 0 (rad/s), else an error naming it."""
    w = np.asarray(omega, dtype=float)
    if w.ndim != 1 or w.size == 0:
        raise DimensionError(f"{what}: omega must be a non-empty 1-D array, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ArgumentError(f"{what}: omega must hold finite frequencies >= 0 (rad/s)")
    return w


def _on_grid(values, w, what, label):
    """``values`` (one row per frequency), checked against ``len(omega)``."""
    values = np.asarray(values)
    if values.shape[0] != w.size:
        raise DimensionError(
            f"{what}: {label} has {values.shape[0]} frequency points but omega has {w.size}"
        )
    return values


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.4, 4.2))
    return ax


def _finish(ax, ylabel, title=None):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Frequency [Hz]")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    return ax


def coupling_magnitude_plot(G, omega, *, ax=None, title=None, diagonal_labels=None):
    """Magnitudes of the diagonal terms (coloured) and off-diagonal terms (grey) of a plant.

    Parameters
    ----------
    G : LTI system or ``(nw, p, m)`` array
    omega : array_like
        Frequencies (rad/s).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> ax = coupling_magnitude_plot(np.ones((3, 2, 2)) + np.eye(2), np.array([1.0, 2.0, 3.0]))
    >>> len(ax.lines)  # 2 off-diagonal, 2 diagonal, 1 legend entry
    5
    """
    w = _frequencies(omega, "coupling_magnitude_plot")
    H, _ = as_matrix_stack(evaluate(G, w) if hasattr(G, "ninputs") else np.asarray(G))
    H = _on_grid(H, w, "coupling_magnitude_plot", "G")
    ax = _axes(ax)
    f = w / (2 * np.pi)
    p, m = H.shape[1:]
    if diagonal_labels is not None and len(diagonal_labels) != min(p, m):
        raise DimensionError(
            f"coupling_magnitude_plot: diagonal_labels has {len(diagonal_labels)} labels for "
            f"the {min(p, m)} diagonal terms of G"
        )
    for i in range(p):
        for j in range(m):
            if i != j:
                ax.plot(f, np.abs(H[:, i, j]), color="0.6", lw=0.8, alpha=0.6)
    for i in range(min(p, m)):
        lab = diagonal_labels[i] if diagonal_labels else f"$G_{{{i + 1}{i + 1}}}$"
        ax.plot(f, np.abs(H[:, i, i]), lw=1.6, label=lab)
    ax.plot([], [], color="0.6", lw=0.8, label="off-diagonal")
    ax.legend(fontsize=8, ncol=2)
    return _finish(ax, "Magnitude", title)


def gershgorin_plot(plants: dict, omega, *, ax=None, title=None):
    """Gershgorin ratios ``sum_{j != i} |G_ij| / |G_ii|`` of several plants, one colour each.

    Parameters
    ----------
    plants : dict
        ``label -> plant`` (LTI system or ``(nw, p, m)`` stack on ``omega``).
    omega : array_like
        Frequencies (rad/s).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> ax = gershgorin_plot({"G": np.ones((2, 2, 2)) + np.eye(2)}, [1.0, 2.0])
    >>> len(ax.lines)
    3
    """
    w = _frequencies(omega, "gershgorin_plot")
    ax = _axes(ax)
    f = w / (2 * np.pi)
    for c, (label, G) in enumerate(plants.items()):
        R = gershgorin_ratios(G, omega=w) if hasattr(G, "ninputs") else gershgorin_ratios(G)
        R = _on_grid(np.atleast_2d(R), w, "gershgorin_plot", f"plant {label!r}")
        for i in range(R.shape[1]):
            ax.plot(f, R[:, i], color=f"C{c}", lw=1.2, label=label if i == 0 else None)
    ax.axhline(1.0, color="k", ls="--", lw=0.8)
    ax.legend(fontsize=8)
    return _finish(ax, "Gershgorin ratio", title)


def rga_number_plot(plants: dict, omega, *, variant="definition", ax=None, title=None):
    """RGA-number of several plants over frequency.

    Parameters
    ----------
    plants : dict
        ``label -> square plant``.
    omega : array_like
        Frequencies (rad/s).
    variant : {"definition", "abs_sum_minus_n"}
        ``sum |Lambda - I|`` (:func:`rga_number`) or ``sum |Lambda| - n``
        (:func:`rga_abs_sum_minus_n`, the seed's plotted variant).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> ax = rga_number_plot({"G": np.ones((2, 2, 2)) + np.eye(2)}, [1.0, 2.0])
    >>> len(ax.lines)
    1
    """
    fn = {"definition": rga_number, "abs_sum_minus_n": rga_abs_sum_minus_n}.get(variant)
    if fn is None:
        raise ArgumentError(
            f"rga_number_plot: variant must be 'definition' or 'abs_sum_minus_n', got {variant!r}"
        )
    w = _frequencies(omega, "rga_number_plot")
    ax = _axes(ax)
    for label, G in plants.items():
        v = fn(G, omega=w) if hasattr(G, "ninputs") else fn(G)
        v = _on_grid(np.atleast_1d(v), w, "rga_number_plot", f"plant {label!r}")
        ax.plot(w / (2 * np.pi), v, lw=1.4, label=label)
    ax.legend(fontsize=8)
    ylabel = (
        "RGA-number $\\sum|\\Lambda - I|$" if variant == "definition" else "$\\sum|\\Lambda| - n$"
    )
    return _finish(ax, ylabel, title)


def rga_number_variants_figure(plants: dict, omega):
    """Side by side: the RGA-number by definition and the seed's plotted variant.

    The two panels of the decoupling study's Figure 11 comparison (see
    :func:`rga_number_plot`), for the same plants and frequencies.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> fig = rga_number_variants_figure({"G": np.ones((2, 2, 2)) + np.eye(2)}, [1.0, 2.0])
    >>> [ax.get_title() for ax in fig.axes]
    ['RGA-number (definition)', "Seed's plotted variant"]
    """
    import matplotlib.pyplot as plt

    fig, axs = plt.subplots(1, 2, figsize=(11, 4.2))
    rga_number_plot(plants, omega, ax=axs[0], title="RGA-number (definition)")
    rga_number_plot(
        plants, omega, variant="abs_sum_minus_n", ax=axs[1], title="Seed's plotted variant"
    )
    return fig


def magnitude_plot(curves: dict, omega, *, ax=None, ylabel="Magnitude", title=None, styles=None):
    """Magnitude of several complex curves ``label -> (nw,)`` over frequency.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> ax = magnitude_plot({"a": [1.0, 0.5]}, [1.0, 2.0])
    >>> len(ax.lines)
    1
    """
    w = _frequencies(omega, "magnitude_plot")
    ax = _axes(ax)
    for label, v in curves.items():
        kw = {} if styles is None else styles.get(label, {})
        v = _on_grid(np.atleast_1d(v), w, "magnitude_plot", f"curve {label!r}")
        ax.plot(w / (2 * np.pi), np.abs(v), label=label, **kw)
    ax.legend(fontsize=8)
    return _finish(ax, ylabel, title)
