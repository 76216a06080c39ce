"""SGORNN, FastRNN and VPRNN cells against sgornn.md eq. 1–3 and Tables 1–3."""

import math

import pytest
import torch
from torch import nn

from rnnaudit.cells import (LSTM, FastRNN, MatrixExponential, SGORNN, ScaledCayley, VPRNN, VPRNNRotations,
                            orthogonality_defect, parameter_count, vprnn_max_sublayers)
from tests.conftest import DEVICES

F64 = torch.float64
# float64 products of k ≤ 16 rotations: each rounding is ≈ 1e-16, so 1e-12 leaves a wide margin
ORTHO_TOL = 1e-12


def _counts(n, h, readout, lstm_units):
    """Parameter counts of the paper's models: cell (+ a Linear(width, 1) readout when ``readout``)."""
    extra = lambda width: parameter_count(nn.Linear(width, 1)) if readout else 0  # noqa: E731
    k = vprnn_max_sublayers(h)
    return {"VPRNN": parameter_count(VPRNN(n, h, k=k)) + extra(h),
            "SGORNN": parameter_count(SGORNN(n, h, k=k)) + extra(h),
            "FastRNN": parameter_count(FastRNN(n, h)) + extra(h),
            "LSTM": parameter_count(LSTM(n, lstm_units)) + extra(lstm_units)}


def test_sgornn_table1_parameter_counts():
    """sgornn.md Table 1 (addition problem, n = 2, h = 128, k = 14, one output neuron)."""
    assert _counts(2, 128, True, 128) == {"VPRNN": 1409, "SGORNN": 1411, "FastRNN": 16899, "LSTM": 67201}


def test_sgornn_table2_parameter_counts():
    """sgornn.md Table 2 (HAR-2, n = 9, h = 128, k = 14, one output neuron; the LSTM has 64 units)."""
    assert _counts(9, 128, True, 64) == {"VPRNN": 2305, "SGORNN": 2307, "FastRNN": 17795, "LSTM": 19009}


def test_sgornn_table3_parameter_counts():
    """sgornn.md Table 3 (PTB, embedding = h = 256, k = 16, cell parameters only)."""
    assert _counts(256, 256, False, 256) == {"VPRNN": 67840, "SGORNN": 67842, "FastRNN": 131330, "LSTM": 525312}


