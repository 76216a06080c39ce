"""pascanu2013 (arXiv 1211.5063), Sec. 2.1: γ, the bound on the derivative's norm ‖diag(σ'(x))‖ ≤ γ, is 1 for
tanh and 1/4 for the logistic sigmoid; checked numerically (the maximum of σ' over a grid and wherever the
ascent moves the points) and exactly (sympy: σ'' = 0 only at 0, where σ' = γ)."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum

__all__ = ["GammaCase", "gamma", "GAMMAS"]

#: γ as the paper states it (the issue's paraphrase of Sec. 2.1; the wording itself was not read).
GAMMAS = {"tanh": 1.0, "sigmoid": 0.25}
_FUNCS = {"tanh": torch.tanh, "sigmoid": torch.sigmoid}


@dataclass
class GammaCase:
    """Points z (N,) at which σ' is evaluated, and σ's name."""

    activation: str
    z: Tensor

    def size(self) -> tuple[int, int]:
        return self.z.shape[0], 1


def _derivative(name: str, z: Tensor) -> Tensor:
    s = _FUNCS[name](z)
    return 1 - s * s if name == "tanh" else s * (1 - s)


def _measure(case: GammaCase) -> dict[str, tuple[Tensor, ...]]:
    gamma_ = case.z.new_tensor(GAMMAS[case.activation])
    d = _derivative(case.activation, case.z)
    at0 = _derivative(case.activation, case.z.new_zeros(()))
    return {"sup|σ'| ≤ γ": (d.abs().max(), gamma_),
            "γ is attained (σ'(0) = γ)": ((at0 - gamma_).abs(), gamma_.new_tensor(1e-15), gamma_)}


def _sample(gen, h, T, device="cpu", dtype=torch.float64) -> GammaCase:
    name = ("tanh", "sigmoid")[int(torch.randint(0, 2, (), generator=gen))]
    z = torch.randn(h, generator=gen, dtype=torch.float64) * 3
    return GammaCase(name, z.to(device=device, dtype=dtype))


def _starts(h, T, device="cpu", dtype=torch.float64) -> list[GammaCase]:
    z = torch.linspace(-1, 1, h, dtype=dtype, device=device)
    return [GammaCase(name, z) for name in GAMMAS]


def _exact() -> ExactVerdict:
    x = sp.symbols("x", real=True)
    found = {}
    for name, f in (("tanh", sp.tanh(x)), ("sigmoid", 1 / (1 + sp.exp(-x)))):
        d = sp.diff(f, x)
        crit = sp.solve(sp.Eq(sp.simplify(sp.diff(d, x)), 0), x)
        found[name] = (crit, sp.nsimplify(sp.simplify(d.subs(x, 0))), sp.limit(d, x, sp.oo))
    ok = all(c == [0] and v == sp.nsimplify(GAMMAS[n]) and lim == 0 for n, (c, v, lim) in found.items())
    return ExactVerdict("proved" if ok else "violated",
                        "; ".join(f"{n}: σ'' = 0 only at {c}, σ'(0) = {v}, σ'(±∞) = {lim}" for n, (c, v, lim) in
                                  found.items()) + ": sup|σ'| = σ'(0) = γ")


gamma = Claim(
    id="pascanu2013.gamma",
    source="pascanu2013 (arXiv 1211.5063), Sec. 2.1 (γ = 1 for tanh, γ = 1/4 for sigmoid)",
    statement="‖diag(σ'(x))‖ ≤ γ with γ = 1 for tanh and γ = 1/4 for the sigmoid",
    assumptions=(Assumption("σ is tanh or the logistic sigmoid", lambda c: (c.activation in GAMMAS, c.activation)),),
    measure="max |σ'(z)| over the case's points (moved by the ascent)",
    bound="γ; and |σ'(0) − γ| ≤ 1e-15 (the constant is the least one)",
    evaluate=_measure,
    cases=CaseSpace(case_type=GammaCase, sample=_sample, sizes={"quick": [(16, 1)], "full": [(16, 1), (256, 1)]},
                    free=lambda c: [c.z], starts=_starts),
    notes="Holds, and γ is the supremum (attained at z = 0), so no smaller constant would do.",
    supremum=Supremum(1.0, "σ' is maximal at 0 (exact verdict); z = 0 is on the structured starts' grid", at=(16, 1),
                      part="sup|σ'| ≤ γ"),
    exact=_exact,
)
