"""srnn.relu_vanishing: read per neuron along its shifted path, 'vanish iff some z_{t'} < 0' holds (sympy proves it
for every activation pattern at small sizes) and the check catches a path followed the wrong way round; the notes'
constructions behave as the notes say."""

import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.srnn import relu_vanishing
from rnnaudit.bounds.srnn.cases import affine_case, sample_relu_case
from rnnaudit.bounds.srnn.relu_vanishing import measure_paths, propagation
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(1, 2), (2, 2), (3, 4), (5, 5)]


def test_relu_vanishing_per_path_holds_and_sympy_proves_it():
    result = check_claim(with_sizes(relu_vanishing, SIZES), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)


def test_relu_vanishing_catches_a_path_followed_the_wrong_way():
    """With the shift's direction reversed the predicted path differs from d_h = 3 on (at d_h = 2 both coincide)."""
    wrong = with_evaluate(relu_vanishing, lambda c: measure_paths(c, direction=+1))
    cases = [sample_relu_case(torch.Generator().manual_seed(s), 4, 6) for s in range(6)]
    assert evaluate_cases(wrong, cases).verdict == "false"
    assert evaluate_cases(relu_vanishing, cases).verdict == "holds"


def test_notes_some_unit_negative_does_not_make_the_gradient_vanish():
    """b ≡ (2, −1), x = 0: z_{1,2} = −1 < 0, yet ∂h_2/∂z_1 ≠ 0 (the unit at slot 1 lives); per path it holds."""
    case = affine_case([0.0, 0.0], [2.0, -1.0], [0.0, 0.0])
    z, F = propagation(case)
    assert float(z[0, 1]) < 0 and bool((F[1, :, 0, :] != 0).any())
    assert measure_case(relu_vanishing, case)[0] == 0


def test_notes_every_path_dies_without_a_step_where_all_units_are_negative():
    """w = (−1, −4), c = (2, −1), x = (0, 1): z_1 = (2, −1), z_2 = (1, −3); ∂h_2/∂z_1 = 0."""
    case = affine_case([-1.0, -4.0], [2.0, -1.0], [0.0, 1.0])
    z, F = propagation(case)
    assert z.tolist() == [[2.0, -1.0], [1.0, -3.0]]
    assert not bool((z <= 0).all(dim=1).any()) and bool((F[1, :, 0, :] == 0).all())
    assert measure_case(relu_vanishing, case)[0] == 0


def test_notes_cancellation_with_every_z_positive():
    """d_h = 1, b(x) = w x + 3, w = 1, x = (1, −1): z = (4, 6) and no path dies, but ∂h_2/∂w = x_1 + x_2 = 0."""
    case = affine_case([1.0], [3.0], [1.0, -1.0])
    z, F = propagation(case)
    assert z.flatten().tolist() == [4.0, 6.0]
    assert all(float(F[t - 1, 0, i - 1, 0]) == 1.0 for t, i in ((1, 1), (2, 1), (2, 2)))  # ∂h_t/∂z_i, i ≤ t
    w = case.cell.b.f_r[0].weight
    h = case.cell(case.x, case.h0)
    assert float(torch.autograd.grad(h[0, -1, 0], w)[0]) == 0.0
    assert measure_case(relu_vanishing, case)[0] == 0
