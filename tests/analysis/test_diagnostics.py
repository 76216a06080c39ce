"""analysis.diagnostics.max_step_norm: the one engine of the largest step-Jacobian norm of a block of the state."""

from __future__ import annotations

import pytest
import torch

from rnnaudit.analysis.diagnostics import max_step_norm


def _jacobians(m=4, T=7, S=6, seed=0):
    return torch.randn(m, T, S, S, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("index", [None, [0, 1, 2], [1, 4, 5]], ids=["whole", "contiguous", "scattered"])
def test_the_largest_block_norm_over_every_sequence_is_the_brute_force_maximum(index):
    J = _jacobians()
    block = J if index is None else J[..., index, :][..., index]
    norms = torch.linalg.matrix_norm(block, 2)  # an SVD per step
    got = max_step_norm(J, index)
    # √λ_max of a 6 × 6 Gram matrix against an SVD: relative error of order S·eps (~1e-15); 1e-12 is the margin
    assert got.value == pytest.approx(float(norms.max()), rel=1e-12)
    flat = int(norms.argmax())
    assert got.at == (flat // J.shape[1], flat % J.shape[1] + 1) and got.sequences == J.shape[0]
    assert got.fraction_below_one <= float((norms < 1).double().mean())  # certified: a lower bound on the share
    lazy = max_step_norm(iter(J.unbind(0)), index)  # read one sequence at a time, the same number
    assert (lazy.value, lazy.at) == (got.value, got.at)


def test_a_larger_step_in_a_later_sequence_is_the_one_reported():
    J = _jacobians() * 0.1
    J[3, 5] = 3 * torch.eye(6, dtype=torch.float64)
    got = max_step_norm(J, [0, 1])
    assert got.value == pytest.approx(3.0, rel=1e-14) and got.at == (3, 6)
    assert got.fraction_below_one == pytest.approx(1 - 1 / J[:, :, 0, 0].numel())


@pytest.mark.parametrize("index, words", [([0, 6], r"\[0, 6\)"), ([1, 1], "distinct"), ([], "distinct")])
def test_a_block_outside_the_state_is_refused_by_name(index, words):
    with pytest.raises(ValueError, match=words):
        max_step_norm(_jacobians(), index)


def test_no_sequence_or_a_non_square_jacobian_is_refused():
    with pytest.raises(ValueError, match="no sequence"):
        max_step_norm([])
    with pytest.raises(ValueError, match=r"\(T, S, S\)"):
        max_step_norm([torch.zeros(3, 2, 4, dtype=torch.float64)])


def test_an_overflowing_median_or_step_norm_is_written_inf_and_only_an_unmeasured_one_null():
    import dataclasses
    import json
    import math

    from rnnaudit.analysis.diagnostics import StateDiagnostics

    d = StateDiagnostics(state_size=2, T=6000, sequences=1, contractivity=math.inf, contractivity_at=(0, 3),
                         contractive_fraction=0.0, horizon=None, horizon_medians=[2.0, math.inf], threshold=1e-3,
                         lyapunov_halfwidth=[math.nan])
    doc = json.loads(json.dumps(d.to_json(), allow_nan=False))
    assert doc["median_norm_at_horizon"] == "inf" and doc["contractivity"] == "inf"
    assert doc["lyapunov_halfwidth"] == [None]
    assert dataclasses.replace(d, horizon_medians=[]).to_json()["median_norm_at_horizon"] is None
