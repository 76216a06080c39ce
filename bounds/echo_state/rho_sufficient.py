"""The widely used criterion for the echo state property, 'ρ(W) < 1 is sufficient', which Yildiz, Jaeger & Kiebel
2012 ("Re-visiting the echo state property", Neural Networks 35, 1–9) show to be false. Their abstract (read through
the search tool: the MPG publication record and a preprint copy) says they 'use analytical examples to show that a
widely used criterion for the ESP, the spectral radius of the weight matrix being smaller than unity, is not
sufficient', obtained 'by investigating local bifurcation properties of the standard ESNs'. Their own examples and
the sufficient conditions they give were not readable here; the counterexamples below are rnnaudit's.

The check is constructive. A tanh reservoir x(n + 1) = tanh(W x(n)) with zero input has the fixed point 0. If it
has the ESP, every trajectory of the zero input converges to 0 (the state is determined by the input history). A
second solution that stays away from 0 refutes it: a nonzero fixed point of f = tanh(W ·), or a nonzero fixed
point of f∘f (a second fixed point or a period-2 orbit). It is certified by the Newton–Kantorovich theorem on
F(x) = x − f^k(x): with β = ‖F'(x₀)⁻¹‖₂, η = ‖F'(x₀)⁻¹F(x₀)‖₂ and L a Lipschitz constant of F',
βLη ≤ 1/2 gives an exact root within r₀ = (1 − √(1 − 2βLη))/(βL) of x₀. L: |d/dz tanh'(z)| ≤ 4/(3√3), so
‖J(x) − J(y)‖₂ ≤ L₁‖x − y‖₂ with L₁ = (4/(3√3))‖W‖₂² for J = diag(tanh'(Wx))W; for f∘f,
L₂ = L₁‖W‖₂(‖W‖₂ + 1) (product rule, ‖J‖₂ ≤ ‖W‖₂). The trajectory from that root and the one from 0 then stay
at least min(‖x₀‖ − r₀, ‖f(x₀)‖ − ‖W‖₂r₀) apart for ever, which is what is measured; the ESP would need it to be
0 in the limit.

Smallest counterexamples (h = 2; h = 1 cannot fail, |w| < 1 makes tanh(w·) a contraction), with exact rational
eigenvalues: W = [[0.3, −1.5], [0.2, 1.4]] (eigenvalues 0.9 and 0.8) has the stable fixed points
±(0.7552, −0.5056) and the unstable ones ±(0.5038, −0.2688); W = [[0.2, −2.2], [0.4, −1.7]] (eigenvalues −0.6,
−0.9) a stable period-2 orbit; W = [[1.3, −3.8], [0.9, −2.4]] (eigenvalues −0.5, −0.6: ρ = 0.6) a period-2 orbit;
W = [[2.1, −0.6], [3.9, −0.9]] (ρ = √0.45 = 0.671) four nonzero fixed points, the stable ±(0.7930, 0.9764) and the
unstable ±(0.4974, 0.8311) (spectral radii of the Jacobian diag(tanh'(Wx))W: 0.921 and 1.046 for the first
matrix, 0.727 and 1.216 for the fourth). All are non-normal (‖W‖₂ from 2.05 to 4.8): σ_max(W) > 1, so
echo_state.sufficient's hypothesis fails, as it must.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.pascanu2013.cases import draw
from rnnaudit.cells.linalg import eigvals

__all__ = ["ReservoirCase", "rho_sufficient", "certified_separation", "COUNTEREXAMPLES"]

#: sup_z |d/dz (1 − tanh² z)| = 4/(3√3), at tanh z = ±1/√3.
TANH_SECOND = 4 / (3 * math.sqrt(3))

#: Absolute rounding allowance of one evaluation of tanh(W x) with ‖x‖_∞ ≤ 1 (≈ 100 u, u = 1.1e-16), per unit of
#: (1 + ‖W‖₂): enough for the h-term products of the sizes checked here (h ≤ 5).
EVAL_ROUNDING = 1e-14

#: The structured starts: (W, x(0) near the second solution), each with exact rational eigenvalues of modulus < 1.
COUNTEREXAMPLES = (
    (((0.3, -1.5), (0.2, 1.4)), (0.75, -0.5)),      # eigenvalues 0.9, 0.8: stable fixed points ±(0.7552, −0.5056)
    (((0.2, -2.2), (0.4, -1.7)), (-0.81, -0.59)),   # eigenvalues −0.6, −0.9: a period-2 orbit
    (((1.3, -3.8), (0.9, -2.4)), (-0.9, -0.7)),     # eigenvalues −0.5, −0.6: a period-2 orbit
    (((2.1, -0.6), (3.9, -0.9)), (0.79, 0.98)),     # ρ = √0.45: stable fixed points ±(0.7930, 0.9764)
)


@dataclass
class ReservoirCase:
    """A zero-input tanh reservoir x(n + 1) = tanh(W x(n)): ``W`` (h, h) and the start ``x0`` (h,), float64; ``T``
    iterations settle the trajectory before the certificate is sought."""

    W: Tensor
    x0: Tensor
    T: int

    def size(self) -> tuple[int, int]:
        return self.W.shape[0], self.T


def _radius(W: Tensor) -> float:
    return float(eigvals(W.detach()).abs().max())


def certified_separation(W: Tensor, x: Tensor) -> tuple[float, str]:
    """A certified lower bound on how far a second zero-input solution near ``x`` stays from the fixed point 0, and
    what was certified; (0, reason) where no certificate is found. Tries a fixed point of f, then of f∘f."""
    W = W.detach().double()
    x = x.detach().double()
    f = lambda v: torch.tanh(W @ v)  # noqa: E731
    nW = float(torch.linalg.matrix_norm(W, ord=2))
    L1 = TANH_SECOND * nW * nW
    for k, L in ((1, L1), (2, L1 * nW * (nW + 1))):
        fk = (lambda v: f(v)) if k == 1 else (lambda v: f(f(v)))
        x0 = x.clone()
        for _ in range(30):  # Newton on F(v) = v − f^k(v)
            J = torch.func.jacrev(fk)(x0)
            A = torch.eye(len(x0), dtype=x0.dtype) - J
            try:
                step = torch.linalg.solve(A, x0 - fk(x0))
            except RuntimeError:
                break
            x0 = x0 - step
            if float(step.norm()) < 1e-15:
                break
        J = torch.func.jacrev(fk)(x0)
        A = torch.eye(len(x0), dtype=x0.dtype) - J
        if float(torch.linalg.svdvals(A).min()) == 0:
            continue
        Ainv = torch.linalg.inv(A)
        # β and η as computed carry rounding: β to relative 1e-10 (κ(A)·u with κ ≤ 1e5 here), F(x0) to
        # EVAL_ROUNDING·√h·(1 + ‖W‖₂)^k absolutely (each tanh(W·) is h products and one tanh, rounded to a few u)
        beta = float(torch.linalg.matrix_norm(Ainv, ord=2)) * (1 + 1e-10)
        eta = beta * (float((x0 - fk(x0)).norm()) + EVAL_ROUNDING * math.sqrt(len(x0)) * (1 + nW) ** k)
        hk = beta * L * eta
        if hk > 0.5:
            continue
        r0 = (1 - math.sqrt(1 - 2 * hk)) / (beta * L) if hk > 0 else 0.0
        sep = min(float(x0.norm()) - r0, float(f(x0).norm()) - nW * r0)
        if sep > 0:
            what = ("a nonzero fixed point" if k == 1 else "a nonzero fixed point of f∘f (period 2 or a second fixed "
                                                            "point)")
            return sep, f"{what} within {r0:.1e} of {[round(v, 6) for v in x0.tolist()]} (Kantorovich h = {hk:.1e})"
    return 0.0, "no second solution certified near the trajectory's end"


def _measure(case: ReservoirCase) -> dict[str, tuple[Tensor, Tensor]]:
    """The certificate sought at x(0) (an unstable second solution) and at x(T) (an attracting one)."""
    x = case.x0.detach().double()
    sep = certified_separation(case.W, x)[0]
    for _ in range(case.T):
        x = torch.tanh(case.W.detach().double() @ x)
    sep = max(sep, certified_separation(case.W, x)[0])
    return {"lim ‖x(n) − x'(n)‖₂ = 0 for the trajectories from a second solution and from 0 (the ESP)":
            (case.W.new_tensor(sep), case.W.new_zeros(()))}


def sample_reservoir(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ReservoirCase:
    """A Gaussian W times a gain in [1, 6], scaled to ρ(W) in [0.5, 0.99]; x(0) uniform in [−1, 1]^h. About 3 in
    10⁴ such draws have a second solution, so the random cases mostly hold; the structured starts fail."""
    W = torch.randn(h, h, generator=gen, dtype=torch.float64) * (1 + 5 * draw(gen))
    W = W * ((0.5 + 0.49 * draw(gen)) / max(_radius(W), 1e-12))
    x0 = torch.rand(h, generator=gen, dtype=torch.float64) * 2 - 1
    return ReservoirCase(W.to(device=device, dtype=dtype), x0.to(device=device, dtype=dtype), T)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ReservoirCase]:
    """The counterexamples of the module docstring, embedded in the first two units (the other units' rows and
    columns zero: they decay to 0 and leave the 2 × 2 dynamics as they are); none for h = 1."""
    out = []
    if h < 2:
        return out
    for W2, x2 in COUNTEREXAMPLES:
        W = torch.zeros(h, h, dtype=torch.float64)
        W[:2, :2] = torch.tensor(W2, dtype=torch.float64)
        x0 = torch.zeros(h, dtype=torch.float64)
        x0[:2] = torch.tensor(x2, dtype=torch.float64)
        out.append(ReservoirCase(W.to(device=device, dtype=dtype), x0.to(device=device, dtype=dtype), T))
    return out


def _rho_below(case: ReservoirCase) -> tuple[bool, str]:
    rho = _radius(case.W)
    return rho < 1, f"ρ(W) = {rho:.6g} (σ_max(W) = {float(torch.linalg.matrix_norm(case.W.detach(), ord=2)):.4g})"


A_RHO_BELOW = Assumption("ρ(W) < 1 (one tanh reservoir, zero input, zero bias)", _rho_below)

rho_sufficient = Claim(
    id="echo_state.rho_sufficient",
    source="Yildiz, Jaeger & Kiebel 2012, abstract (the criterion they refute: 'the spectral radius of the weight matrix "
           "being smaller than unity' as sufficient for the ESP); their examples were not read, these are rnnaudit's",
    statement="If ρ(W) < 1 (tanh units), the reservoir has the echo state property; in particular with zero input "
              "every trajectory converges to the fixed point 0: ‖x(n) − x'(n)‖₂ → 0 for any two starts",
    assumptions=(A_RHO_BELOW,),
    measure="a certified lower bound on lim inf ‖x(n) − x'(n)‖₂ for x(0) a second zero-input solution (a nonzero fixed "
            "point of f or f∘f, Newton–Kantorovich) and x'(0) = 0; 0 where none is certified",
    bound="0 (the ESP)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ReservoirCase, sample=sample_reservoir, starts=_starts,
                    sizes={"quick": [(1, 200), (2, 200)], "full": [(1, 200), (2, 200), (5, 400)]}),
    explanation="False (Yildiz et al. 2012's point): ρ(W) < 1 makes the zero state stable, not unique. A non-normal W "
                "with ρ(W) = 0.9 (W = [[0.3, −1.5], [0.2, 1.4]], eigenvalues 0.9 and 0.8) has four more fixed points: "
                "the stable ±(0.7552, −0.5056) and the unstable ±(0.5038, −0.2688), so trajectories of the zero input "
                "from (0.75, −0.5) and from 0 stay 0.91 "
                "apart for ever; W = [[1.3, −3.8], [0.9, −2.4]] (ρ = 0.6) has a period-2 orbit. The ESP needs more "
                "than the spectrum: σ_max(W) < 1 suffices (echo_state.sufficient).",
    notes="The eigenvalues of the four counterexamples are exact (rational: 0.9 and 0.8; −0.6 and −0.9; −0.5 and −0.6; "
          "the complex pair of modulus √0.45 = 0.671), and each second solution is certified by Newton–Kantorovich "
          "(h = βLη ≤ 5e-8, the root within 1e-11 of the computed point), not by a long simulation. They were found by a vectorised search over 6·10⁵ random "
          "2 × 2 matrices with entries in [−4, 4] at one decimal and ρ < 0.99 (about 1 in 4,000 has a second "
          "solution: a nonzero fixed point or a period-2 orbit, in roughly equal numbers); the smallest ρ found was "
          "0.6 (period 2) and 0.671 (fixed points). Random draws of the quick profile rarely hit one, so the "
          "structured starts carry the verdict.",
)
