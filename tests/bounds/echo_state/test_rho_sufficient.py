"""echo_state.rho_sufficient: 'ρ(W) < 1 is sufficient for the echo state property', the criterion Yildiz, Jaeger &
Kiebel 2012 refute, is false on 2-unit tanh reservoirs with zero input (a second, certified solution), and the check
reports no counterexample where there is none."""

import re

import pytest
import torch

from rnnaudit.bounds import check_claim, load_counterexample, measure_case
from rnnaudit.bounds.echo_state import rho_sufficient
from rnnaudit.bounds.echo_state.rho_sufficient import COUNTEREXAMPLES, ReservoirCase, certified_separation
from tests.bounds.helpers import TINY


def test_yildiz2012_rho_below_one_is_not_sufficient_for_the_esp(tmp_path):
    result = check_claim(rho_sufficient, TINY, out_dir=tmp_path)
    assert result.verdict == "false" and result.errors == []
    assert result.counterexample_case.failed_assumptions == []
    claim_id, case, _ = load_counterexample(result.counterexample)
    assert claim_id == rho_sufficient.id and case.size()[0] == 2  # the smallest size that can fail
    assert measure_case(rho_sufficient, case)[0] > 1


@pytest.mark.parametrize("W, x0", COUNTEREXAMPLES)
def test_yildiz2012_counterexamples_have_rho_below_one_and_a_certified_second_solution(W, x0):
    W, x0 = torch.tensor(W, dtype=torch.float64), torch.tensor(x0, dtype=torch.float64)
    assert float(torch.linalg.eigvals(W).abs().max()) < 1
    sep, what = certified_separation(W, x0)
    assert sep > 0.5, what  # the trajectory from it stays this far from the one from 0, for ever


def test_yildiz2012_the_fixed_point_example_is_stable_and_has_exact_eigenvalues():
    """W = [[0.3, −1.5], [0.2, 1.4]]: trace 1.7 and determinant 0.72 give the eigenvalues 0.9 and 0.8 exactly, and a
    trajectory from near (0.75, −0.5) settles at ±(0.7552, −0.5056), 0.91 away from the zero solution."""
    import sympy as sp

    assert sp.Matrix([[sp.Rational(3, 10), sp.Rational(-3, 2)], [sp.Rational(1, 5), sp.Rational(7, 5)]]).eigenvals() \
        == {sp.Rational(9, 10): 1, sp.Rational(4, 5): 1}
    W = torch.tensor(COUNTEREXAMPLES[0][0], dtype=torch.float64)
    x = torch.tensor([0.6, -0.3], dtype=torch.float64)
    for _ in range(2000):
        x = torch.tanh(W @ x)
    assert x.tolist() == pytest.approx([0.755189, -0.505577], abs=1e-5)


def test_yildiz2012_contractive_reservoirs_show_no_second_solution():
    """The negative control: with σ_max(W) < 1 every trajectory converges to 0 (echo_state.sufficient), and the
    certificate finds nothing, from any start."""
    gen = torch.Generator().manual_seed(0)
    for _ in range(5):
        W = torch.randn(3, 3, generator=gen, dtype=torch.float64)
        W = 0.9 * W / torch.linalg.matrix_norm(W, ord=2)
        case = ReservoirCase(W, torch.rand(3, generator=gen, dtype=torch.float64) * 2 - 1, 200)
        assert measure_case(rho_sufficient, case)[0] == 0


@pytest.mark.parametrize("index, stable, unstable", [(0, (0.7552, -0.5056), (0.5038, -0.2688)),
                                                     (3, (0.7930, 0.9764), (0.4974, 0.8311))])
def test_first_and_fourth_counterexamples_have_four_nonzero_fixed_points(index, stable, unstable):
    """Each has ±stable and ±unstable nonzero fixed points of tanh(W ·), certified by Newton–Kantorovich; stability is
    the spectral radius of the Jacobian diag(tanh'(Wx))W below or above 1."""
    W = torch.tensor(COUNTEREXAMPLES[index][0], dtype=torch.float64)
    for point, is_stable in ((stable, True), (unstable, False)):
        for sign in (1, -1):
            x = sign * torch.tensor(point, dtype=torch.float64)
            sep, what = certified_separation(W, x)
            assert sep > 0 and what.startswith("a nonzero fixed point"), what
            root = torch.tensor([float(v) for v in re.findall(r"-?\d+\.\d+", what.split("[")[1].split("]")[0])],
                                dtype=torch.float64)
            assert torch.allclose(root, x, atol=1e-4)
            J = torch.diag(1 - torch.tanh(W @ root) ** 2) @ W
            assert (float(torch.linalg.eigvals(J).abs().max()) < 1) == is_stable
