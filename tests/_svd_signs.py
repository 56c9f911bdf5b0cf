"""LAPACK may return either sign of each singular pair: a test patch that makes numpy's SVD
return the other one, to show that a result does not depend on that choice."""

import numpy as np


def flip_singular_vectors(monkeypatch):
    """Patch ``np.linalg.svd`` (through ``monkeypatch``) to flip every other singular pair."""
    svd = np.linalg.svd

    def flipped(a, full_matrices=True, compute_uv=True, **kw):
        out = svd(a, full_matrices=full_matrices, compute_uv=compute_uv, **kw)
        if not compute_uv:
            return out
        u, s, vh = out
        k = min(u.shape[-1], vh.shape[-2])
        sign = np.where(np.arange(k) % 2 == 0, -1.0, 1.0)
        u, vh = u.copy(), vh.copy()
        u[..., :k] *= sign
        vh[..., :k, :] *= sign[:, None]
        return u, s, vh

    monkeypatch.setattr(np.linalg, "svd", flipped)
