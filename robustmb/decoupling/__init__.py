"""Decoupling of MIMO plants for decentralised (diagonal) control.

Three constant-matrix decouplings (seed 004, Dehaeze, "Diagonal control using the SVD
and the Jacobian matrix"):

* :func:`jacobian_decouple` - topology driven, with the Jacobians of a chosen frame;
* :func:`svd_decouple` - data driven, from the response at one frequency;
* :func:`modal_decouple` - physics driven, from the mass and stiffness matrices;

each returning a :class:`Decoupling` with ``.plant`` (the decoupled plant, same kind as the
input: python-control system, ``(nw, p, m)`` frequency-response stack, or uncertain
system), ``.apply(G)`` and ``.controller(Kd)``. Decoupling quality is judged with
:func:`gershgorin_ratios`, :func:`rga`, :func:`rga_number` and condition numbers.

Mechanical plants (:class:`ParallelManipulator`, :class:`InstrumentedManipulator`) and
stiffness tools (:func:`center_of_stiffness`, :func:`diagonal_stiffness_conditions`,
:func:`legs_frame_matrices`) build the study's examples, which live in
:mod:`robustmb.examples` (``gravimeter``, ``stewart_platform`` ...);
:func:`uncertain_mechanical_plant` builds such plants with uncertain
stiffness or geometry as exact LFTs, and :func:`worst_case_gershgorin` bounds the
coupling of a decoupled uncertain plant over the whole uncertainty set. Plotting helpers
live in :mod:`robustmb.decoupling.plots` (imports matplotlib).
"""

from robustmb.decoupling.conditioning import (
    MinimizedConditionNumber,
    condition_number,
    minimized_condition_number,
)
from robustmb.decoupling.decoupling_result import Decoupling
from robustmb.decoupling.diagonal_control import (
    DiagonalController,
    closed_loop,
    closed_loop_poles,
    diagonal_controller,
    diagonal_lowpass_controller,
    is_stable,
    loop_gains,
)
from robustmb.decoupling.geometry import (
    frame_translation,
    line_jacobian,
    planar_jacobian,
    point_sensor_jacobian,
    skew,
    spatial_jacobian,
    unskew,
)
from robustmb.decoupling.instrumented_manipulator import InstrumentedManipulator
from robustmb.decoupling.jacobian_decoupling import JacobianDecoupling, jacobian_decouple
from robustmb.decoupling.metrics import (
    gershgorin_ratios,
    rga,
    rga_abs_sum_minus_n,
    rga_number,
)
from robustmb.decoupling.modal_decoupling import ModalDecoupling, modal_decouple, modal_plant
from robustmb.decoupling.parallel_manipulator import ParallelManipulator
from robustmb.decoupling.plant_data import evaluate, frequency_response, transform
from robustmb.decoupling.robust_coupling import (
    WorstCaseGershgorin,
    gershgorin_mu_problem,
    worst_case_gershgorin,
)
from robustmb.decoupling.second_order import Measurement, SecondOrderSystem
from robustmb.decoupling.stiffness import (
    StiffnessConditions,
    center_of_stiffness,
    diagonal_stiffness_conditions,
    frame_change,
    is_diagonal,
    leg_mass_conditions,
    legs_frame_matrices,
    stiffness_matrix,
)
from robustmb.decoupling.svd_decoupling import (
    SVDDecoupling,
    real_approximation,
    static_decouple,
    svd_decouple,
)
from robustmb.decoupling.transmissibility import transmissibility
from robustmb.decoupling.uncertain_plants import (
    uncertain_line_jacobian,
    uncertain_mechanical_plant,
)

__all__ = [
    "Decoupling",
    "DiagonalController",
    "InstrumentedManipulator",
    "JacobianDecoupling",
    "Measurement",
    "MinimizedConditionNumber",
    "ModalDecoupling",
    "ParallelManipulator",
    "SVDDecoupling",
    "SecondOrderSystem",
    "StiffnessConditions",
    "WorstCaseGershgorin",
    "center_of_stiffness",
    "closed_loop",
    "closed_loop_poles",
    "condition_number",
    "diagonal_controller",
    "diagonal_lowpass_controller",
    "diagonal_stiffness_conditions",
    "evaluate",
    "frame_change",
    "frame_translation",
    "frequency_response",
    "gershgorin_mu_problem",
    "gershgorin_ratios",
    "is_diagonal",
    "is_stable",
    "jacobian_decouple",
    "leg_mass_conditions",
    "legs_frame_matrices",
    "line_jacobian",
    "loop_gains",
    "minimized_condition_number",
    "modal_decouple",
    "modal_plant",
    "planar_jacobian",
    "point_sensor_jacobian",
    "real_approximation",
    "rga",
    "rga_abs_sum_minus_n",
    "rga_number",
    "skew",
    "spatial_jacobian",
    "static_decouple",
    "stiffness_matrix",
    "svd_decouple",
    "transform",
    "transmissibility",
    "uncertain_line_jacobian",
    "uncertain_mechanical_plant",
    "unskew",
    "worst_case_gershgorin",
]
