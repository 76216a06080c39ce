"""spectral_rnn.md, Sec. 6, Assumption 1(b) and the sentence after it: "Most common activations like ReLU, tanh
and sigmoid function all satisfy Assumption 1(b)" (‖φ(x)‖ ≤ ‖x‖ and ‖φ(x) − φ(y)‖ ≤ ‖x − y‖).

False for the sigmoid: σ(0) = 1/2, so ‖σ(x)‖ ≤ ‖x‖ fails near x = 0 (and eq. 24, Lemma 3 and Theorem 5 with
it, see spectral_rnn.eq24). ``spectral_rnn.assumption1.corrected``: ReLU, leaky ReLU (slope ≤ 1) and tanh
satisfy (b); the sigmoid is 1/4-Lipschitz with ‖σ(x)‖ ≤ √n/2 + ‖x‖/4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum, worst_pair
from rnnaudit.bounds.spectral_rnn.cases import A_F64, F64, draw, gauss, randint, to_case
from rnnaudit.cells import get_activation

__all__ = ["assumption1", "assumption1_corrected", "ActivationCase", "NAMED", "A_NAMED"]

#: The activations Sec. 6 names ("ReLU, tanh and sigmoid"), and leaky ReLU, which Sec. 7 uses.
NAMED = ("relu", "tanh", "sigmoid", "leaky_relu")


@dataclass
class ActivationCase:
    """A batch of pre-activation pairs for one activation.

    Attributes: x, y: (S, n) points. activation: one of :data:`NAMED`.
    """

    x: Tensor
    y: Tensor
    activation: str

    def size(self) -> tuple[int, int]:
        """(n, 1)."""
        return self.x.shape[-1], 1


def _phi(name: str):
    return torch.sigmoid if name == "sigmoid" else get_activation(name)


def _measure(case: ActivationCase, corrected: bool) -> dict[str, tuple[Tensor, Tensor]]:
    phi = _phi(case.activation)
    x, y = case.x, case.y
    fx, fy = phi(x), phi(y)
    nx, nf = torch.linalg.vector_norm(x, dim=-1), torch.linalg.vector_norm(fx, dim=-1)
    dxy, dfy = torch.linalg.vector_norm(x - y, dim=-1), torch.linalg.vector_norm(fx - fy, dim=-1)
    if corrected and case.activation == "sigmoid":
        n = x.shape[-1]
        return {"sigmoid: ‖σ(x)‖ ≤ √n/2 + ‖x‖/4": worst_pair(nf, math.sqrt(n) / 2 + nx / 4),
                "sigmoid: ‖σ(x) − σ(y)‖ ≤ ‖x − y‖/4": worst_pair(dfy, dxy / 4)}
    return {f"{case.activation}: ‖φ(x)‖ ≤ ‖x‖": worst_pair(nf, nx),
            f"{case.activation}: ‖φ(x) − φ(y)‖ ≤ ‖x − y‖": worst_pair(dfy, dxy)}


def _sample(gen, h, T, device, dtype) -> ActivationCase:
    """One of :data:`NAMED` (cycling with the draw), 4 pairs: Gaussian at scale 10^[−3, 1], non-negative, or one
    point at 0 and the other near it."""
    n = h
    name = NAMED[randint(gen, 0, len(NAMED) - 1)]
    scale = 10 ** (-3 + 4 * draw(gen))
    x, y = gauss(gen, 4, n) * scale, gauss(gen, 4, n) * scale
    kind = randint(gen, 0, 2)
    if kind == 1:
        x, y = x.abs(), y.abs()
    elif kind == 2:
        x[0] = 0.0
    return ActivationCase(to_case(x, device, dtype), to_case(y, device, dtype), name)


def _starts(h, T, device, dtype) -> list[ActivationCase]:
    """Per activation: x = 0 beside a tiny y (the sigmoid's σ(0) = 1/2 against ‖0‖ = 0), non-negative pairs (ReLU is
    the identity there: ratio 1), and pairs straddling 0 at scale 1e-4 (tanh'(0) = 1, σ'(0) = 1/4)."""
    out = []
    for name in NAMED:
        zero, tiny = torch.zeros(1, h, dtype=F64), torch.full((1, h), 1e-4, dtype=F64)
        pos, pos2 = torch.ones(1, h, dtype=F64), torch.full((1, h), 2.0, dtype=F64)
        for x, y in ((zero, tiny), (pos, pos2), (tiny, -tiny)):
            out.append(ActivationCase(to_case(x.clone(), device, dtype), to_case(y.clone(), device, dtype), name))
    return out


def _exact() -> ExactVerdict:
    """σ(0) = 1/2: ‖σ(0)‖ = √n/2 > 0 = ‖0‖ for every n ≥ 1 (exact)."""
    import sympy as sp

    x = sp.Symbol("x", real=True)
    sig = 1 / (1 + sp.exp(-x))
    return ExactVerdict("violated", f"sigmoid at x = 0 ∈ ℝ¹: |σ(0)| = {sig.subs(x, 0)} > |0| = 0 (and √n/2 > 0 for "
                                    f"x = 0 ∈ ℝⁿ); ReLU, tanh and leaky ReLU satisfy both conditions")


def _exact_corrected() -> ExactVerdict:
    """By sympy: σ' = σ(1 − σ) has its maximum 1/4 at 0 (σ'' = 0 only there, σ' → 0 at ±∞), so σ is 1/4-Lipschitz
    and |σ(x) − 1/2| ≤ |x|/4 entrywise, whence ‖σ(x)‖ ≤ √n/2 + ‖x‖/4; tanh' = 1 − tanh² ∈ (0, 1] and tanh(0) = 0,
    so |tanh x| ≤ |x| and tanh is 1-Lipschitz; ReLU and leaky ReLU (slope ≤ 1) are 1-Lipschitz and fix 0."""
    import sympy as sp

    x = sp.Symbol("x", real=True)
    sig = 1 / (1 + sp.exp(-x))
    d1 = sp.diff(sig, x)
    crit = sp.solve(sp.Eq(sp.simplify(sp.diff(sig, x, 2)), 0), x)
    top = sp.simplify(d1.subs(x, 0))
    limits = (sp.limit(d1, x, sp.oo), sp.limit(d1, x, -sp.oo))
    tanh_d = sp.simplify(sp.diff(sp.tanh(x), x) - (1 - sp.tanh(x) ** 2))
    if crit != [0] or top != sp.Rational(1, 4) or limits != (0, 0) or tanh_d != 0:
        return ExactVerdict("violated", f"σ'' = 0 at {crit}, σ'(0) = {top}, σ'(±∞) = {limits}")
    return ExactVerdict("proved", "σ'' = 0 only at x = 0, σ'(0) = 1/4, σ'(±∞) = 0: sup σ' = 1/4, so σ is "
                                  "1/4-Lipschitz and ‖σ(x)‖ ≤ ‖σ(0)‖ + ‖x‖/4 = √n/2 + ‖x‖/4; tanh' = 1 − tanh² ≤ 1, "
                                  "tanh(0) = 0")


A_NAMED = Assumption("φ ∈ {ReLU, tanh, sigmoid, leaky ReLU} (the activations Sec. 6–7 name)", lambda c: (
    c.activation in NAMED, f"φ = {c.activation}"))

_ACTIVATIONS = CaseSpace(case_type=ActivationCase, sample=_sample, starts=_starts,
                         free=lambda c: [c.x, c.y], sizes={"quick": [(1, 1), (2, 1), (8, 1)],
                                                           "full": [(1, 1), (2, 1), (8, 1), (64, 1)]})

assumption1 = Claim(
    id="spectral_rnn.assumption1",
    source="spectral_rnn.md, Sec. 6, Assumption 1(b) and the sentence after it",
    statement="ReLU, tanh and sigmoid all satisfy Assumption 1(b): ‖φ(x)‖₂ ≤ ‖x‖₂ and ‖φ(x) − φ(y)‖₂ ≤ ‖x − y‖₂",
    assumptions=(A_NAMED, A_F64),
    measure="‖φ(x)‖ and ‖φ(x) − φ(y)‖ for batches of points (worst pair), φ applied entrywise",
    bound="‖x‖ and ‖x − y‖",
    evaluate=lambda c: _measure(c, False),
    cases=_ACTIVATIONS,
    explanation="The sigmoid has σ(0) = 1/2: ‖σ(x)‖ ≥ √n/2 − ‖x‖/4 > ‖x‖ for ‖x‖ < 2√n/5, so ‖σ(x)‖ ≤ ‖x‖ fails "
                "(ratio → ∞ as x → 0; x = 0 gives √n/2 against 0). Its Lipschitz half holds (constant 1/4). "
                "See spectral_rnn.assumption1.corrected and spectral_rnn.eq24, which fails for the sigmoid.",
    notes="ReLU, tanh and leaky ReLU satisfy both conditions (ratio 1 attained: ReLU on x ≥ 0, tanh as x → 0). The "
          "worst ratio is +inf (x = 0 for the sigmoid).",
    exact=_exact,
)

assumption1_corrected = Claim(
    id="spectral_rnn.assumption1.corrected",
    source="spectral_rnn.md, Sec. 6, Assumption 1(b), corrected by rnnaudit",
    statement="ReLU, tanh and leaky ReLU satisfy Assumption 1(b); the sigmoid satisfies ‖σ(x)‖ ≤ √n/2 + ‖x‖/4 and "
              "‖σ(x) − σ(y)‖ ≤ ‖x − y‖/4 instead",
    assumptions=(A_NAMED, A_F64),
    measure="as spectral_rnn.assumption1",
    bound="‖x‖, ‖x − y‖ (ReLU, tanh, leaky ReLU); √n/2 + ‖x‖/4, ‖x − y‖/4 (sigmoid)",
    evaluate=lambda c: _measure(c, True),
    cases=_ACTIVATIONS,
    explanation="Would mean one of these elementary inequalities fails.",
    notes="Every bound is attained: ReLU on x ≥ 0, tanh and the sigmoid's Lipschitz bound as x, y → 0, and "
          "‖σ(0)‖ = √n/2 (structured starts).",
    supremum=Supremum(1.0, "each inequality has ratio ≤ 1 (sup φ' = 1 for ReLU, leaky ReLU, tanh; 1/4 for σ; "
                           "|σ(x) − 1/2| ≤ |x|/4) and equality at ReLU(x) = x for x ≥ 0 and at σ(0) = 1/2",
                      at=(2, 1)),
    exact=_exact_corrected,
)
