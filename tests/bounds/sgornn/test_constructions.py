"""The Hadamard construction of bounds/sgornn/constructions.py: VPRNN's rotations and permutations give U = K C Kᵀ
with K a scaled Hadamard matrix, the case lies in F_T with Theorem 2's gates, and its ∂L/∂U is Hadamard-like."""

import math

import pytest
import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.search import _record
from rnnaudit.bounds.sgornn import eq31
from rnnaudit.bounds.sgornn.constructions import gated_starts, hadamard, hadamard_rotation

F64 = torch.float64


@pytest.mark.parametrize("h", [2, 4, 8, 16])
def test_vprnn_angles_and_permutations_make_u_the_hadamard_conjugate_of_the_cyclic_shift(h):
    perms, theta, K = hadamard_rotation(h)
    case = hadamard(h, h + 1)
    U = case.recurrent().detach()
    shift = torch.roll(torch.eye(h, dtype=F64), 1, dims=0)
    assert torch.allclose(U, K @ shift @ K.T, atol=1e-14)
    assert torch.allclose(K.abs(), torch.full((h, h), h**-0.5, dtype=F64), atol=1e-15)
    assert torch.allclose(K.T @ K, torch.eye(h, dtype=F64), atol=1e-14)
    assert perms.shape == (2 * round(math.log2(h)), h)


@pytest.mark.parametrize("h, T", [(2, 7), (8, 10), (16, 50)])
def test_the_hadamard_case_is_inside_eq31s_assumptions_and_drives_the_chain_towards_root_h(h, T):
    case = hadamard(h, T)
    assert _record(eq31, case, "structured").failed_assumptions == []
    chain = measure_case(eq31, case)[1]["‖G‖₁,₁ ≤ h ‖G‖₂ (the chain as used)"]
    assert 0.998 * math.sqrt(h) <= chain <= math.sqrt(h) * (1 + 1e-12)


def test_the_hadamard_start_needs_a_power_of_two_and_room_for_h_plus_one_steps():
    assert "hadamard" in gated_starts(2, 7) and "hadamard" not in gated_starts(8, 8)
    assert "hadamard" not in gated_starts(6, 20) and "hadamard" not in gated_starts(2, 1)
    with pytest.raises(ValueError, match="power of two"):
        hadamard_rotation(6)
    with pytest.raises(ValueError, match="T >= h \\+ 1"):
        hadamard(4, 4)
