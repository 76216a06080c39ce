"""Reference recurrent cells, each tied to its paper (the bottom layer of rnnaudit).

One module per family: ``sgornn`` and ``fastrnn`` (sgornn.md), ``spectral`` (spectral_rnn.md),
``scornn`` and ``nc_gru`` (nc_gru.md), ``srnn`` (srnn.md), ``enrnn`` (enrnn.md); ``orthogonal`` holds
the maps φ from parameters to orthogonal matrices; ``lru``, ``s4d``, ``selective_ssm``, ``min_rnn``, ``slstm`` and
``mlstm`` hold the modern recurrences (LRU, S4D, Mamba's selective SSM, minGRU/minLSTM, xLSTM's sLSTM and mLSTM;
``real_view`` the real view (Re z, Im z) of complex states); ``adapters`` wraps any other model (``torch.nn.RNN``, ``GRU``,
``LSTM``, their ``*Cell``, or any step function) as a cell, :func:`wrap`.
"""

from rnnaudit.cells.adapters import SUPPORTED_MODULES, StepCell, TorchRecurrent, wrap
from rnnaudit.cells.base import RecurrentCell, get_activation, parameter_count
from rnnaudit.cells.baselines import LSTM
from rnnaudit.cells.enrnn import (ENRNN, eigenvalue_normalize, enrnn_recurrence, eq5_init, prop32_gradient,
                                  spectral_radius)
from rnnaudit.cells.real_view import RealView, realify, to_complex, to_real
from rnnaudit.cells.lru import LRU, lru_lambda, ring_init
from rnnaudit.cells.min_rnn import MinGRU, MinLSTM
from rnnaudit.cells.s4d import S4D, s4d_init, zoh
from rnnaudit.cells.selective_ssm import SelectiveSSM
from rnnaudit.cells.mlstm import MLSTM
from rnnaudit.cells.slstm import SLSTM
from rnnaudit.cells.fastrnn import FastRNN, scalar_gated_recurrence
from rnnaudit.cells.nc_gru import GRU, NCGRU, NeumannCayley, NeumannCayleyUpdater
from rnnaudit.cells.orthogonal import (ORTHOGONAL_MAPS, MatrixExponential, ScaledCayley, VPRNNRotations,
                                       build_orthogonal_map, orthogonality_defect, vprnn_max_sublayers)
from rnnaudit.cells.scornn import (ScoRNN, ScoRNNCayley, check_skew, modrelu, scaled_cayley, scaled_cayley_gradient,
                                   scaling_diagonal, scornn_skew_init)
from rnnaudit.cells.sgornn import SGORNN, VPRNN
from rnnaudit.cells.spectral import (ORNN, ReflectorTrace, SpectralLinear, SpectralRNN, householder_backward,
                                     householder_forward, householder_matrix, ornn_parameter_count, pack_reflectors,
                                     reflect, reflect_grad, reflector_product, sigma_from_hat,
                                     spectral_rnn_parameter_count, unpack_reflectors, WYFactors, compact_wy, wy_apply,
                                     wy_factors, wy_recurrence)
from rnnaudit.cells.srnn import SRNN, activation_derivative, eq9_closed_form, shift, shift_matrix

__all__ = [
    "RecurrentCell", "get_activation", "parameter_count", "LSTM",
    "wrap", "TorchRecurrent", "StepCell", "SUPPORTED_MODULES",
    "FastRNN", "scalar_gated_recurrence", "SGORNN", "VPRNN",
    "ORTHOGONAL_MAPS", "VPRNNRotations", "MatrixExponential", "ScaledCayley", "build_orthogonal_map",
    "orthogonality_defect", "vprnn_max_sublayers",
    "SpectralRNN", "ORNN", "SpectralLinear", "householder_matrix", "reflect", "reflect_grad", "householder_forward",
    "householder_backward", "ReflectorTrace", "reflector_product", "pack_reflectors", "unpack_reflectors",
    "sigma_from_hat", "spectral_rnn_parameter_count", "ornn_parameter_count", "WYFactors", "compact_wy", "wy_apply",
    "wy_factors", "wy_recurrence",
    "ScoRNN", "ScoRNNCayley", "check_skew", "modrelu", "scaled_cayley", "scaled_cayley_gradient",
    "scaling_diagonal", "scornn_skew_init", "GRU", "NCGRU", "NeumannCayley", "NeumannCayleyUpdater",
    "SRNN", "activation_derivative", "eq9_closed_form", "shift", "shift_matrix",
    "RealView", "to_real", "to_complex", "realify", "LRU", "lru_lambda", "ring_init", "S4D", "s4d_init", "zoh",
    "SelectiveSSM", "MinGRU", "MinLSTM", "SLSTM", "MLSTM",
    "ENRNN", "eigenvalue_normalize", "enrnn_recurrence", "eq5_init", "prop32_gradient", "spectral_radius",
]
