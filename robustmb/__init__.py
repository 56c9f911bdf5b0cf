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

# first, before NumPy and SciPy load: Ctrl-C while the robustmb command starts
from . import _cli_start, errors  # noqa: F401
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

# Everything beyond the LFT core and the analyses loads on first use (PEP 562), so that
# a first analysis does not pay for synthesis, tuning, multibody, decoupling, the
# examples, or the matplotlib of the report and plotting layers.
_LAZY_SUBPACKAGES = (
    "decoupling",
    "examples",
    "multibody",
    "plotting",
    "report",
    "synthesis",
    "tuning",
)
_LAZY_NAMES = {
    **dict.fromkeys(("h2syn", "hinfsyn", "mixsyn", "musyn", "ncfsyn"), "synthesis"),
    **dict.fromkeys(
        (
            "hinfstruct",
            "realp",
            "systune",
            "tunable_gain",
            "tunable_pid",
            "tunable_ss",
            "tunable_surface",
            "tunable_tf",
        ),
        "tuning",
    ),
}

__version__ = "0.1.0"


def __getattr__(name):
    import importlib

    if name in _LAZY_SUBPACKAGES:
        return importlib.import_module("." + name, __name__)
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module("." + _LAZY_NAMES[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'robustmb' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


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
