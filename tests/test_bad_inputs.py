"""Bad input at the public boundary: each case raises a specific robustmb error naming the culprit.

Every row is ``(call, error class, pattern)``; the pattern must match the
message and contains the argument, element, signal or dimension at fault, so a
user reading the message knows what to change.  Nothing here reaches numpy,
scipy or python-control with the bad value.
"""

import math

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb import decoupling as dc
from robustmb.errors import (
    ArgumentError,
    DimensionError,
    IllPosedError,
    NameConflictError,
    SignalError,
    UncertainElementError,
    UncertainTypeError,
)
from robustmb.multibody import Mechanism, PrismaticJoint, RevoluteJoint, RigidBody, gravity

S = control.tf("s")


def _a():
    return rmb.ureal("a", 1.0, range=(0.5, 2.0))


def _G():
    """A stable 1x1 uncertain system ``a / (s + 2)``."""
    G = rmb.uss(_a() / (S + 2))
    G.name, G.input_names, G.output_names = "G", ["u"], ["y"]
    return G


def _M22():
    a = _a()
    return rmb.umat([[a, 1.0], [0.0, a]])


def _loop():
    return rmb.feedback(_G(), 1.0)


def _named(sys, name, inputs, outputs):
    m = rmb.uss(sys)
    m.name, m.input_names, m.output_names = name, inputs, outputs
    return m


def _blocks():
    C = _named(control.ss([], [], [], [[3.0]]), "C", ["e"], ["u"])
    return [_G(), C, rmb.sumblk("e = r - y")]


