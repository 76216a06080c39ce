"""srnn.md, Sec. 3, before eq. 10: "For most used activation functions, such as the sigmoid, tanh and ReLU,
|σ'(z_t)| is bounded by 1" — the step from eq. 9 to eq. 10 that drops the σ' factors.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import grad, vmap

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.srnn.cases import f64

__all__ = ["ActivationCase", "sample_activation_case", "sigma_prime", "ACTIVATIONS"]

#: The three activations the sentence names.
ACTIVATIONS = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu}


@dataclass
class ActivationCase:
    """Points z at which σ' is evaluated.

    Attributes:
        name: a key of :data:`ACTIVATIONS`. z: (n,) float.
    """

    name: str
    z: Tensor

    def size(self) -> tuple[int, int]:
        """(number of points, 1)."""
        return self.z.numel(), 1


def sample_activation_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ActivationCase:
    """One of the three activations, h points z ~ N(0, s²) with s ∈ {0.1, 1, 10}."""
    name = list(ACTIVATIONS)[int(torch.randint(0, 3, (), generator=gen))]
    s = [0.1, 1.0, 10.0][int(torch.randint(0, 3, (), generator=gen))]
    return ActivationCase(name, (s * torch.randn(h, generator=gen, dtype=torch.float64)).to(device=device, dtype=dtype))


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ActivationCase]:
    """z = 0 (the maximum of sigmoid' and tanh') and z = 1 (ReLU' = 1), for each activation."""
    pts = [torch.zeros(h, dtype=dtype, device=device), torch.ones(h, dtype=dtype, device=device)]
    return [ActivationCase(name, z.clone()) for name in ACTIVATIONS for z in pts]


def _derivative(case: ActivationCase) -> Tensor:
    f = ACTIVATIONS[case.name]
    return vmap(grad(lambda u: f(u)))(case.z)


def _measure(case: ActivationCase) -> dict[str, tuple[Tensor, Tensor]]:
    return {"max |σ'(z)| ≤ 1": (_derivative(case).abs().max(), f64(1.0, case.z))}


def _exact() -> ExactVerdict:
    """1/4 − σ'(z) = (s − 1/2)² for the sigmoid s, 1 − tanh'(z) = tanh²(z), ReLU' ∈ {0, 1}; maxima at z = 0."""
    import sympy as sp

    z = sp.Symbol("z", real=True)
    s = 1 / (1 + sp.exp(-z))
    sig_p, tanh_p = sp.diff(s, z), sp.diff(sp.tanh(z), z)
    relu_p = {sp.diff(sp.Max(0, z), z).subs(z, v) for v in (-1, 1)}
    ok = (sp.simplify(sp.Rational(1, 4) - sig_p - (s - sp.Rational(1, 2)) ** 2) == 0
          and sp.simplify(1 - tanh_p - sp.tanh(z) ** 2) == 0 and relu_p <= {0, 1})
    maxima = (sig_p.subs(z, 0), tanh_p.subs(z, 0))
    if ok and maxima == (sp.Rational(1, 4), 1):
        return ExactVerdict("proved", f"sigmoid' = 1/4 − (s − 1/2)² ≤ 1/4, tanh' = 1 − tanh² ≤ 1, ReLU' ∈ "
                                      f"{sorted(relu_p)} (sympy); maxima {maxima[0]} and {maxima[1]} at z = 0, so "
                                      f"|σ'| ≤ 1 with equality for tanh at 0 and ReLU on z > 0.")
    return ExactVerdict("violated", f"sigmoid'(0) = {maxima[0]}, tanh'(0) = {maxima[1]}, ReLU' ∈ {relu_p}")


sigma_prime = Claim(
    id="srnn.sigma_prime",
    source="srnn.md, Sec. 3, before eq. 10",
    statement="For the sigmoid, tanh and ReLU, |σ'(z)| ≤ 1",
    assumptions=(Assumption("σ is the sigmoid, tanh or ReLU", lambda c: (c.name in ACTIVATIONS, f"σ = {c.name}")),),
    measure="max over the points of |σ'(z)| by autograd (ReLU'(0) = 0, autograd's convention)",
    bound="1",
    evaluate=_measure,
    cases=CaseSpace(case_type=ActivationCase, sample=sample_activation_case, free=lambda c: [c.z],
                    sizes={"quick": [(1, 1), (8, 1)], "full": [(1, 1), (8, 1), (256, 1)]}, starts=_starts),
    explanation="Would contradict sigmoid' = s(1 − s) ≤ 1/4, tanh' = 1 − tanh² ≤ 1, ReLU' ∈ {0, 1}.",
    notes="The bound is attained (tanh at z = 0, ReLU for z > 0); the sigmoid stays at 1/4. It bounds σ' from above "
          "only: nothing here bounds it from below, which is why srnn.hidden_gradient's no-decay half fails.",
    supremum=Supremum(1.0, "tanh'(0) = 1 and ReLU'(z) = 1 for z > 0 reach the bound; sigmoid' ≤ 1/4 and tanh' < 1 "
                           "elsewhere (exact verdict). The z = 0 and z = 1 starts reach it.", at=(1, 1)),
    exact=_exact,
)