@pytest.mark.parametrize("phi", ["expm", "cayley"])
def test_skew_maps_count_free_entries(phi):
    """φ = exp(Θ − Θᵀ) or the Cayley map of Θ − Θᵀ depends on Θ only through its skew part, h(h−1)/2 free
    scalars (the count EXPRNN and scoRNN report), declared by the map's free_entries()."""
    n, h = 3, 10
    cell = SGORNN(n, h, phi=phi)
    assert cell.phi.free_entries() == {"theta": h * (h - 1) // 2}
    assert parameter_count(cell) == h * n + h + h * (h - 1) // 2 + 2


def test_parameter_count_rejects_bad_free_entries():
    """A free_entries() that names no parameter, or claims more entries than it has, is a ValueError."""
    class Bad(nn.Module):
        def __init__(self, claim):
            super().__init__()
            self.w, self.claim = nn.Parameter(torch.zeros(2, 2)), claim

        def free_entries(self):
            return self.claim

    assert parameter_count(Bad({"w": 3})) == 3
    for claim in ({"w": 5}, {"v": 1}, {"w": -1}):
        with pytest.raises(ValueError, match="free_entries"):
            parameter_count(Bad(claim))


@pytest.mark.parametrize("device", DEVICES)
def test_lstm_step_matches_torch_lstm(device):
    cell = LSTM(3, 5, dtype=F64, device=device)
    with torch.no_grad():
        cell.lstm.bias_ih_l0.normal_()
    x = torch.randn(2, 7, 3, dtype=F64, device=device)
    ours = cell(x)
    reference, _ = cell.lstm(x)
    torch.testing.assert_close(ours[..., :5], reference, rtol=1e-12, atol=1e-13)
    state = torch.zeros(2, 10, dtype=F64, device=device)
    for t in range(7):
        state = cell.step(x[:, t], state)
    torch.testing.assert_close(state, ours[:, -1], rtol=1e-12, atol=1e-13)


def test_vprnn_k_is_the_maximum_the_paper_uses():
    """Sec. 3.1–3.3: k = 14 for h = 128 and k = 16 for h = 256."""
    assert vprnn_max_sublayers(128) == 14 and vprnn_max_sublayers(256) == 16


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("h,k", [(2, 1), (2, 2), (8, 6), (128, 14)])
def test_vprnn_eq2_is_orthogonal(h, k, device):
    phi = VPRNNRotations(h, k, generator=torch.Generator().manual_seed(h + k), dtype=F64, device=device)
    assert orthogonality_defect(phi.matrix().detach()) < ORTHO_TOL


@pytest.mark.parametrize("cls", [MatrixExponential, ScaledCayley])
def test_expm_and_cayley_maps_are_orthogonal(cls):
    phi = cls(16, dtype=F64)
    with torch.no_grad():
        phi.theta.copy_(torch.randn(16, 16, dtype=F64, generator=torch.Generator().manual_seed(3)))
    assert orthogonality_defect(phi.matrix().detach()) < ORTHO_TOL


def test_vprnn_eq2_structure():
    """φ(Θ) = R_1 Q_1 … R_k Q_k: with Θ = 0 it is the permutation Q_1⋯Q_k, and each R_j rotates
    the pairs (2i, 2i+1) by Θ_ij."""
    h, k = 6, 3
    phi = VPRNNRotations(h, k, generator=torch.Generator().manual_seed(0), dtype=F64)
    Q = [torch.eye(h, dtype=F64)[phi.permutations[j]] for j in range(k)]
    with torch.no_grad():
        phi.theta.zero_()
    assert torch.equal(phi.matrix(), Q[0] @ Q[1] @ Q[2])
    theta = torch.randn(h // 2, k, dtype=F64)
    R = []
    for j in range(k):
        Rj = torch.zeros(h, h, dtype=F64)
        for i in range(h // 2):
            c, s = math.cos(theta[i, j]), math.sin(theta[i, j])
            Rj[2 * i:2 * i + 2, 2 * i:2 * i + 2] = torch.tensor([[c, -s], [s, c]], dtype=F64)
        R.append(Rj)
    expected = R[0] @ Q[0] @ R[1] @ Q[1] @ R[2] @ Q[2]
    torch.testing.assert_close(phi.matrix(theta), expected, rtol=0, atol=1e-14)
    y = torch.randn(4, h, dtype=F64)
    torch.testing.assert_close(phi.apply(y, theta), y @ expected.mT, rtol=0, atol=1e-14)


def test_sgornn_eq1_one_step_by_hand():
    """h_1 = α σ(W x_1 + φ(Θ) h_0 + b) + β h_0 with α = sigmoid(α̂), β = min(sigmoid(β̂), 1 − 2α)."""
    cell = SGORNN(3, 4, generator=torch.Generator().manual_seed(1), dtype=F64, alpha_init=-1.0, beta_init=2.0)
    with torch.no_grad():
        cell.b.normal_()
    x, h0 = torch.randn(2, 1, 3, dtype=F64), torch.randn(2, 4, dtype=F64)
    alpha = torch.sigmoid(torch.tensor(-1.0, dtype=F64))
    beta = torch.minimum(torch.sigmoid(torch.tensor(2.0, dtype=F64)), 1 - 2 * alpha)
    U = cell.recurrent_matrix()
    expected = alpha * torch.relu(x[:, 0] @ cell.W.mT + h0 @ U.mT + cell.b) + beta * h0
    torch.testing.assert_close(cell(x, h0)[:, 0], expected, rtol=1e-14, atol=1e-14)


def test_sgornn_eq3_beta_clipped_to_one_minus_two_alpha():
    cell = SGORNN(2, 4, alpha_init=-1.0, beta_init=5.0, dtype=F64)
    assert cell.beta.item() == pytest.approx(1 - 2 * cell.alpha.item(), abs=1e-15)
    assert SGORNN(2, 4, alpha_init=-1.0, beta_init=5.0, clip_beta=False).beta.item() > 1 - 2 * cell.alpha.item()


def test_sgornn_eq3_empty_interval_is_an_error():
    with pytest.raises(ValueError, match="alpha"):
        SGORNN(2, 4, alpha_init=0.5).beta


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("make", [
    lambda: SGORNN(3, 8, dtype=F64), lambda: VPRNN(3, 8, dtype=F64), lambda: FastRNN(3, 8, dtype=F64),
    lambda: FastRNN(3, 8, dtype=F64, beta_mode="one_minus_alpha"), lambda: SGORNN(3, 8, phi="expm", dtype=F64),
])
def test_forward_equals_repeated_step(make, device):
    cell = make().to(device)
    x = torch.randn(2, 9, 3, dtype=F64, device=device)
    h = torch.zeros(2, 8, dtype=F64, device=device)
    states = []
    for t in range(9):
        h = cell.step(x[:, t], h)
        states.append(h)
    torch.testing.assert_close(cell(x), torch.stack(states, 1), rtol=1e-12, atol=1e-13)


def test_fastrnn_beta_one_minus_alpha_option():
    cell = FastRNN(2, 4, beta_mode="one_minus_alpha")
    assert cell.beta.item() == pytest.approx(1 - cell.alpha.item())
    assert "beta" not in cell.parameters_by_role()


def test_parameters_by_role_use_paper_names():
    assert set(SGORNN(2, 4).parameters_by_role()) == {"W", "Theta", "b", "alpha", "beta"}
    assert set(FastRNN(2, 4).parameters_by_role()) == {"W", "U", "b", "alpha", "beta"}
    assert set(VPRNN(2, 4, bias=False).parameters_by_role()) == {"W", "Theta"}


@pytest.mark.parametrize("x,match", [
    (torch.randn(2, 5, 4, dtype=F64), "input width 3"),
    (torch.randn(2, 0, 3, dtype=F64), "T >= 1"),
    (torch.randn(5, 3, dtype=F64), "shape"),
    (torch.randn(2, 5, 3, dtype=torch.float32), "dtype"),
    (torch.full((2, 5, 3), float("nan"), dtype=F64), "finite"),
])
def test_bad_input_names_the_argument(x, match):
    with pytest.raises(ValueError, match=match):
        SGORNN(3, 4, dtype=F64)(x)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="even"):
        SGORNN(2, 5)
    with pytest.raises(ValueError, match="phi"):
        SGORNN(2, 4, phi="nosuchmap")
    with pytest.raises(ValueError, match="activation"):
        FastRNN(2, 4, activation="swish")
    with pytest.raises(ValueError, match="h0"):
        SGORNN(2, 4, dtype=F64)(torch.randn(1, 3, 2, dtype=F64), torch.zeros(2, 4, dtype=F64))


def test_orthogonality_defect_uses_the_conjugate_transpose():
    unitary = torch.diag(torch.tensor([1j, -1j, 1 + 0j], dtype=torch.complex128))
    assert float(orthogonality_defect(unitary)) < 1e-15  # UᵀU = diag(−1, −1, 1) would give 2
    assert float(orthogonality_defect(2 * torch.eye(3, dtype=F64))) == pytest.approx(3.0)
