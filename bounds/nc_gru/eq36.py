"""nc_gru.md, SM 7, the Jacobians in the proof of Theorem 1: eq. 29 (∂r_t/∂h_{t−1}), eq. 32 (∂u_t/∂h_{t−1}), eq. 36
(∂c_t/∂h_{t−1}) and eq. 40 (∂h_t/∂h_{t−1}), as identities against autograd, for the GRU of eq. 1 (tanh) and the
NC-GRU of eq. 19 (modReLU)."""

from __future__ import annotations

import torch
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.nc_gru.cases import GRUCase, log_uniform
from rnnaudit.cells import GRU, NCGRU

__all__ = ["gate_jacobians", "candidate_derivative", "proof_jacobians", "sample_step_case", "eq36", "JAC_RTOL"]

#: Relative tolerance of a closed-form Jacobian against autograd: both are a few products of (h, h) matrices
#: (h ≤ 32), whose rounding is ≲ 10 h u ≈ 1e-13 relative; 1e-10 leaves a factor 10³.
JAC_RTOL = 1e-10


def gate_jacobians(cell, x: Tensor, prev: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """∂r_t/∂h_{t−1}, ∂u_t/∂h_{t−1}, ∂c_t/∂h_{t−1} and ∂h_t/∂h_{t−1} by autograd (one vmapped ``jacrev`` of the cell's
    gates and step), at each of the T steps with inputs x (T, n) and previous states prev (T, h); each (T, h, h)."""
    def outputs(x_t, h):
        g = cell.gates(x_t[None], h[None])
        h_t = (1 - g["u"]) * h[None] + g["u"] * g["c"]
        return torch.stack([g["r"][0], g["u"][0], g["c"][0], h_t[0]])

    J = vmap(jacrev(outputs, argnums=1))(x, prev)
    return J[:, 0], J[:, 1], J[:, 2], J[:, 3]


def candidate_derivative(cell, x: Tensor, prev: Tensor, r: Tensor) -> Tensor:
    """Φ' at the candidate's pre-activation z_c = W_c x_t + U_c(r_t ⊙ h_{t−1}) (+ b_c): 1 − tanh² for the GRU of eq. 1,
    the indicator of |z| + b > 0 for modReLU (eq. 20; z ≠ 0). Shape (T, h)."""
    U = cell.recurrent_matrices()
    z = x @ cell.W_c.mT + (r * prev) @ U["U_c"].mT
    if isinstance(cell, NCGRU):
        return (z.abs() + cell.b > 0).to(z.dtype)
    return 1 - torch.tanh(z + cell.b_c) ** 2


def proof_jacobians(cell, x: Tensor, prev: Tensor) -> dict[str, Tensor]:
    """The proof's closed forms at each step (T, h, h): eq. 29, 32, 36 and eq. 40 assembled from them."""
    g = cell.gates(x, prev)
    r, u, c = g["r"], g["u"], g["c"]
    U = cell.recurrent_matrices()
    dr = (r * (1 - r))[..., None] * U["U_r"]                                                # eq. 29
    du = (u * (1 - u))[..., None] * U["U_u"]                                                # eq. 32
    inner = prev[..., None] * dr + torch.diag_embed(r)                                      # diag(h)∂r + diag(r)
    dc = candidate_derivative(cell, x, prev, r)[..., None] * (U["U_c"] @ inner)           # eq. 36
    dh = -prev[..., None] * du + torch.diag_embed(1 - u) + c[..., None] * du + u[..., None] * dc  # eq. 40
    return {"eq. 29": dr, "eq. 32": du, "eq. 36": dc, "eq. 40": dh}


def _measure(case: GRUCase, formulas=proof_jacobians) -> dict[str, tuple]:
    x, prev = case.x[0, :1], case.h0[None]
    auto = dict(zip(("eq. 29", "eq. 32", "eq. 36", "eq. 40"), gate_jacobians(case.cell, x, prev)))
    closed = formulas(case.cell, x, prev)
    names = {"eq. 29": "∂r_t/∂h_(t−1) = diag(r ⊙ (1 − r))U_r",
             "eq. 32": "∂u_t/∂h_(t−1) = diag(u ⊙ (1 − u))U_u",
             "eq. 36": "∂c_t/∂h_(t−1) = diag(Φ')U_c(diag(h_(t−1))∂r_t/∂h_(t−1) + diag(r_t))",
             "eq. 40": "∂h_t/∂h_(t−1) = −diag(h_(t−1))∂u + diag(1 − u) + diag(c)∂u + diag(u)∂c"}
    parts = {}
    for key, text in names.items():
        ref = torch.linalg.matrix_norm(auto[key])
        err = torch.linalg.matrix_norm(closed[key] - auto[key])
        parts[f"{key}: {text}"] = (err.max(), JAC_RTOL * (ref.max() + 1e-300), ref.max())
    return parts


def sample_step_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> GRUCase:
    """One step (T = 1) of the GRU of eq. 1 (half the cases) or of an NC-GRU of eq. 19 (NC-GRU(Uc), (Ur, Uc) or
    (Ur, Uu, Uc)), weights scaled by a log-uniform factor in [0.3, 10], x_t standard normal, h_{t−1} uniform in
    [−1, 1]^h (GRU) or Gaussian with a log-uniform scale in [0.1, 5] (NC-GRU, whose states are unbounded), modReLU
    bias standard normal.

    Raises:
        ValueError: T ≠ 1.
    """
    if T != 1:
        raise ValueError(f"T must be 1 (one step), got {T}")
    f64 = torch.float64
    n = 1 if torch.rand((), generator=gen) < 0.5 else 3
    if torch.rand((), generator=gen) < 0.5:
        cell = GRU(n, h, generator=gen, dtype=f64)
        h_prev = 2 * torch.rand(h, generator=gen, dtype=f64) - 1
    else:
        orth = [("c",), ("r", "c"), ("r", "u", "c")][int(torch.randint(0, 3, (), generator=gen))]
        cell = NCGRU(n, h, orthogonal=orth, num_negative=int(torch.randint(0, h + 1, (), generator=gen)),
                     generator=gen, dtype=f64)
        h_prev = torch.randn(h, generator=gen, dtype=f64) * log_uniform(gen, 0.1, 5.0)
    with torch.no_grad():
        scale = log_uniform(gen, 0.3, 10.0)
        for name, p in cell.named_parameters():
            if not name.startswith("cayley."):
                p.mul_(scale)
        if isinstance(cell, NCGRU):
            cell.b.copy_(torch.randn(h, generator=gen, dtype=f64))
    x = torch.randn(1, 1, n, generator=gen, dtype=f64)
    return GRUCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                   h_prev.to(device=device, dtype=dtype))


