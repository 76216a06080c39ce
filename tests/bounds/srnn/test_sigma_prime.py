"""srnn.sigma_prime: |σ'| ≤ 1 for the sigmoid, tanh and ReLU, attained; 2·tanh would break it."""

import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.srnn import sigma_prime
from rnnaudit.bounds.srnn.sigma_prime import ActivationCase
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum
from tests.bounds.srnn.cases import F64, assert_exact_agrees, with_evaluate


def test_sigma_prime_holds_reaches_one_and_sympy_proves_it():
    result = check_claim(sigma_prime, TINY, seed=0)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert_reaches_supremum(sigma_prime)
    assert_has_power(sigma_prime, 2)


def test_sigmoid_stays_at_a_quarter():
    assert measure_case(sigma_prime, ActivationCase("sigmoid", torch.zeros(3, dtype=F64)))[0] == 0.25


def test_an_activation_steeper_than_one_is_caught():
    def steep(case):
        z = case.z.detach().requires_grad_(True)
        (g,) = torch.autograd.grad((2 * torch.tanh(z)).sum(), z)
        return {"max |σ'(z)| ≤ 1": (g.abs().max(), torch.ones((), dtype=F64))}
    assert measure_case(with_evaluate(sigma_prime, steep),
                        ActivationCase("tanh", torch.zeros(1, dtype=F64)))[0] == 2
