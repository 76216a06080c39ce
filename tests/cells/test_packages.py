"""Pip implementations mapped onto the reference cells (cells/packages.py): the mapping reproduces each module's own
float64 forward within the derived tolerance, and is refused, in one line, where it does not.

Each test skips when its package is not installed (``pip install rnnaudit[modern]``)."""

from __future__ import annotations

import pytest
import torch

from rnnaudit.cells import LRU, MinGRU, MinLSTM, SelectiveSSM, wrap
from rnnaudit.cells.packages import check_mapping, mapping_tolerance, package_mapping


def _x(n, T=20, m=2, seed=1):
    return torch.randn(m, T, n, generator=torch.Generator().manual_seed(seed))


def lru_pytorch(n=3, n_out=2, N=6):
    LRU_pytorch = pytest.importorskip("LRU_pytorch")
    torch.manual_seed(0)
    return LRU_pytorch.LRU(n, n_out, N, rmin=0.4, rmax=0.95, max_phase=3.0)


def mamba_block(d_model=3, d_state=4, **kw):
    mamba = pytest.importorskip("mambapy.mamba")
    torch.manual_seed(0)
    return mamba.MambaBlock(mamba.MambaConfig(d_model=d_model, n_layers=1, d_state=d_state, **kw))


def mingru(kind="gru", dim=4, **kw):
    module = pytest.importorskip("minGRU_pytorch.minGRU" if kind == "gru" else "minGRU_pytorch.minLSTM")
    torch.manual_seed(0)
    return module.minGRU(dim, **kw) if kind == "gru" else module.minLSTM(dim, **kw)


@pytest.mark.parametrize("build, n, cell_type", [
    (lru_pytorch, 3, LRU), (mamba_block, 3, SelectiveSSM), (mingru, 4, MinGRU),
    (lambda: mingru("lstm"), 4, MinLSTM), (lambda: mingru(expansion_factor=2.0), 4, MinGRU)])
def test_each_pip_module_maps_onto_its_reference_cell_within_the_derived_float64_tolerance(build, n, cell_type):
    module = build()  # float32, as users build them
    mapping = package_mapping(module)
    assert isinstance(mapping.cell, cell_type) and mapping.input_size == n
    assert all(p.dtype == torch.float64 for p in mapping.cell.parameters())
    diff, tol = check_mapping(mapping, _x(n))
    assert diff <= tol <= 1e-11, (diff, tol)
    assert mapping.checked == (diff, tol) and mapping.to_json(diff, tol)["max_abs_difference_float64"] == diff


def test_the_user_module_is_left_in_its_own_dtype_by_the_mapping():
    module = lru_pytorch()
    package_mapping(module)
    assert module.B.dtype == torch.complex64 and module.nu_log.dtype == torch.float32


def test_a_mapping_that_computes_another_formula_is_refused_in_one_line():
    mapping = package_mapping(lru_pytorch())
    with torch.no_grad():
        mapping.cell.gamma_log.zero_()  # γ = 1: the unnormalised recurrence, not what the module computes
    with pytest.raises(ValueError, match=r"does not compute rnnaudit.cells.LRU.*difference .* > tolerance") as err:
        check_mapping(mapping, _x(3))
    assert "\n" not in str(err.value)


def test_mambapy_with_the_zoh_discretisation_misses_the_tolerance_by_orders_of_magnitude():
    """The package's B̄ = ΔB against the paper's zero-order hold: the check must see the difference."""
    mapping = package_mapping(mamba_block())
    mapping.cell.discretisation = "zoh"
    with pytest.raises(ValueError, match="the mapping is refused"):
        check_mapping(mapping, _x(3))


def test_mambapy_settings_the_reference_cell_does_not_compute_are_refused_by_name():
    with pytest.raises(ValueError, match="inner_layernorms=True"):
        package_mapping(mamba_block(inner_layernorms=True))


def test_inputs_of_the_wrong_width_are_refused_before_the_package_runs():
    mapping = package_mapping(mingru())
    with pytest.raises(ValueError, match=r"must be \(m, T, 4\), got \(2, 20, 3\)"):
        check_mapping(mapping, _x(3))


def test_the_tolerance_grows_with_T_width_and_scale_from_the_unit_roundoff():
    mapping = package_mapping(mingru())
    x = _x(4, T=10)
    assert mapping_tolerance(mapping, x, 0.5) == 16 * 2.0 ** -53 * 10 * 8
    assert mapping_tolerance(mapping, x, 4.0) == 4 * mapping_tolerance(mapping, x, 1.0)


def test_a_module_of_another_class_is_not_mapped():
    assert package_mapping(torch.nn.GRU(2, 3)) is None and package_mapping(MinGRU(2, 3)) is None


def test_wrap_returns_the_reference_cell_of_a_pip_module_with_its_mapping():
    module = mamba_block()
    cell = wrap(module)
    assert isinstance(cell, SelectiveSSM) and cell.discretisation == "euler"
    assert cell.package_mapping.module_class == "mambapy.mamba.MambaBlock"
    x = _x(3).double()
    u = cell.package_mapping.inputs(x)  # the scan's inputs: SiLU(conv1d(in_proj x)), width d_inner
    assert u.shape == (2, 20, module.config.d_inner)
    with pytest.raises(ValueError, match="leave out"):
        wrap(module, state_size=3)
