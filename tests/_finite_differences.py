"""Central finite differences, the reference for analytic (sub)gradients in the tests."""

import numpy as np


def central_differences(fun, x, h=1e-6):
    """Gradient of the scalar ``fun`` at ``x`` by central differences, step ``h max(1, |x_i|)``."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h * max(1.0, abs(x[i]))
        g[i] = (fun(x + e) - fun(x - e)) / (2 * e[i])
    return g
