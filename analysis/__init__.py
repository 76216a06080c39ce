"""Probes that measure cells: Jacobian maps, gradient norms, capacity, spectra, pseudospectra, the
spectral probes by role of every recurrent matrix, the Lyapunov spectrum, fixed and slow points and the
Neumann monitor (uses ``rnnaudit.cells`` only). Every cell argument also takes a model
:func:`rnnaudit.cells.wrap` accepts."""

from rnnaudit.analysis.gradients import euclidean_norm, gradient_norms, max_norm, parameter_gradients
from rnnaudit.analysis.capacity import RademacherEstimate, capacity_records, cell_rademacher, sgornn_rademacher_bound
from rnnaudit.analysis.jacobian import (CERTIFIED_RTOL, HEATMAP_RTOL, JacobianMaps, hidden_jacobian_maps,
                                        hidden_jacobian_norms, input_jacobian_maps, input_jacobians,
                                        naive_hidden_jacobian_maps, pair_jacobian, step_jacobians)
from rnnaudit.analysis.grid_maps import (DEFAULT_RESOLUTION, CostEstimate, default_memory_limit, estimate_cost,
                                         gemm_seconds, grid_steps, state_block, stated_error_ratio)
from rnnaudit.analysis.fixed_points import FixedPoints, find_fixed_points
from rnnaudit.analysis.lyapunov import LyapunovEstimate, LyapunovSpectrum, lyapunov_estimate, lyapunov_spectrum
from rnnaudit.analysis.neumann import NeumannMonitor, neumann_arrays, series_truncation_errors
from rnnaudit.analysis.pseudospectra import (KreissEstimate, PseudospectrumGrid, TransientGrowth, kreiss_constant,
                                             pseudospectrum, sigma_min, sigma_min_dense, transient_growth)
from rnnaudit.analysis.roles import RecurrentMatrixProbes, recurrent_matrix_probes
from rnnaudit.analysis.spectra import (SpectralSummary, condition_number, eigenvalues, henrici_departure,
                                       numerical_radius, numerical_range, orthogonality_distance, schur_departure,
                                       singular_values, spectral_summary)

__all__ = ["FixedPoints", "find_fixed_points", "gradient_norms", "max_norm", "euclidean_norm", "LyapunovSpectrum", "lyapunov_spectrum", "LyapunovEstimate", "lyapunov_estimate",
           "RecurrentMatrixProbes", "recurrent_matrix_probes",
           "parameter_gradients", "hidden_jacobian_norms", "step_jacobians", "JacobianMaps",
           "hidden_jacobian_maps", "input_jacobian_maps", "input_jacobians", "pair_jacobian", "RademacherEstimate",
           "naive_hidden_jacobian_maps", "CERTIFIED_RTOL", "HEATMAP_RTOL", "DEFAULT_RESOLUTION", "CostEstimate",
           "default_memory_limit", "estimate_cost", "gemm_seconds", "grid_steps", "state_block", "stated_error_ratio",
           "capacity_records", "cell_rademacher", "sgornn_rademacher_bound", "NeumannMonitor", "neumann_arrays",
           "series_truncation_errors",
           "KreissEstimate", "PseudospectrumGrid", "TransientGrowth", "kreiss_constant", "pseudospectrum", "sigma_min",
           "sigma_min_dense", "transient_growth", "SpectralSummary", "condition_number", "eigenvalues",
           "henrici_departure", "numerical_radius", "numerical_range", "orthogonality_distance", "schur_departure",
           "singular_values", "spectral_summary"]
