"""robustmb: robust control of multibody systems.

Uncertain and scheduling parameters are carried as one LFT from the physical
model of a mechanism to mu-analysis, worst-case reports and controller tuning.

Examples
--------
>>> import robustmb as rmb
>>> m = rmb.ureal("m", 2.0, percent=20)
>>> rmb.umat([[1 / m]]).blocks
{'m': 1}
"""

from . import decoupling, errors, examples, multibody, synthesis, tuning
from .analysis import (
    diskmargin,
    freqresp,
    h2norm,
    hinfnorm,
    mussv,
    robgain,
    robstab,
    sweep,
    wcdiskmargin,
    wcgain,
)
from .lft import (
    UncertainElement,
    UncertainMatrix,
    UncertainModel,
    UncertainSystem,
    block_diag,
    connect,
    feedback,
    hstack,
    inv,
    lft_lower,
    lft_upper,
    lftdata,
    parallel,
    series,
    simplify,
    star,
    sumblk,
    ucomplex,
    ultidyn,
    umat,
    ureal,
    usample,
    uss,
    usubs,
    vstack,
)
from .lft.structural import sminreal
from .synthesis import h2syn, hinfsyn, mixsyn, musyn, ncfsyn
from .tuning import (
    hinfstruct,
    realp,
    systune,
    tunable_gain,
    tunable_pid,
    tunable_ss,
    tunable_surface,
    tunable_tf,
)

__version__ = "0.1.0"


def __getattr__(name):
    # The report and plotting layers pull in matplotlib: import them on first use.
    if name in ("report", "plotting"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'robustmb' has no attribute {name!r}")


__all__ = [
    "UncertainElement",
    "UncertainMatrix",
    "UncertainModel",
    "UncertainSystem",
    "block_diag",
    "connect",
    "decoupling",
    "diskmargin",
    "errors",
    "examples",
    "feedback",
    "freqresp",
    "h2norm",
    "h2syn",
    "hinfnorm",
    "hinfstruct",
    "hinfsyn",
    "hstack",
    "inv",
    "lft_lower",
    "lft_upper",
    "lftdata",
    "mixsyn",
    "multibody",
    "mussv",
    "musyn",
    "ncfsyn",
    "parallel",
    "plotting",
    "realp",
    "report",
    "robgain",
    "robstab",
    "series",
    "tuning",
    "simplify",
    "star",
    "sumblk",
    "sweep",
    "synthesis",
    "systune",
    "tunable_gain",
    "tunable_pid",
    "tunable_ss",
    "tunable_surface",
    "tunable_tf",
    "ucomplex",
    "ultidyn",
    "umat",
    "ureal",
    "usample",
    "uss",
    "usubs",
    "vstack",
    "wcdiskmargin",
    "wcgain",
]
__all__ += ["sminreal"]
