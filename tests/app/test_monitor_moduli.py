"""The Monitor's matrix record counts the eigenvalues within 1e-3 of the unit circle (an LRU's |λ|), with the
largest modulus as the spectral radius, for complex diagonal recurrent matrices too."""

import math

import pytest

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


def _lru_pytorch(N=4):
    LRU_pytorch = pytest.importorskip("LRU_pytorch")
    torch.manual_seed(0)
    return LRU_pytorch.LRU(2, 2, N, rmin=0.8, rmax=0.95)


def _moduli(module) -> torch.Tensor:
    return torch.exp(-torch.exp(module.nu_log.detach().double()))


def test_the_monitor_records_the_lambda_moduli_of_a_complex_lru_pytorch_module_as_it_trains(tmp_path):
    """lru-pytorch's LRU has complex B and C: the Monitor probes it as rnnaudit.cells.LRU, re-mapped from the
    module's current parameters at every record, so |λ| follows the optimiser; a mode moved to within 1e-3 of the
    circle is counted."""
    from rnnaudit import Monitor

    module = _lru_pytorch()
    x = torch.randn(2, 8, 2, generator=torch.Generator().manual_seed(1))
    monitor = Monitor(module, tmp_path / "run", every=1, inputs=x, summary_every=1, tensorboard=False)
    optimiser = torch.optim.SGD(module.parameters(), lr=0.5)
    records = []
    for step in range(2):
        before = _moduli(module)
        loss = module(x).square().mean()
        loss.backward()
        records.append(monitor.record(step, loss))
        optimiser.step()
        optimiser.zero_grad()
        # the record is of the parameters this step's loss was computed with (before the update)
        assert math.isclose(records[-1]["spectral_radius/Lambda"], float(before.max()), rel_tol=1e-6)
    assert records[0]["spectral_radius/Lambda"] != records[1]["spectral_radius/Lambda"]  # it trains
    with torch.no_grad():  # |λ_0| = 1 − 5e-4: inside the band
        module.nu_log[0] = math.log(-math.log(1 - 5e-4))
    loss = module(x).square().mean()
    loss.backward()
    record = monitor.record(2, loss)
    monitor.close()
    assert record["unit_circle_fraction/Lambda"] == 0.25
    assert math.isclose(record["spectral_radius/Lambda"], float(_moduli(module).max()), rel_tol=1e-6)
    assert "grad/B/fro" in record and record["grad/B/fro"] > 0  # the complex parameter's gradient norm


def test_the_monitor_refuses_a_mambapy_block_in_one_line(tmp_path):
    mamba = pytest.importorskip("mambapy.mamba")
    from rnnaudit import Monitor

    block = mamba.MambaBlock(mamba.MambaConfig(d_model=2, n_layers=1, d_state=2))
    with pytest.raises(ValueError, match="does not follow them yet") as err:
        Monitor(block, tmp_path / "run", tensorboard=False)
    assert "\n" not in str(err.value) and not (tmp_path / "run").exists()
