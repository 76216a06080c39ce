"""Spectral probes of every recurrent matrix by role (analysis/roles.py), on our own cells and on
wrapped torch modules, and the default recurrent_matrices() of the cell interface."""

import json

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrizations

from rnnaudit.analysis.roles import RecurrentMatrixProbes, recurrent_matrix_probes
from rnnaudit.analysis.spectra import as_square_matrix, eigenvalues, spectral_summary
from rnnaudit.cells import wrap
from rnnaudit.cells.registry import CELLS, build_cell

F64 = torch.float64

#: the role each of our cells gives its recurrent matrix, in its paper's notation
ROLES = {"sgornn": ["U"], "fastrnn": ["U"], "vprnn": ["U"], "spectral_rnn": ["W"], "ornn": ["W"], "scornn": ["W"],
         "gru": ["U_r", "U_u", "U_c"], "nc_gru": ["U_r", "U_u", "U_c"], "srnn": ["W_p"], "enrnn": ["W"],
         "lstm": ["W_hi", "W_hf", "W_hg", "W_ho"]}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_every_cell_names_its_recurrent_matrices_by_role(name):
    cell = build_cell(name, 2, 8, dtype=F64)
    mats = cell.recurrent_matrices()
    assert list(mats) == ROLES[name]
    if len(mats) == 1:
        assert torch.equal(mats[ROLES[name][0]], cell.recurrent_matrix())
    for A in mats.values():
        assert A.shape[0] == A.shape[1]


@pytest.mark.slow
def test_probes_of_a_wrapped_gru_are_those_of_each_block():
    torch.manual_seed(0)
    gru = nn.GRU(2, 4, num_layers=2, dtype=F64)
    probes = recurrent_matrix_probes(gru, K=20, grid=8)
    blocks = wrap(gru).recurrent_matrices()
    assert list(probes) == list(blocks) == [f"l{k}.W_h{g}" for k in range(2) for g in "rzn"]
    for role, p in probes.items():
        A = blocks[role].detach()
        sv = torch.linalg.svdvals(A)
        assert isinstance(p, RecurrentMatrixProbes) and p.shape == (4, 4)
        assert (p.sigma_min, p.sigma_max) == (float(sv[-1]), float(sv[0]))
        assert torch.equal(p.summary.eigenvalues, eigenvalues(A))
        assert p.summary.spectral_radius == spectral_summary(A).spectral_radius
        assert float(p.transient.curve[1]) == pytest.approx(float(sv[0]), rel=1e-14)
        assert p.transient.curve.shape == (21,)
        assert p.kreiss.value >= 1 and p.pseudospectrum.sigma.shape == (8, 8)
    json.dumps({r: p.to_dict() for r, p in probes.items()})


def test_an_orthogonal_parametrized_rnn_has_sigma_range_one_and_kreiss_constant_one():
    """W orthogonal: every singular value is 1 (the σ range collapses to a point), W is normal with
    ρ = 1, so ‖W^k‖ = 1 for all k and K(W) = 1 (pseudospectra.py)."""
    torch.manual_seed(1)
    rnn = nn.RNN(2, 7, dtype=F64)
    parametrizations.orthogonal(rnn, "weight_hh_l0", orthogonal_map="cayley")
    (role, p), = recurrent_matrix_probes(rnn, K=30).items()
    assert role == "W_hh"
    assert p.sigma_min == pytest.approx(1, abs=1e-13) and p.sigma_max == pytest.approx(1, abs=1e-13)
    assert p.transient.peak == pytest.approx(1, abs=1e-12)
    assert p.kreiss.value == pytest.approx(1, abs=1e-6)
    # negative control: a non-normal W has a σ range away from 1
    plain = nn.RNN(2, 7, dtype=F64)
    q = recurrent_matrix_probes(plain, kreiss=False)["W_hh"]
    assert q.sigma_max - q.sigma_min > 0.1 and q.kreiss is None


def test_non_square_blocks_get_the_sigma_range_only():
    lstm = nn.LSTM(2, 6, proj_size=3, dtype=F64)
    probes = recurrent_matrix_probes(lstm, roles=["W_hg"])
    p = probes["W_hg"]
    assert list(probes) == ["W_hg"] and p.shape == (6, 3)
    assert p.summary is None and p.transient is None and p.kreiss is None
    assert p.sigma_max == pytest.approx(float(torch.linalg.svdvals(lstm.weight_hh_l0[12:18].detach())[0]))


def test_role_errors_are_named():
    gru = nn.GRU(2, 4, dtype=F64)
    with pytest.raises(ValueError, match=r"roles \['U_c'\] are not among the cell's recurrent matrices"):
        recurrent_matrix_probes(gru, roles="U_c")
    with pytest.raises(ValueError, match="grid must be an int >= 2"):
        recurrent_matrix_probes(gru, grid=1)
    step = wrap(lambda x_t, h: h, input_size=1, state_size=2)
    with pytest.raises(ValueError, match="declares no recurrent matrix"):
        recurrent_matrix_probes(step)
    with torch.no_grad():
        gru.weight_hh_l0[0, 0] = float("nan")
    with pytest.raises(ValueError, match="recurrent matrix 'W_hr' must be finite"):
        recurrent_matrix_probes(gru)


def test_single_matrix_probes_accept_torch_modules():
    rnn = nn.RNN(2, 5, dtype=F64)
    assert torch.equal(as_square_matrix(rnn), rnn.weight_hh_l0.detach())
    with pytest.raises(ValueError, match=r"3 recurrent matrices \['W_hn', 'W_hr', 'W_hz'\]"):
        spectral_summary(nn.GRU(2, 5, dtype=F64))