def _pendulum():
    mech = Mechanism(acceleration=gravity())
    mech.add_body(RigidBody("A", mass=1.0, inertia=0.1, cog=[0, 0, 0.5], ports={"P": [0, 0, 0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("A", "P"), [1, 0, 0]))
    return mech


def _case(id_, fn, exc, pattern):
    return pytest.param(fn, exc, pattern, id=id_)


UE, DE, SE, TE, AE = (
    UncertainElementError,
    DimensionError,
    SignalError,
    UncertainTypeError,
    ArgumentError,
)

# ----------------------------------------------------------------- uncertain elements
ELEMENTS = [
    _case("ureal-name-int", lambda: rmb.ureal(3, 1.0), UE, "name.*3"),
    _case("ureal-name-space", lambda: rmb.ureal("a b", 1.0), UE, "name.*'a b'"),
    _case("ureal-name-empty", lambda: rmb.ureal("", 1.0), UE, "name.*''"),
    _case("ureal-nominal-str", lambda: rmb.ureal("q", "1"), UE, "nominal of 'q'"),
    _case("ureal-nominal-nan", lambda: rmb.ureal("q", math.nan), UE, "nominal of 'q'.*finite"),
    _case("ureal-nominal-inf", lambda: rmb.ureal("q", math.inf), UE, "nominal of 'q'.*finite"),
    _case("ureal-nominal-complex", lambda: rmb.ureal("q", 1j), UE, "nominal of 'q'.*real"),
    _case("ureal-nominal-bool", lambda: rmb.ureal("q", True), UE, "nominal of 'q'"),
    _case(
        "ureal-two-ranges", lambda: rmb.ureal("q", 1, range=(0, 2), percent=5), UE, "'q'.*one of"
    ),
    _case("ureal-range-empty", lambda: rmb.ureal("q", 1, range=(2, 2)), UE, "'q'.*empty"),
    _case("ureal-range-reversed", lambda: rmb.ureal("q", 1, range=(2, 0)), UE, "'q'.*empty"),
    _case("ureal-range-scalar", lambda: rmb.ureal("q", 1, range=3), UE, "'q'.*range.*pair"),
    _case("ureal-range-triple", lambda: rmb.ureal("q", 1, range=(0, 1, 2)), UE, "'q'.*pair"),
    _case("ureal-range-nan", lambda: rmb.ureal("q", 1, range=(0, math.nan)), UE, "range of 'q'"),
    _case("ureal-range-inf", lambda: rmb.ureal("q", 1, range=(-math.inf, 2)), UE, "range of 'q'"),
    _case("ureal-range-str", lambda: rmb.ureal("q", 1, range=("0", "2")), UE, "range of 'q'"),
    _case("ureal-outside", lambda: rmb.ureal("q", 5, range=(0, 2)), UE, "'q'.*nominal 5.*outside"),
    _case("ureal-percent-zero-nominal", lambda: rmb.ureal("q", 0, percent=10), UE, "'q'.*percent"),
    _case("ureal-percent-negative", lambda: rmb.ureal("q", 1, percent=-5), UE, "'q'.*percent"),
    _case("ureal-percent-zero", lambda: rmb.ureal("q", 1, percent=0), UE, "'q'.*zero width"),
    _case("ureal-percent-pair-sign", lambda: rmb.ureal("q", 1, percent=(5, 5)), UE, "'q'.*percent"),
    _case("ureal-percent-nan", lambda: rmb.ureal("q", 1, percent=math.nan), UE, "percent of 'q'"),
    _case("ureal-plusminus-neg", lambda: rmb.ureal("q", 1, plusminus=-1), UE, "'q'.*plusminus"),
    _case("ureal-plusminus-str", lambda: rmb.ureal("q", 1, plusminus="1"), UE, "'q'.*plusminus"),
    _case(
        "ureal-overflow-percent",
        lambda: rmb.ureal("q", 1e308, percent=100),
        UE,
        "'q'.*overflows",
    ),
    _case(
        "ureal-overflow-range",
        lambda: rmb.ureal("q", 0.0, range=(-1.5e308, 1.5e308)),
        UE,
        "'q'.*overflows",
    ),
    _case(
        "ureal-overflow-plusminus",
        lambda: rmb.ureal("q", 1e308, plusminus=1e308),
        UE,
        "'q'.*overflows",
    ),
    _case("ucomplex-nominal-str", lambda: rmb.ucomplex("c", "1j"), UE, "nominal of ucomplex 'c'"),
    _case(
        "ucomplex-nominal-nan", lambda: rmb.ucomplex("c", complex(1, math.nan)), UE, "'c'.*finite"
    ),
    _case("ucomplex-radius-zero", lambda: rmb.ucomplex("c", 1j, radius=0), UE, "'c'.*radius"),
    _case("ucomplex-radius-neg", lambda: rmb.ucomplex("c", 1j, radius=-1), UE, "'c'.*radius"),
    _case("ucomplex-radius-complex", lambda: rmb.ucomplex("c", 1, radius=1j), UE, "radius of 'c'"),
    _case(
        "ucomplex-radius-inf", lambda: rmb.ucomplex("c", 1, radius=math.inf), UE, "radius of 'c'"
    ),
    _case("ultidyn-shape-frac", lambda: rmb.ultidyn("D", (1.5, 1)), UE, "'D'.*ny.*1.5"),
    _case("ultidyn-shape-frac-int", lambda: rmb.ultidyn("D", 0.5), UE, "'D'.*ny.*0.5"),
    _case("ultidyn-shape-zero", lambda: rmb.ultidyn("D", (0, 1)), UE, "'D'.*ny.*>= 1"),
    _case("ultidyn-shape-neg", lambda: rmb.ultidyn("D", (1, -2)), UE, "'D'.*nu.*>= 1"),
    _case("ultidyn-shape-str", lambda: rmb.ultidyn("D", "2x2"), UE, "'D'.*shape.*pair"),
    _case("ultidyn-shape-triple", lambda: rmb.ultidyn("D", (1, 2, 3)), UE, "'D'.*shape.*pair"),
    _case("ultidyn-shape-nan", lambda: rmb.ultidyn("D", (math.nan, 1)), UE, "'D'.*ny"),
    _case("ultidyn-shape-bool", lambda: rmb.ultidyn("D", True), UE, "'D'.*shape"),
    _case("ultidyn-bound-zero", lambda: rmb.ultidyn("D", 1, bound=0), UE, "'D'.*bound"),
    _case("ultidyn-bound-neg", lambda: rmb.ultidyn("D", 1, bound=-1), UE, "'D'.*bound"),
    _case("ultidyn-bound-nan", lambda: rmb.ultidyn("D", 1, bound=math.nan), UE, "bound of 'D'"),
    _case("ultidyn-name", lambda: rmb.ultidyn("1D", 1), UE, "name.*'1D'"),
]

# --------------------------------------------------------------------- umat and uss
CONSTRUCTORS = [
    _case("umat-ragged", lambda: rmb.umat([[1, 2], [3]]), DE, "ragged.*row 1 has 1.*row 0 has 2"),
    _case("umat-ragged-uncertain", lambda: rmb.umat([[_a(), 2], [3]]), DE, "row 1"),
    _case("umat-row-not-list", lambda: rmb.umat([[1, 2], 3]), DE, "row 1"),
    _case("umat-empty", lambda: rmb.umat([]), DE, "at least one row"),
    _case("umat-str", lambda: rmb.umat("abc"), TE, "umat.*str"),
    _case("umat-dict", lambda: rmb.umat({"a": 1}), TE, "umat.*dict"),
    _case("umat-nan", lambda: rmb.umat([[1.0, math.nan]]), DE, r"non-finite.*\(0, 1\)"),
    _case("umat-inf-array", lambda: rmb.umat(np.array([[math.inf]])), DE, r"non-finite.*\(0, 0\)"),
    _case("umat-3d", lambda: rmb.umat(np.zeros((2, 2, 2))), DE, "2 dimensions.*shape"),
    _case("umat-system", lambda: rmb.umat(_G()), TE, "umat.*system"),
    _case("umat-ultidyn", lambda: rmb.umat(rmb.ultidyn("D", 1)), TE, "'D'.*dynamic"),
    _case("umat-nan-entry", lambda: rmb.umat([[_a(), math.nan]]), DE, r"entry \(0, 1\) is nan"),
    _case(
        "uss-ultidyn-in-A",
        lambda: rmb.uss([[rmb.ultidyn("D", 1)]], [[1]], [[1]], [[0]]),
        TE,
        r"matrix A: the ultidyn 'D' in entry \(0, 0\)",
    ),
    _case(
        "uss-dt-mismatch",
        lambda: rmb.uss(control.tf([1.0], [1.0, 1.0]), dt=0.1),
        AE,
        r"uss: dt=0\.1 differs from the sampling time 0",
    ),
    _case("umat-str-entry", lambda: rmb.umat([[1, "x"]]), TE, "str"),
    _case(
        "uss-A-not-square", lambda: rmb.uss([[1, 2]], [[1]], [[1]], [[0]]), DE, "A must be square"
    ),
    _case("uss-B-rows", lambda: rmb.uss([[-1]], [[1], [2]], [[1]], [[0]]), DE, "B has 2 rows"),
    _case("uss-C-cols", lambda: rmb.uss([[-1]], [[1]], [[1, 2]], [[0]]), DE, "C has 2 columns"),
    _case("uss-D-shape", lambda: rmb.uss([[-1]], [[1]], [[1]], [[0, 0]]), DE, "D has shape"),
    _case("uss-three-args", lambda: rmb.uss([[-1]], [[1]], [[1]]), TE, r"uss\(\) takes"),
    _case("uss-dt-negative", lambda: rmb.uss([[-1]], [[1]], [[1]], [[0]], dt=-1), AE, "uss: dt"),
    _case("uss-dt-nan", lambda: rmb.uss([[-1]], [[1]], [[1]], [[0]], dt=math.nan), AE, "uss: dt"),
    _case("uss-dt-inf", lambda: rmb.uss([[-1]], [[1]], [[1]], [[0]], dt=math.inf), AE, "uss: dt"),
    _case("uss-dt-str", lambda: rmb.uss([[-1]], [[1]], [[1]], [[0]], dt="0.1"), AE, "uss: dt"),
    _case("uss-dt-single", lambda: rmb.uss(_G(), dt=-0.5), AE, "uss: dt"),
    _case("uss-A-nan", lambda: rmb.uss([[math.nan]], [[1]], [[1]], [[0]]), DE, "non-finite"),
    _case("uss-object", lambda: rmb.uss(object()), TE, "object"),
    _case("uss-improper-tf", lambda: rmb.uss(control.tf([1, 0], [1])), TE, "improper"),
    _case(
        "uss-ss-nan",
        lambda: rmb.uss(control.ss([[math.nan]], [[1]], [[1]], [[0]])),
        DE,
        "matrix A.*non-finite",
    ),
    _case("names-count", lambda: setattr(_G(), "input_names", ["u", "v"]), DE, "input_names.*1"),
    _case("names-type", lambda: setattr(_G(), "output_names", [3]), SE, "output_names.*3"),
    _case("sumblk-no-eq", lambda: rmb.sumblk("e r - y"), SE, "sumblk.*'='"),
    _case("sumblk-bad-term", lambda: rmb.sumblk("e = r * y"), SE, r"sumblk.*'\* y'"),
    _case("sumblk-dup", lambda: rmb.sumblk("e = r - r"), SE, r"sumblk.*\['r'\]"),
    _case("sumblk-n-zero", lambda: rmb.sumblk("e = r - y", 0), DE, "sumblk.*n.*0"),
    _case("sumblk-n-float", lambda: rmb.sumblk("e = r - y", 1.5), DE, "sumblk.*n.*1.5"),
    _case("sumblk-not-str", lambda: rmb.sumblk(3), SE, "sumblk.*expr.*3"),
]

# ------------------------------------------------------------------------ algebra
ALGEBRA = [
    _case("add-shapes", lambda: _M22() + rmb.umat([[1.0, 2.0, 3.0]]), DE, r"\(2, 2\).*\(1, 3\)"),
    _case("matmul-shapes", lambda: _M22() @ rmb.umat([[1.0, 2.0, 3.0]]), DE, r"2 inputs vs 1"),
    _case("mul-shapes", lambda: _M22() * np.ones((3, 3)), DE, r"\(2, 2\).*\(3, 3\)"),
    _case("scale-nan", lambda: _G() @ math.nan, DE, "non-finite"),
    _case("scale-inf", lambda: math.inf * _M22(), DE, "non-finite"),
    _case("div-zero", lambda: _M22() / 0, ZeroDivisionError, "by zero"),
    _case("inv-nonsquare", lambda: rmb.inv(rmb.umat([[1.0, 2.0]])), DE, r"square.*\(1, 2\)"),
    _case("inv-singular", lambda: rmb.inv(rmb.umat([[1.0, 2.0], [2.0, 4.0]])), DE, "singular"),
    _case("pow-float", lambda: _a() ** 0.5, TE, "integer powers.*0.5"),
    _case("pow-nonsquare", lambda: rmb.umat([[_a(), 1.0]]) ** 2, DE, r"square.*\(1, 2\)"),
    _case("transpose-ultidyn", lambda: rmb.uss(rmb.ultidyn("D", (1, 2))).T, TE, r"\['D'\]"),
    _case(
        "hstack-rows", lambda: rmb.hstack(_M22(), rmb.umat([[1.0]])), DE, "operand 1 has 1 outputs"
    ),
    _case("vstack-cols", lambda: rmb.vstack([_M22(), [[1.0]]]), DE, "operand 1 has 1 inputs"),
    _case("vstack-empty", lambda: rmb.vstack([]), DE, "vstack: nothing to stack"),
    _case("hstack-none", lambda: rmb.hstack(), DE, "hstack: nothing to stack"),
    _case("block-diag-empty", lambda: rmb.block_diag([]), DE, "block_diag"),
    _case("feedback-sign-str", lambda: rmb.feedback(_G(), 1, sign="-"), AE, "feedback: sign.*'-'"),
    _case("feedback-sign-2", lambda: rmb.feedback(_G(), 1, sign=2), AE, "feedback: sign.*2"),
    _case("feedback-sign-bool", lambda: rmb.feedback(_G(), 1, sign=True), AE, "feedback: sign"),
    _case(
        "feedback-shape", lambda: rmb.feedback(_M22(), np.ones((3, 3))), DE, r"\(3, 3\).*\(2, 2\)"
    ),
    _case("feedback-ill-posed", lambda: rmb.feedback(1.0, 1.0, sign=1), IllPosedError, "ill-posed"),
    _case("star-nu-neg", lambda: rmb.star(_G(), _G(), -1, 1), DE, "star: nu.*-1"),
    _case("star-ny-neg", lambda: rmb.star(_G(), _G(), 1, -1), DE, "star: ny.*-1"),
    _case("star-nu-float", lambda: rmb.star(_G(), _G(), 1.5, 1), DE, "star: nu.*1.5"),
    _case("star-ny-str", lambda: rmb.star(_G(), _G(), 1, "1"), DE, "star: ny"),
    _case("star-too-many", lambda: rmb.star(_G(), _G(), 2, 1), DE, "star: .*first nu=2"),
    _case("lft-upper-big", lambda: rmb.lft_upper(_G(), np.ones((2, 2))), DE, r"Delta \(2, 2\)"),
    _case("index-1d", lambda: _M22()[0], DE, r"\[outputs, inputs\]"),
    _case("index-range", lambda: _M22()[5, 0], DE, "output index 5"),
    _case("index-name", lambda: _G()["yy", "u"], SE, "'yy'"),
    _case("index-float", lambda: _M22()[0.5, 0], DE, "output index 0.5"),
    _case("name-conflict", lambda: _a() + rmb.ureal("a", 1.0), NameConflictError, "'a'"),
    _case(
        "dt-conflict",
        lambda: (
            rmb.uss([[-1]], [[1]], [[1]], [[0]], dt=0.1)
            + rmb.uss([[-1]], [[1]], [[1]], [[0]], dt=0.2)
        ),
        DE,
        r"sampling times \[0.1, 0.2\]",
    ),
    _case("add-object", lambda: _M22() + object(), TE, "object"),
    _case("improper-product", lambda: _G() * (S + _a()), TE, r"cannot compute .*\*.*improper"),
    _case("improper-sum", lambda: _G() + S * _a(), TE, r"cannot compute .*\+.*improper"),
    _case("simplify-level", lambda: rmb.simplify(_M22(), level="max"), AE, "level.*'max'"),
]

# ------------------------------------------------------------------------ connect
CONNECT = [
    _case(
        "connect-no-io",
        lambda: rmb.connect(_blocks()),
        SE,
        "inputs and outputs",
    ),
    _case(
        "connect-unknown-input",
        lambda: rmb.connect(_blocks(), inputs=["rr"], outputs=["y"]),
        SE,
        "unknown input signal 'rr'.*did you mean 'r'",
    ),
    _case(
        "connect-unknown-output",
        lambda: rmb.connect(_blocks(), inputs=["r"], outputs=["yy"]),
        SE,
        "unknown output signal 'yy'",
    ),
    _case(
        "connect-unknown-system",
        lambda: rmb.connect(_blocks(), inputs=["r"], outputs=["H.y"]),
        SE,
        "unknown system 'H'",
    ),
    _case(
        "connect-dup-names",
        lambda: rmb.connect([_G(), _G()], inputs=["u"], outputs=["G.y"]),
        SE,
        r"unique.*\['G'\]",
    ),
    _case(
        "connect-bad-connection",
        lambda: rmb.connect(_blocks(), connections=["G.u"], inputs=["r"], outputs=["y"]),
        SE,
        "each connection.*'G.u'",
    ),
    _case(
        "connect-short-connection",
        lambda: rmb.connect(_blocks(), connections=[["G.u"]], inputs=["r"], outputs=["y"]),
        SE,
        r"each connection.*\['G.u'\]",
    ),
    _case(
        "connect-spec-int",
        lambda: rmb.connect(_blocks(), inputs=[3], outputs=["y"]),
        SE,
        "signal spec.*3",
    ),
    _case(
        "connect-spec-tuple",
        lambda: rmb.connect(_blocks(), inputs=[("G",)], outputs=["y"]),
        SE,
        r"tuple.*\('G',\)",
    ),
    _case(
        "connect-ignore-unknown",
        lambda: rmb.connect(_blocks(), inputs=["r"], outputs=["y"], ignore_inputs=["q"]),
        SE,
        "unknown input signal 'q'",
    ),
    _case(
        "connect-ignore-without-check",
        lambda: rmb.connect(
            _blocks(), inputs=["r"], outputs=["y"], check_unused=False, ignore_inputs=["r"]
        ),
        SE,
        "ignore_inputs.*check_unused",
    ),
    _case(
        "connect-ambiguous",
        lambda: rmb.connect(
            [_named(control.ss([], [], [], [[1.0]]), "A", ["u"], ["y"]), _G()],
            connections=[["A.u", "y"]],
            inputs=["u"],
            outputs=["A.y"],
        ),
        SE,
        r"'y' is ambiguous.*\['A', 'G'\]",
    ),
    _case(
        "connect-width",
        lambda: rmb.connect(
            [
                _named(control.ss([], [], [], np.eye(2)), "A", ["u[0]", "u[1]"], ["y[0]", "y[1]"]),
                _G(),
            ],
            connections=[["G.u", "A.y"]],
            inputs=["A.u"],
            outputs=["G.y"],
        ),
        SE,
        "'G.u' has 1 channels but 'A.y' has 2",
    ),
    _case(
        "connect-object",
        lambda: rmb.connect([_G(), object()], inputs=["u"], outputs=["y"]),
        TE,
        "object",
    ),
]

# --------------------------------------------------------------- substitution
SUBSTITUTION = [
    _case("usubs-str-value", lambda: _G().usubs({"a": "abc"}), UE, "'a'.*number.*'abc'"),
    _case("usubs-none-value", lambda: _G().usubs({"a": None}), UE, "'a'.*number"),
    _case("usubs-vector-value", lambda: _G().usubs({"a": [1.0, 2.0]}), UE, "'a'"),
    _case("usubs-nan", lambda: _G().usubs({"a": math.nan}), UE, "'a'.*finite"),
    _case("usubs-bool", lambda: _G().usubs({"a": True}), AE, "'a'.*boolean"),
    _case("usubs-complex-real", lambda: _G().usubs({"a": 1 + 1j}), UE, "ureal 'a'.*complex"),
    _case(
        "usubs-unknown", lambda: _G().usubs({"b": 1.0}), SE, r"no uncertain element named \['b'\]"
    ),
    _case("usubs-not-dict", lambda: _G().usubs([("a", 1.0)]), TE, "usubs expects a dict"),
    _case("usubs-top-pairs", lambda: rmb.usubs(_G(), "a", 1.0, "b"), SE, "pairs.*3"),
    _case("usubs-top-none", lambda: rmb.usubs(_G()), TE, "usubs"),
    _case(
        "usubs-ultidyn-shape",
        lambda: rmb.uss(rmb.ultidyn("D", (1, 2))).usubs({"D": np.ones((2, 2))}),
        UE,
        r"'D'.*\(1, 2\)",
    ),
    _case(
        "usubs-ultidyn-str",
        lambda: rmb.uss(rmb.ultidyn("D", 1)).usubs({"D": "x"}),
        UE,
        "'D'.*numeric",
    ),
    _case(
        "usubs-ultidyn-nan",
        lambda: rmb.uss(rmb.ultidyn("D", 1)).usubs({"D": np.array([[math.nan]])}),
        UE,
        "'D'.*finite",
    ),
    _case(
        "usubs-system-shape",
        lambda: rmb.uss(rmb.ultidyn("D", 1)).usubs(
            {"D": control.tf([1], [1, 1]) * np.ones((2, 1))}
        ),
        UE,
        r"'D'.*\(1, 1\)",
    ),
    _case("usample-zero", lambda: _G().usample(0), DE, "n must be a positive integer.*0"),
    _case("usample-float", lambda: _G().usample(2.5), DE, "n must be.*2.5"),
    _case("usample-bool", lambda: rmb.usample(_G(), True), DE, "n must be.*True"),
    _case("usample-neg", lambda: rmb.usample(_G(), -3), DE, "n must be.*-3"),
    _case("lftdata-object", lambda: rmb.lftdata(object()), TE, "object"),
]

# ---------------------------------------------------------------------- analysis
ANALYSIS = [
    _case(
        "robstab-omega-empty", lambda: rmb.robstab(_loop(), omega=[]), AE, "robstab: omega.*empty"
    ),
    _case("robstab-omega-neg", lambda: rmb.robstab(_loop(), omega=-1), AE, "robstab: omega.*-1.0"),
    _case(
        "robstab-omega-str", lambda: rmb.robstab(_loop(), omega="abc"), AE, "robstab: omega.*'abc'"
    ),
    _case(
        "robstab-omega-nan",
        lambda: rmb.robstab(_loop(), omega=[1.0, math.nan]),
        AE,
        "robstab: omega.*non-finite.*index 1",
    ),
    _case(
        "robstab-omega-2d", lambda: rmb.robstab(_loop(), omega=np.ones((2, 2))), AE, "omega.*1-D"
    ),
    _case(
        "robstab-omega-objects",
        lambda: rmb.robstab(_loop(), omega=[1.0, "x"]),
        AE,
        "robstab: omega",
    ),
    _case("robstab-certain", lambda: rmb.robstab(control.tf([1], [1, 1])), TE, "robstab.*certain"),
    _case(
        "robstab-no-uncertainty",
        lambda: rmb.robstab(rmb.uss(control.tf([1], [1, 1]))),
        TE,
        "robstab.*no uncertain elements",
    ),
    _case("wcgain-omega-empty", lambda: rmb.wcgain(_loop(), omega=[]), AE, "wcgain: omega.*empty"),
    _case(
        "wcgain-omega-neg", lambda: rmb.wcgain(_loop(), omega=[1.0, -2.0]), AE, "wcgain: omega.*-2"
    ),
    _case("wcgain-omega-str", lambda: rmb.wcgain(_loop(), omega="1"), AE, "wcgain: omega"),
    _case("wcgain-certain", lambda: rmb.wcgain(control.tf([1], [1, 1])), TE, "wcgain.*certain"),
    _case("robgain-gamma-str", lambda: rmb.robgain(_G(), "1"), AE, "robgain: gamma.*'1'"),
    _case("robgain-gamma-zero", lambda: rmb.robgain(_G(), 0), AE, "robgain: gamma.*positive"),
    _case("robgain-gamma-neg", lambda: rmb.robgain(_G(), -1.0), AE, "robgain: gamma.*positive"),
    _case("robgain-gamma-nan", lambda: rmb.robgain(_G(), math.nan), AE, "robgain: gamma.*finite"),
    _case("robgain-gamma-none", lambda: rmb.robgain(_G(), None), AE, "robgain: gamma"),
    _case("robgain-omega-empty", lambda: rmb.robgain(_G(), 1.0, omega=[]), AE, "robgain: omega"),
    _case("hinfnorm-tol-neg", lambda: rmb.hinfnorm(control.tf([1], [1, 1]), tol=-1), AE, "tol.*-1"),
    _case(
        "hinfnorm-tol-str", lambda: rmb.hinfnorm(control.tf([1], [1, 1]), tol="a"), AE, "tol.*'a'"
    ),
    _case("hinfnorm-object", lambda: rmb.hinfnorm("G"), TE, "sys of type str"),
    _case("h2norm-vector", lambda: rmb.h2norm(np.ones(2)), DE, r"sys.*shape \(2,\)"),
    _case(
        "freqresp-omega-str", lambda: rmb.freqresp(control.tf([1], [1, 1]), "w"), TE, "omega.*dtype"
    ),
    _case(
        "freqresp-omega-nan",
        lambda: rmb.freqresp(control.tf([1], [1, 1]), [math.nan]),
        DE,
        "omega.*NaN.*index 0",
    ),
    _case("freqresp-object", lambda: rmb.freqresp(object(), [1.0]), TE, "sys of type object"),
    _case("mussv-blk-size", lambda: rmb.mussv(np.eye(2), [(1, 1)]), DE, "blk"),
    _case("mussv-blk-str", lambda: rmb.mussv(np.eye(2), "x"), DE, "blk"),
    _case(
        "mussv-nan",
        lambda: rmb.mussv(np.array([[math.nan]]), [(1, 1)]),
        IllPosedError,
        "M has non-finite",
    ),
    _case(
        "mussv-method", lambda: rmb.mussv(np.eye(1), [(1, 1)], method="slow"), AE, "method.*'slow'"
    ),
    _case(
        "diskmargin-skew-str",
        lambda: rmb.diskmargin(control.tf([1], [1, 1]), skew="0"),
        DE,
        "skew.*'0'",
    ),
    _case(
        "diskmargin-skew-nan",
        lambda: rmb.diskmargin(control.tf([1], [1, 1]), skew=math.nan),
        DE,
        "skew.*nan",
    ),
    _case(
        "diskmargin-omega-neg",
        lambda: rmb.diskmargin(control.tf([1], [1, 1]), omega=[-1.0]),
        DE,
        r"omega.*\[-1.\]",
    ),
    _case(
        "wcdiskmargin-mode",
        lambda: rmb.wcdiskmargin(_G(), mode="both"),
        DE,
        "mode.*'both'",
    ),
]

# --------------------------------------------------------------------- multibody
MULTIBODY = [
    _case(
        "two-link-nan",
        lambda: rmb.examples.two_link_arm(math.nan),
        AE,
        "two_link_arm: theta1.*finite",
    ),
    _case(
        "two-link-str", lambda: rmb.examples.two_link_arm(0.5, "x"), AE, "two_link_arm: theta2.*'x'"
    ),
    _case("two-link-inf", lambda: rmb.examples.two_link_arm(0.5, math.inf), AE, "theta2.*finite"),
    _case(
        "mechanism-empty",
        lambda: Mechanism().linearize(),
        DE,
        "linearize: the mechanism has no joints",
    ),
    _case(
        "body-mass-nan",
        lambda: RigidBody("B", mass=math.nan),
        DE,
        "'B'.*mass|mass.*'B'",
    ),
    _case("body-mass-str", lambda: RigidBody("B", mass="1"), TE, "mass"),
    _case("body-inertia-shape", lambda: RigidBody("B", mass=1.0, inertia=[1, 2]), DE, "inertia"),
    _case("body-cog-shape", lambda: RigidBody("B", mass=1.0, cog=[0, 0]), DE, "cog"),
    _case("body-port-shape", lambda: RigidBody("B", mass=1.0, ports={"P": [0, 0]}), DE, "'P'"),
    _case(
        "joint-axis-zero",
        lambda: RevoluteJoint("J", ("ground", "O"), ("A", "P"), [0, 0, 0]),
        DE,
        "'J': axis has zero length",
    ),
    _case(
        "joint-axis-short",
        lambda: RevoluteJoint("J", ("ground", "O"), ("A", "P"), [1, 0]),
        DE,
        "'J'.*axis",
    ),
    _case(
        "prismatic-axis-zero",
        lambda: PrismaticJoint("S", ("ground", "O"), ("A", "P"), [0, 0, 0]),
        DE,
        "'S': axis has zero length",
    ),
    _case(
        "joint-stiffness-str",
        lambda: RevoluteJoint("J", ("ground", "O"), ("A", "P"), [1, 0, 0], stiffness="k"),
        TE,
        "'J'.*stiffness",
    ),
    _case(
        "joint-endpoint",
        lambda: RevoluteJoint("J", "ground", ("A", "P"), [1, 0, 0]),
        SE,
        "'J'",
    ),
    _case(
        "joint-signal-name",
        lambda: RevoluteJoint("J", ("ground", "O"), ("A", "P"), [1, 0, 0], output_name=3),
        SE,
        "'J'.*signal names",
    ),
    _case(
        "mechanism-port-unknown",
        lambda: _pendulum().linearize(ports=[("Z", "P")]),
        SE,
        "unknown body 'Z'",
    ),
    _case(
        "mechanism-dup-body",
        lambda: _pendulum().add_body(RigidBody("A", mass=1.0)),
        NameConflictError,
        "'A'",
    ),
    _case("gravity-nan", lambda: gravity(math.nan), DE, "gravity|g_magnitude"),
    _case("gravity-direction", lambda: gravity(9.81, (0, 0)), DE, r"direction.*shape \(2,\)"),
    _case("gravity-zero-direction", lambda: gravity(9.81, (0, 0, 0)), DE, "direction.*non-zero"),
]

# -------------------------------------------------------------------- decoupling
DECOUPLING = [
    _case(
        "modal-singular-mass",
        lambda: dc.modal_decouple(
            np.diag([1.0, 0.0]), np.eye(2), input_matrix=np.eye(2), output_matrix=np.eye(2)
        ),
        AE,
        r"modal_decouple: M \(mass matrix\) must be symmetric positive definite",
    ),
    _case(
        "modal-nan-K",
        lambda: dc.modal_decouple(
            np.eye(2),
            np.array([[1.0, math.nan], [math.nan, 1.0]]),
            input_matrix=np.eye(2),
            output_matrix=np.eye(2),
        ),
        AE,
        "modal_decouple: K",
    ),
    _case(
        "modal-shapes",
        lambda: dc.modal_decouple(
            np.eye(2), np.eye(3), input_matrix=np.eye(2), output_matrix=np.eye(2)
        ),
        DE,
        r"M \(2, 2\) and K \(3, 3\)",
    ),
    _case(
        "modal-input-rows",
        lambda: dc.modal_decouple(
            np.eye(2), np.eye(2), input_matrix=np.eye(3), output_matrix=np.eye(2)
        ),
        DE,
        "input_matrix must have 2 rows",
    ),
    _case(
        "modal-output-kind",
        lambda: dc.modal_decouple(
            np.eye(2),
            np.eye(2),
            input_matrix=np.eye(2),
            output_matrix=np.eye(2),
            output_kind="jerk",
        ),
        AE,
        "output_kind.*'jerk'",
    ),
    _case(
        "condition-nan",
        lambda: dc.condition_number(np.array([[1.0, math.nan], [0, 1]])),
        AE,
        r"condition_number: G.*\(0, 1\)",
    ),
    _case(
        "condition-inf-stack",
        lambda: dc.condition_number(np.array([np.eye(2), [[math.inf, 0], [0, 1]]])),
        AE,
        r"condition_number: G.*\(1, 0, 0\)",
    ),
    _case("condition-1d", lambda: dc.condition_number(np.ones(3)), DE, r"shape \(3,\)"),
    _case("rga-nonsquare", lambda: dc.rga(np.ones((2, 3))), DE, r"square|\(2, 3\)"),
    _case("rga-nan", lambda: dc.rga(np.array([[math.nan]])), AE, "plant G.*non-finite"),
    _case(
        "gershgorin-nan",
        lambda: dc.gershgorin_ratios(np.array([[1.0, math.inf]])),
        AE,
        "G.*non-finite",
    ),
    _case(
        "gershgorin-axis", lambda: dc.gershgorin_ratios(np.eye(2), axis="diag"), AE, "axis.*'diag'"
    ),
    _case("rga-lti-no-omega", lambda: dc.rga(control.tf([1], [1, 1])), AE, "omega"),
]

# ------------------------------------------------------------------------ report
REPORT = [
    _case(
        "report-certain",
        lambda: rmb.report.worst_case_analysis(control.tf([1], [1, 1])),
        TE,
        "certain|uncertain",
    ),
    _case(
        "report-channel-unknown",
        lambda: rmb.report.worst_case_analysis(_loop(), {"T": (["zz"], ["u"])}, n_samples=0),
        SE,
        "'zz'",
    ),
    _case(
        "report-n-samples",
        lambda: rmb.report.worst_case_analysis(_loop(), n_samples=-1),
        AE,
        "n_samples.*-1",
    ),
    _case(
        "report-n-samples-float",
        lambda: rmb.report.worst_case_analysis(_loop(), n_samples=2.5),
        AE,
        "n_samples.*2.5",
    ),
    _case(
        "report-omega",
        lambda: rmb.report.worst_case_analysis(_loop(), omega=[]),
        AE,
        "omega.*empty",
    ),
    _case(
        "report-channels-type",
        lambda: rmb.report.worst_case_analysis(_loop(), channels=["y"]),
        SE,
        "channels",
    ),
    _case(
        "report-out-dir",
        lambda: rmb.report.worst_case_report(_loop(), out_dir=3, n_samples=0),
        AE,
        "out_dir.*3",
    ),
]

CASES = ELEMENTS + CONSTRUCTORS + ALGEBRA + CONNECT + SUBSTITUTION + ANALYSIS + MULTIBODY
CASES += DECOUPLING + REPORT


def test_table_is_large():
    assert len(CASES) >= 150


@pytest.mark.parametrize(("call", "error", "pattern"), CASES)
def test_bad_input(call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call()
    # The specific class, not only a ValueError/TypeError that happens to match.
    assert type(info.value).__module__ in ("robustmb.errors", "builtins")
    assert not isinstance(info.value, np.linalg.LinAlgError)
