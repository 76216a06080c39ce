"""The Monitor's matrix record counts the eigenvalues within 1e-3 of the unit circle (an LRU's |λ|), with the
largest modulus as the spectral radius, for complex diagonal recurrent matrices too."""

import math

import torch

from rnnaudit.cells import LRU
from rnnaudit.monitoring.probes import UNIT_CIRCLE_BAND, matrix_record


def test_the_unit_circle_fraction_counts_the_lrus_eigenvalues_near_the_circle():
    cell = LRU(2, 4, r_min=0.5, r_max=0.9, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with torch.no_grad():  # |λ_0| = 1 − 5e-4 (inside the band), |λ_1| = 1 − 2e-3 (outside), the rest ≤ 0.9
        cell.nu_log[0] = math.log(-math.log(1 - 5e-4))
        cell.nu_log[1] = math.log(-math.log(1 - 2e-3))
    record = matrix_record(cell.recurrent_matrices())
    assert UNIT_CIRCLE_BAND == 1e-3
    assert record["unit_circle_fraction"] == 0.25 and record["unit_circle_fraction/Lambda"] == 0.25
    assert math.isclose(record["spectral_radius"], 1 - 5e-4, rel_tol=1e-12)


def test_the_unit_circle_fraction_is_zero_for_a_contractive_ring():
    cell = LRU(2, 4, r_min=0.5, r_max=0.9, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert matrix_record(cell.recurrent_matrices())["unit_circle_fraction"] == 0.0
