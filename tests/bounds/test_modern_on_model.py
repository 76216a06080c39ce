"""The modern cells audited as models: the new claims (bounds/lru, s4d, mamba, min_rnn, xlstm) and the generic
classic ones (pascanu2013 general, miller_hardt2019 data-dependent, laurent2017 general) apply to each through
``from_model``, at least 4 per cell, and their assumptions fail where they must."""

from __future__ import annotations

import pytest
import torch

from rnnaudit.bounds.on_model import ModelView, assess
from rnnaudit.bounds.registry import all_claims, claim_by_id
from rnnaudit.cells import LRU, MLSTM, S4D, SLSTM, MinGRU, MinLSTM, SelectiveSSM

F64 = torch.float64
gen = lambda s: torch.Generator().manual_seed(s)  # noqa: E731
OWN = {"LRU": {"lru.stability", "lru.lemma_ring", "lru.forward_norm"}, "S4D": {"s4d.stability"},
       "SelectiveSSM": {"mamba.theorem1"}, "MinGRU": {"min_rnn.bounded", "min_rnn.jacobian"},
       "MinLSTM": {"min_rnn.bounded", "min_rnn.jacobian"}, "SLSTM": {"xlstm.stabiliser", "xlstm.normaliser"},
       "MLSTM": {"xlstm.mlstm_stabiliser"}}


def _cells():
    return [LRU(2, 3, generator=gen(0), dtype=F64), S4D(2, 2, generator=gen(1), dtype=F64),
            SelectiveSSM(3, 2, generator=gen(2), dtype=F64), MinGRU(2, 3, generator=gen(3), dtype=F64),
            MinLSTM(2, 3, generator=gen(3), dtype=F64), SLSTM(2, 3, generator=gen(4), dtype=F64),
            MLSTM(2, 3, generator=gen(5), dtype=F64)]


def _view(cell, T=8):
    return ModelView(cell, torch.randn(2, T, cell.input_size, dtype=F64, generator=gen(9)), T=T)


@pytest.mark.parametrize("cell", _cells(), ids=lambda c: type(c).__name__)
def test_at_least_four_claims_apply_to_each_modern_cell_including_its_papers_own(cell):
    view = _view(cell)
    applied = {c.id for c in all_claims() if assess(c, view, measure_bound=False).applies}
    assert OWN[type(cell).__name__] <= applied
    assert len(applied) >= 4, applied


def test_a_modern_claim_does_not_apply_to_another_cell():
    found = assess(claim_by_id("lru.stability"), _view(MinGRU(2, 3, generator=gen(3), dtype=F64)))
    assert not found.applies and "LRU" in found.reason and "MinGRU" in found.reason


def test_the_lru_claims_assumptions_fail_on_a_model_outside_them():
    cell = LRU(2, 3, generator=gen(0), dtype=F64)
    with torch.no_grad():
        cell.gamma_log.add_(0.5)  # γ no longer sqrt(1 − |λ|²)
        cell.nu_log[0] = float("nan")
    view = _view(cell)
    for cid in ("lru.forward_norm", "lru.stability", "lru.lemma_ring"):  # lemma_ring: 3 modes, not ≥ 1000 draws
        found = assess(claim_by_id(cid), view, measure_bound=False)
        assert found.applies and not found.assumptions_hold, cid


def test_the_lru_stability_bound_holds_on_a_drawn_lru_model():
    found = assess(claim_by_id("lru.stability"), _view(LRU(2, 3, r_min=0.5, r_max=0.99, generator=gen(0), dtype=F64)))
    assert found.assumptions_hold and found.verdict == "holds", found


def test_mambas_theorem1_assumptions_fail_on_a_default_selective_ssm():
    found = assess(claim_by_id("mamba.theorem1"), _view(SelectiveSSM(3, 2, generator=gen(2), dtype=F64)),
                   measure_bound=False)
    assert found.applies and not found.assumptions_hold  # N = 2 and A = −(n + 1), not N = 1, A = −1


def test_the_s4d_and_xlstm_assumptions_fail_on_models_outside_them():
    s4d = S4D(2, 2, generator=gen(1), dtype=F64)
    with torch.no_grad():
        s4d.log_dt[0] = float("inf")
    assert not assess(claim_by_id("s4d.stability"), _view(s4d), measure_bound=False).assumptions_hold
    slstm = SLSTM(2, 3, generator=gen(4), dtype=F64)
    with torch.no_grad():
        slstm.b.fill_(800.0)  # ĩ_t ≈ 800: the unstabilised i_t = e^800 overflows float64 (log n_t > 700)
    assert not assess(claim_by_id("xlstm.stabiliser"), _view(slstm), measure_bound=False).assumptions_hold
    mlstm = MLSTM(2, 3, generator=gen(5), dtype=F64)
    with torch.no_grad():
        for p in mlstm.parameters():
            p.mul_(1e3)
    assert not assess(claim_by_id("xlstm.mlstm_stabiliser"), _view(mlstm), measure_bound=False).assumptions_hold