def _exact() -> ExactVerdict:
    """h = 2 with every weight and state symbolic, σ and Φ as functions with σ' = σ(1 − σ), Φ' = 1 − Φ² (tanh): sympy's
    Jacobian of eq. 1's h_t against eq. 40 built from eq. 29, 32, 36."""
    import sympy

    class S(sympy.Function):  # noqa: N801  (the sigmoid, with its derivative identity)
        def fdiff(self, argindex=1):
            return S(self.args[0]) * (1 - S(self.args[0]))

    class P(sympy.Function):  # noqa: N801  (tanh, with Φ' = 1 − Φ²)
        def fdiff(self, argindex=1):
            return 1 - P(self.args[0]) ** 2

    n = 2
    h = sympy.Matrix(sympy.symbols(f"h1:{n + 1}", real=True))
    Ur, Uu, Uc = (sympy.Matrix(n, n, sympy.symbols(f"{k}1:{n * n + 1}", real=True)) for k in ("r", "u", "c"))
    ar, au, ac = (sympy.Matrix(sympy.symbols(f"{k}1:{n + 1}", real=True)) for k in ("p", "q", "s"))  # W x + b
    zr, zu = ar + Ur * h, au + Uu * h
    r, u = zr.applyfunc(S), zu.applyfunc(S)
    zc = ac + Uc * sympy.Matrix(n, 1, lambda i, _: r[i] * h[i])
    c = zc.applyfunc(P)
    h_t = sympy.Matrix(n, 1, lambda i, _: (1 - u[i]) * h[i] + u[i] * c[i])
    J = h_t.jacobian(h)
    diag = sympy.diag
    dr = diag(*[r[i] * (1 - r[i]) for i in range(n)]) * Ur
    du = diag(*[u[i] * (1 - u[i]) for i in range(n)]) * Uu
    dc = diag(*[1 - c[i] ** 2 for i in range(n)]) * Uc * (diag(*h) * dr + diag(*r))
    formula = -diag(*h) * du + diag(*[1 - u[i] for i in range(n)]) + diag(*c) * du + diag(*u) * dc
    gap = (J - formula).applyfunc(sympy.expand)
    ok = gap == sympy.zeros(n, n)
    return ExactVerdict("proved" if ok else "violated",
                        "h = 2, all weights, biases and h_(t−1) symbolic: sympy's Jacobian of eq. 1 equals eq. 40 with "
                        "eq. 29, 32, 36 entry by entry" if ok else f"difference {gap}")


