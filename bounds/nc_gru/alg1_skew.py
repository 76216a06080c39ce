"""nc_gru.md, Sec. 3.2, the remark after Algorithm 1: "the skew-symmetric property of the weight A and its gradient
are preserved under such an optimizer" (opt_A: SGD, RMSProp, Adam, …, fed ∇_A L = V^(k)T − V^(k), line 5)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.nc_gru.cases import log_uniform
from rnnaudit.cells import scornn_skew_init

__all__ = ["OptimizerRunCase", "OPTIMIZERS", "run_optimizer", "sample_optimizer_run", "alg1_skew", "skew_gradient_of"]

#: opt_A as the paper names them (SGD, RMSProp, Adam) and their common variants, with the settings a run would use;
#: each entry: name → (torch.optim class, keyword arguments).
OPTIMIZERS = {
    "SGD": (torch.optim.SGD, {}),
    "SGD momentum 0.9, Nesterov": (torch.optim.SGD, {"momentum": 0.9, "nesterov": True}),
    "RMSprop": (torch.optim.RMSprop, {}),
    "RMSprop centered, momentum 0.5": (torch.optim.RMSprop, {"centered": True, "momentum": 0.5}),
    "Adam": (torch.optim.Adam, {}),
    "Adam amsgrad, weight decay 1e-2": (torch.optim.Adam, {"amsgrad": True, "weight_decay": 1e-2}),
    "AdamW": (torch.optim.AdamW, {}),
    "Adagrad": (torch.optim.Adagrad, {}),
}


@dataclass
class OptimizerRunCase:
    """K optimizer steps on a skew A^(0), with Algorithm 1's gradient V^(k)T − V^(k) built from the given V^(k).

    Attributes:
        A0: (h, h) skew. V: (K, h, h), any matrices (line 4's V^(k)). optimizer: a key of :data:`OPTIMIZERS`.
        lr: the learning rate.
    """

    A0: Tensor
    V: Tensor
    optimizer: str
    lr: float

    def size(self) -> tuple[int, int]:
        """(h, K)."""
        return self.A0.shape[0], self.V.shape[0]


def skew_gradient_of(V: Tensor) -> Tensor:
    """Algorithm 1 line 5: ∇_A L = Vᵀ − V."""
    return V.mT - V


def run_optimizer(case: OptimizerRunCase, gradient=skew_gradient_of) -> list[Tensor]:
    """A^(0), …, A^(K) under ``case.optimizer`` (torch.optim) with ``gradient(V^(k))`` as A's gradient at step k.

    Raises:
        ValueError: unknown optimizer (the message lists the known ones).
    """
    if case.optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {case.optimizer!r}")
    cls, kwargs = OPTIMIZERS[case.optimizer]
    A = torch.nn.Parameter(case.A0.detach().clone())
    opt = cls([A], lr=case.lr, **kwargs)
    out = [A.detach().clone()]
    for V in case.V:
        A.grad = gradient(V.detach()).clone()
        opt.step()
        out.append(A.detach().clone())
    return out


def _measure(case: OptimizerRunCase, gradient=skew_gradient_of) -> dict[str, tuple]:
    A = torch.stack(run_optimizer(case, gradient))
    defect = (A + A.mT).abs().amax((-2, -1))
    scale = A.abs().amax((-2, -1))
    k = int(torch.argmax(defect))
    tol = 64 * torch.finfo(A.dtype).eps * scale[k].clamp_min(1.0)
    return {f"{case.optimizer}: A^(k) skew after every step, max|A^(k) + A^(k)ᵀ|": (defect[k], tol, scale[k])}


def sample_optimizer_run(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> OptimizerRunCase:
    """K = T steps from scoRNN's initial A, V^(k) Gaussian with a log-uniform scale in [10⁻³, 10], an optimizer drawn
    from :data:`OPTIMIZERS`, lr log-uniform in [10⁻⁴, 10⁻¹]."""
    A0 = scornn_skew_init(h, generator=gen, dtype=torch.float64)
    V = torch.randn(T, h, h, generator=gen, dtype=torch.float64) * log_uniform(gen, 1e-3, 10.0)
    names = sorted(OPTIMIZERS)
    name = names[int(torch.randint(0, len(names), (), generator=gen))]
    return OptimizerRunCase(A0.to(device=device, dtype=dtype), V.to(device=device, dtype=dtype), name,
                            log_uniform(gen, 1e-4, 1e-1))


def _exact() -> ExactVerdict:
    """One Adam step (the elementwise optimizer with the most structure) on a symbolic 2×2 skew A with a symbolic
    skew gradient: the update is skew entry by entry (sympy), since m is linear in g and v depends on g²."""
    import sympy

    a, g, lr, b1, b2, eps = sympy.symbols("a g lr beta1 beta2 epsilon", positive=True)
    A = sympy.Matrix([[0, a], [-a, 0]])
    G = sympy.Matrix([[0, g], [-g, 0]])
    m = (1 - b1) * G
    v = G.applyfunc(lambda x: (1 - b2) * x**2)
    step = sympy.Matrix(2, 2, lambda i, j: (m[i, j] / (1 - b1)) / (sympy.sqrt(v[i, j] / (1 - b2)) + eps))
    new = A - lr * step
    gap = (new + new.T).applyfunc(sympy.simplify)
    ok = gap == sympy.zeros(2, 2)
    return ExactVerdict("proved" if ok else "violated",
                        "one Adam step (bias-corrected, ε > 0) on skew A = [[0, a], [−a, 0]] with gradient "
                        "[[0, g], [−g, 0]]: A_new + A_newᵀ = 0 symbolically (m odd, v even in g)")


A_SKEW0 = Assumption("A^(0) skew-symmetric (initialised as in scoRNN, Sec. 3.2)", lambda c: (
    float((c.A0 + c.A0.mT).abs().max()) == 0.0, f"max|A^(0) + A^(0)ᵀ| = {float((c.A0 + c.A0.mT).abs().max()):.3g}"))
A_OPTIMIZER = Assumption("opt_A an elementwise optimizer (SGD, RMSProp, Adam, …)", lambda c: (
    c.optimizer in OPTIMIZERS, c.optimizer))

_SIZES = [(2, 1), (3, 3), (8, 10), (16, 10)]
_RUNS = CaseSpace(case_type=OptimizerRunCase, sample=sample_optimizer_run,
                  sizes={"quick": _SIZES, "full": _SIZES + [(64, 200)]})

alg1_skew = Claim(
    id="nc_gru.alg1_skew",
    source="nc_gru.md, Sec. 3.2, paragraph after Algorithm 1 ('the skew-symmetric property of the weight A and its "
           "gradient are preserved under such an optimizer')",
    statement="With ∇_A L = V^(k)T − V^(k) (Algorithm 1 line 5), an optimizer such as SGD, RMSProp or Adam keeps "
              "A^(k) skew-symmetric",
    assumptions=(A_SKEW0, A_OPTIMIZER),
    measure="max_k max|A^(k) + A^(k)ᵀ| over K torch.optim steps with the gradient of line 5",
    bound="64u·max|A^(k)| (float allowance; the updates are in fact exactly skew)",
    evaluate=_measure,
    cases=_RUNS,
    explanation="Would mean an optimizer's preconditioner is not symmetric under transposition.",
    notes="Holds bit for bit: momentum and first moments are linear in the gradient (odd under A ↦ −Aᵀ), second "
          "moments depend on its square (even), so every entrywise update keeps the skew pattern; the symbolic Adam "
          "step is proved exactly. It fails for a gradient that is not skew, e.g. autograd's gradient with respect "
          "to every entry of A (−V, nc_gru.eq5's explanation).",
    exact=_exact,
)
