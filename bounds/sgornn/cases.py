"""The cases of sgornn.md's claims: one sequence through an SGORNN cell of the class F_T (eq. 5).

Every case is one sequence through an SGORNN cell with the VPRNN map (eq. 2), ReLU, no bias
and h_0 = 0, which is the class F_T of eq. 5. The norm bounds R_W, R_x, R_v are set to the
actual norms of W, x and v, the tightest values the statements allow, so each check is the
strictest instance of its statement.

Shared here: :class:`GatedCase` with its sampler, projection and search space
(:data:`GATED_1_ALPHA`), the assumptions of F_T, the forward pass and the parameter gradients
that Theorem 2, Corollary 1 and the eq. 31 step all measure.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, NotApplicable, assumption_tolerances, within
from rnnaudit.cells import SGORNN, FastRNN, orthogonality_defect, scalar_gated_recurrence
from rnnaudit.cells.orthogonal import VPRNNRotations
from rnnaudit.tasks.synthetic import addition_problem

__all__ = ["GatedCase", "sample_gated_case", "project_gates", "logit", "GATED_1_ALPHA", "QUICK_SIZES",
           "FULL_GRADIENT_SIZES", "GATED_1_ALPHA_LONG", "F_T_ASSUMPTIONS", "A_RELU", "A_NO_BIAS", "A_ORTHOGONAL", "A_W",
           "A_X", "A_V", "A_GATES_OPEN", "A_BETA_1_ALPHA", "A_BETA_1_2ALPHA", "A_VPRNN", "R_NOTE", "loss_and_states",
           "parameter_gradients", "C", "gated_cases_from_model"]


@dataclass
class GatedCase:
    """One instance of the class F_T (sgornn.md eq. 5) with a readout vector.

    Attributes:
        cell: an :class:`rnnaudit.cells.SGORNN` (or, for hand-made cases and audited models, a
            :class:`rnnaudit.cells.FastRNN`).
        x: one input sequence, shape (1, T, n).
        v: readout vector, shape (h,).
        R_W, R_x, R_v: the "predetermined bounds" of Theorem 1 on ‖W‖_F, max_t ‖x_t‖₂, ‖v‖₂.
    """

    cell: SGORNN | FastRNN
    x: Tensor
    v: Tensor
    R_W: float
    R_x: float
    R_v: float

    def size(self) -> tuple[int, int]:
        """(h, T)."""
        return self.cell.hidden_size, self.x.shape[1]

    def theta(self) -> Tensor:
        """The recurrent parameter: Θ for SGORNN, U itself for FastRNN (φ = identity)."""
        return self.cell.phi.theta if isinstance(self.cell, SGORNN) else self.cell.U

    def recurrent(self) -> Tensor:
        """U = φ(Θ), shape (h, h)."""
        return self.cell.recurrent_matrix()

    @property
    def alpha(self) -> float:
        """The gate α ∈ (0, 1) (trajectory records hold it under the same name)."""
        return float(self.cell.alpha.detach())

    @property
    def beta(self) -> float:
        """The gate β (after the clip of eq. 3 when the cell applies it)."""
        return float(self.cell.beta.detach())

    @property
    def orthogonality_defect(self) -> float:
        """‖UᵀU − I‖₂ of U = φ(Θ)."""
        with torch.no_grad():  # a number for the assumption: the same bits, without recording φ's graph
            return float(orthogonality_defect(self.recurrent()))

    @classmethod
    def from_cell(cls, cell: SGORNN | FastRNN, v: Tensor, x: Tensor) -> "GatedCase":
        """A (trained) scalar-gated cell as an element of F_T, float64, on one input sequence.

        A trained cell has a bias b; sgornn.md eq. 5 says biases are "omitted or absorbed into the
        weights matrix", so it is absorbed: x̃_t = [x_t, 1], W̃ = [W | b]. The cell computes exactly
        the same states, and R_x, R_W are those of x̃ and W̃. R_v = ‖v‖₂.

        Args:
            cell: an SGORNN or FastRNN (any dtype; copied, not modified).
            v: the readout row (h,) of L = vᵀh_T. x: inputs (T, n).

        Raises:
            ValueError: not an SGORNN/FastRNN, or shapes that do not fit the cell.
        """
        if not isinstance(cell, (SGORNN, FastRNN)):
            raise ValueError(f"cell must be an SGORNN or FastRNN, got {type(cell).__name__}")
        n, h = cell.input_size, cell.hidden_size
        if x.dim() != 2 or x.shape[1] != n or v.shape != (h,):
            raise ValueError(f"x must be (T, {n}) and v ({h},), got {tuple(x.shape)} and {tuple(v.shape)}")
        cell = copy.deepcopy(cell).double()
        b = cell.b.detach() if cell.b is not None else torch.zeros(h, dtype=torch.float64)
        W_aug = torch.cat([cell.W.detach(), b[:, None]], dim=1)
        if isinstance(cell, SGORNN):
            aug = SGORNN(n + 1, h, k=cell.phi.k, bias=False, clip_beta=cell.clip_beta, activation=cell.activation,
                         dtype=torch.float64)
            aug.phi.load_state_dict(cell.phi.state_dict())
        else:
            aug = FastRNN(n + 1, h, bias=False, activation=cell.activation, dtype=torch.float64)
            aug.U.data.copy_(cell.U.detach())
        with torch.no_grad():
            aug.W.copy_(W_aug)
            aug.alpha_logit.fill_(logit(float(cell.alpha)))
            aug.beta_logit.fill_(logit(float(cell.beta)))
        x = x.detach().double()
        x_aug = torch.cat([x, torch.ones(x.shape[0], 1, dtype=torch.float64)], dim=-1)
        v = v.detach().double()
        return cls(aug, x_aug[None], v, float(torch.linalg.matrix_norm(W_aug)),
                   float(torch.linalg.vector_norm(x_aug, dim=-1).max()), float(torch.linalg.vector_norm(v)))


def logit(p: float) -> float:
    """log(p/(1 − p)) in float64, for setting a gate to the value p."""
    return math.log(p) - math.log1p(-p)


def sample_gated_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
                      gate: str = "1-alpha") -> GatedCase:
    """Draw a random case of F_T satisfying the assumptions of Theorem 2 (``gate="1-alpha"``,
    β ≤ 1 − α) or of Theorem 1 / eq. 3 (``gate="1-2alpha"``, β ≤ 1 − 2α).

    Inputs alternate between addition-problem sequences (n = 2, Sec. 3.1), Gaussian sequences
    and a repeated Gaussian vector (the input that drives ‖h_t‖ up fastest), with n = 2 or the
    HAR-2 width 9 (Sec. 3.2); a quarter of the cases are the aligned edge case Θ = 0,
    W = 1x_1ᵀ/√h with constant input, where the hidden-state bound is attained. α is log-uniform
    on [1e-3, α_max); β sits on its upper limit in a third of the cases (saturated gates) and is
    uniform below it otherwise.

    Args:
        gen: torch.Generator (CPU). h: width (even). T: length ≥ 1.
        device, dtype: of the case's tensors.
        gate: ``"1-alpha"`` or ``"1-2alpha"``.

    Raises:
        ValueError: unknown ``gate``.
    """
    if gate not in ("1-alpha", "1-2alpha"):
        raise ValueError(f"gate must be '1-alpha' or '1-2alpha', got {gate!r}")
    draw = lambda: torch.rand((), generator=gen).item()  # noqa: E731
    kind = int(torch.randint(0, 4, (), generator=gen))
    n = 2 if kind == 0 or draw() < 0.5 else 9
    if kind == 0:
        x = addition_problem(1, T, generator=gen)[0][0]
    elif kind == 1:
        x = torch.randn(T, n, generator=gen, dtype=torch.float64)
    else:
        x = torch.randn(1, n, generator=gen, dtype=torch.float64).expand(T, n).clone()
    cell = SGORNN(n, h, bias=False, clip_beta=False, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.W.copy_(torch.randn(h, n, generator=gen, dtype=torch.float64) / math.sqrt(n))
        if kind == 3:
            # Edge case: Θ = 0 makes U = Q_1⋯Q_k a permutation, which fixes the all-ones vector;
            # W = 1 x_1ᵀ then drives h_t along it at the fastest rate the recurrence allows.
            cell.phi.theta.zero_()
            cell.W.copy_(torch.ones(h, 1, dtype=torch.float64) @ x[:1] / math.sqrt(h))
        alpha_max = 0.999 if gate == "1-alpha" else 0.499
        alpha = math.exp(math.log(1e-3) + draw() * (math.log(alpha_max) - math.log(1e-3)))
        beta_max = 1 - alpha if gate == "1-alpha" else 1 - 2 * alpha
        beta = beta_max if draw() < 1 / 3 else beta_max * max(draw(), 1e-3)
        cell.alpha_logit.fill_(logit(alpha))
        cell.beta_logit.fill_(logit(beta))
        # the logits round-trip α and β to within a few ulps; pin β at or below its limit
        project_gates(cell, gate)
    v = torch.randn(h, generator=gen, dtype=torch.float64)
    case = GatedCase(cell.to(device=device, dtype=dtype), x[None].to(device=device, dtype=dtype),
                     v.to(device=device, dtype=dtype), 0.0, 0.0, 0.0)
    case.R_W = float(torch.linalg.matrix_norm(case.cell.W.detach()))
    case.R_x = float(torch.linalg.vector_norm(case.x, dim=-1).max())
    case.R_v = float(torch.linalg.vector_norm(case.v))
    return case


def project_gates(cell: SGORNN, gate: str) -> None:
    """Clamp α̂ so α ∈ [1e-4, α_max] and β̂ so β ≤ β_max(α), in place (β̂ is lowered by a
    couple of ulps so that sigmoid(β̂) ≤ β_max also after rounding)."""
    alpha_max = 1 - 1e-4 if gate == "1-alpha" else 0.5 - 1e-6
    cell.alpha_logit.clamp_(logit(1e-4), logit(alpha_max))
    alpha = torch.sigmoid(cell.alpha_logit)
    beta_max = 1 - alpha if gate == "1-alpha" else 1 - 2 * alpha
    limit = torch.log(beta_max) - torch.log1p(-beta_max)
    while torch.sigmoid(torch.minimum(cell.beta_logit, limit)) > beta_max:
        limit = torch.nextafter(limit, limit.new_tensor(-math.inf))
    cell.beta_logit.copy_(torch.minimum(cell.beta_logit, limit).clamp_min(logit(1e-6)))


def _project(case: GatedCase) -> None:
    """Move a case back onto Theorem 2's assumptions: ‖W‖_F ≤ R_W, ‖x_t‖ ≤ R_x, ‖v‖ ≤ R_v and
    β ≤ 1 − α. Θ is unconstrained (dom φ = ℝ^{h/2×k})."""
    W = case.cell.W
    W.mul_(min(1.0, case.R_W / float(torch.linalg.matrix_norm(W))))
    norms = torch.linalg.vector_norm(case.x, dim=-1, keepdim=True)
    case.x.mul_(torch.clamp(case.R_x / norms, max=1.0))
    case.v.mul_(min(1.0, case.R_v / float(torch.linalg.vector_norm(case.v))))
    if isinstance(case.cell, SGORNN):
        project_gates(case.cell, "1-alpha")


def _free(case: GatedCase) -> list[Tensor]:
    cell = case.cell
    return [cell.W, case.theta(), cell.alpha_logit, cell.beta_logit, case.x, case.v]


def _sample_1_alpha(gen, h, T, device, dtype) -> GatedCase:
    return sample_gated_case(gen, h, T, device, dtype, gate="1-alpha")


def gated_cases_from_model(view) -> list[GatedCase]:
    """A model as cases of F_T, one per input sequence of ``view``
    (:class:`rnnaudit.bounds.on_model.ModelView`), bias absorbed (:meth:`GatedCase.from_cell`).

    Raises:
        NotApplicable: the cell is not scalar-gated (SGORNN, or FastRNN, which eq. 1 contains with
            φ the identity and U unconstrained), or the readout is not a single row.
    """
    if not isinstance(view.cell, (SGORNN, FastRNN)):
        raise NotApplicable(f"sgornn.md's class F_T is the scalar-gated recurrence h_t = ασ(Wx_t + Uh_(t−1) + b) + "
                            f"βh_(t−1) (SGORNN, or FastRNN with U unconstrained); the model's cell is "
                            f"{type(view.cell).__name__}")
    v = view.readout_row()
    return [GatedCase.from_cell(view.cell, v, x) for x in view.inputs]


#: Sizes (h, T) of the quick profile, and of the full profile for the gradient claims.
QUICK_SIZES = [(2, 1), (2, 7), (8, 10), (16, 50), (32, 100), (64, 200)]
FULL_GRADIENT_SIZES = QUICK_SIZES + [(128, 500), (128, 1000)]

#: Cases of Theorem 2's class (β ≤ 1 − α), searched over W, Θ, the gates, x and v.
GATED_1_ALPHA = CaseSpace(case_type=GatedCase, sample=_sample_1_alpha, free=_free, project=_project,
                          sizes={"quick": QUICK_SIZES, "full": FULL_GRADIENT_SIZES},
                          from_model=gated_cases_from_model)

#: The same class at the sizes of the hidden-state bound (cheap to measure, so up to T = 5000).
GATED_1_ALPHA_LONG = replace(GATED_1_ALPHA, sizes={"quick": QUICK_SIZES,
                                                   "full": QUICK_SIZES + [(128, 500), (128, 1000), (128, 5000)]})


# ----------------------------------------------------------------------------------- assumptions
def _norm(t: Tensor, **kw) -> float:
    return float(torch.linalg.vector_norm(t.detach(), **kw).max())


A_RELU = Assumption("σ = ReLU", lambda c: (c.cell.activation == "relu", f"σ = {c.cell.activation}"))
A_NO_BIAS = Assumption("b = 0 (bias omitted or absorbed into W, eq. 5)", lambda c: (
    c.cell.b is None or bool((c.cell.b == 0).all()),
    "no bias" if c.cell.b is None else f"‖b‖₂ = {_norm(c.cell.b):.3g}"))
A_ORTHOGONAL = Assumption("U = φ(Θ) orthogonal", lambda c: (
    c.orthogonality_defect <= assumption_tolerances().orthogonality, f"‖UᵀU − I‖₂ = {c.orthogonality_defect:.3g}"),
    recorded=("orthogonality_defect",))
A_W = Assumption("‖W‖_F ≤ R_W", lambda c: (
    within(float(torch.linalg.matrix_norm(c.cell.W.detach())), c.R_W),
    f"‖W‖_F = {float(torch.linalg.matrix_norm(c.cell.W.detach())):.6g}, R_W = {c.R_W:.6g}"))
A_X = Assumption("‖x_t‖₂ ≤ R_x for all t", lambda c: (
    within(_norm(c.x, dim=-1), c.R_x), f"max ‖x_t‖₂ = {_norm(c.x, dim=-1):.6g}, R_x = {c.R_x:.6g}"))
A_V = Assumption("‖v‖₂ ≤ R_v", lambda c: (
    within(_norm(c.v), c.R_v), f"‖v‖₂ = {_norm(c.v):.6g}, R_v = {c.R_v:.6g}"))
A_GATES_OPEN = Assumption("α, β ∈ (0, 1)", lambda c: (
    0 < c.alpha < 1 and 0 < c.beta < 1, f"α = {c.alpha:.6g}, β = {c.beta:.6g}"), recorded=("alpha", "beta"))
A_BETA_1_ALPHA = Assumption("β ≤ 1 − α", lambda c: (
    c.beta <= 1 - c.alpha + assumption_tolerances().rtol, f"α + β = {c.alpha + c.beta:.12g}"),
    recorded=("alpha", "beta"))
A_BETA_1_2ALPHA = Assumption("β ≤ 1 − 2α (eq. 3)", lambda c: (
    c.beta <= 1 - 2 * c.alpha + assumption_tolerances().rtol, f"α = {c.alpha:.6g}, β = {c.beta:.6g}"),
    recorded=("alpha", "beta"))
A_VPRNN = Assumption("φ is the VPRNN map (eq. 2)", lambda c: (
    isinstance(c.cell, SGORNN) and isinstance(c.cell.phi, VPRNNRotations), type(c.cell).__name__))

#: The class F_T of eq. 5 with Theorem 2's gate condition.
F_T_ASSUMPTIONS = (A_RELU, A_NO_BIAS, A_ORTHOGONAL, A_W, A_X, A_GATES_OPEN, A_BETA_1_ALPHA)

R_NOTE = ("R_W, R_x, R_v are the actual ‖W‖_F, max_t ‖x_t‖₂, ‖v‖₂ of each case, the tightest bounds the "
          "statement allows.")


# ---------------------------------------------------------------------------------- measurements
def loss_and_states(case: GatedCase, U: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """L = vᵀh_T and all states (T, h). σ_y = identity and L = ŷ − y: a 1-Lipschitz loss with
    |∂L/∂ŷ| = 1, the worst case of Theorems 1–2's class, so ∂L/∂h_T = v exactly."""
    cell = case.cell
    U = case.recurrent() if U is None else U
    hs = scalar_gated_recurrence(case.x @ cell.W.mT, U, cell.b, cell.alpha, cell.beta,
                                 case.x.new_zeros(1, cell.hidden_size), cell.activation)[0]
    return hs[-1] @ case.v, hs


def parameter_gradients(case: GatedCase) -> tuple[Tensor, Tensor]:
    """(∂L/∂Θ, ∂L/∂W) by autograd, kept differentiable for the ascent."""
    loss, _ = loss_and_states(case)
    g_theta, g_W = torch.autograd.grad(loss, [case.theta(), case.cell.W], create_graph=True)
    return g_theta, g_W


def C(case: GatedCase) -> float:
    """C = R_x R_W R_v of Theorem 1."""
    return case.R_x * case.R_W * case.R_v