A_CELL = Assumption("a GRU of eq. 1 or an NC-GRU of eq. 19", lambda c: (
    type(c.cell) in (GRU, NCGRU), type(c.cell).__name__))
A_STEP = Assumption("one step t (T = 1, h_{t−1} = h0)", lambda c: (c.x.shape[1] == 1, f"T = {c.x.shape[1]}"))

_SIZES = [(1, 1), (2, 1), (3, 1), (8, 1), (16, 1)]
_STEPS = CaseSpace(case_type=GRUCase, sample=sample_step_case,
                   sizes={"quick": _SIZES, "full": _SIZES + [(64, 1), (128, 1)]})

eq36 = Claim(
    id="nc_gru.eq36",
    source="nc_gru.md, SM 7, proof of Theorem 1, eq. 29, 32, 36 and 40",
    statement="∂r_t/∂h_{t−1} = diag(r_t ⊙ (1 − r_t))U_r (29); ∂u_t/∂h_{t−1} = diag(u_t ⊙ (1 − u_t))U_u (32); "
              "∂c_t/∂h_{t−1} = diag(Φ')U_c(diag(h_{t−1})∂r_t/∂h_{t−1} + diag(r_t)) (36); ∂h_t/∂h_{t−1} = "
              "−diag(h_{t−1})∂u_t/∂h_{t−1} + diag(1 − u_t) + diag(c_t)∂u_t/∂h_{t−1} + diag(u_t)∂c_t/∂h_{t−1} (40)",
    assumptions=(A_CELL, A_STEP),
    measure="‖closed form − autograd‖_F of each Jacobian (jacrev of the cell's gates and step)",
    bound="1e-10 · ‖autograd‖_F; reference ‖autograd‖_F",
    evaluate=_measure,
    cases=_STEPS,
    explanation="Would mean the proof's derivatives are wrong (a transposed U, a missing diag(h_(t−1)) term, a sign).",
    notes="Identities, checked on random steps of the GRU (tanh, Φ' = 1 − c²) and of the NC-GRU (modReLU, Φ' ∈ {0, 1} "
          "off z = 0, where modReLU jumps when b > 0 and has no derivative). Eq. 36 is written in the paper with "
          "Φ'(W_c x_t + U_c(r_t ⊙ h_{t−1}) + b_c), the GRU's candidate; for NC-GRU the bias is modReLU's b.",
    exact=_exact,
)
