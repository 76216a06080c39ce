"""Claims of sgornn.md (SGORNN, with FastRNN and VPRNN) as executable checks.

Claim ids and where they live in the paper:

- ``sgornn.hidden_state``  Appendix A.2, hidden-state bound ‖h_t‖₂ ≤ αT R_W R_x
- ``sgornn.theorem2``      Theorem 2, eq. 7–8 (max-entry gradient bounds)
- ``sgornn.corollary1``    Corollary 1, eq. 9 (Theorem 2 with VPRNN's M_φ = 4√h log₂ h)
- ``sgornn.eq31``          Appendix A.2, eq. 31, the norm step ‖X‖₁,₁ ≤ √h‖X‖_F ≤ h‖X‖₂
- ``sgornn.eq31.corrected`` the repaired step ‖G‖₁,₁ ≤ h‖G‖_* ≤ h α R_v Σ_t ‖h_{t−1}‖₂
- ``sgornn.eq3``           Sec. 2, eq. 3: the clipped gate satisfies β ≤ 1 − 2α
- ``sgornn.eq34``          Appendix A.3, eq. 34: ‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ k‖ΔΘ‖₂, k = 2⌈log₂ h⌉

FastRNN's generalization constraint (eq. 4) is an assumption predicate, :func:`fastrnn_eq4_limit`
and :data:`A_FASTRNN_EQ4`, for auditing FastRNN models; it states no inequality of its own to check.

Every case is one sequence through an SGORNN cell with the VPRNN map (eq. 2), ReLU, no bias
and h_0 = 0, which is the class F_T of eq. 5. The norm bounds R_W, R_x, R_v are set to the
actual norms of W, x and v, the tightest values the statements allow, so each check is the
strictest instance of its statement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jacfwd

from rnnaudit.tasks.synthetic import addition_problem
from rnnaudit.cells import SGORNN, FastRNN, orthogonality_defect, scalar_gated_recurrence, vprnn_max_sublayers
from rnnaudit.cells.orthogonal import VPRNNRotations
from rnnaudit.bounds.core import Assumption, Claim, load_params

__all__ = ["GatedCase", "PerturbationCase", "sample_gated_case", "local_M_phi", "CLAIMS", "hidden_state", "theorem2",
           "corollary1", "eq31", "eq31_corrected", "eq3", "eq34", "fastrnn_eq4_limit", "fastrnn_eq4_assumption"]

#: Relative slack of the assumption predicates: projections land exactly on a constraint up to
#: a few float64 roundings (≈ 1e-16 each).
ASSUMPTION_RTOL = 1e-12
#: Orthogonality tolerance for U = φ(Θ): VPRNN/expm maps reach ≈ 1e-15 in float64.
ORTHOGONALITY_TOL = 1e-10


@dataclass
class GatedCase:
    """One instance of the class F_T (sgornn.md eq. 5) with a readout vector.

    Attributes:
        cell: an :class:`cells.SGORNN` (or, for hand-made cases, a :class:`cells.FastRNN`).
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

    def state(self) -> dict:
        """Tensors and config, detached copies, for :func:`bounds.core.save_counterexample`."""
        cell = self.cell
        config = {"input_size": cell.input_size, "hidden_size": cell.hidden_size, "activation": cell.activation,
                  "bias": cell.b is not None}
        if isinstance(cell, SGORNN):
            config.update(kind="SGORNN", k=cell.phi.k, clip_beta=cell.clip_beta)
        else:
            config.update(kind="FastRNN", beta_mode=cell.beta_mode)
        params = {k: v.detach().clone() for k, v in cell.state_dict().items()}
        return {"config": config, "params": params, "x": self.x.detach().clone(), "v": self.v.detach().clone(),
                "R_W": self.R_W, "R_x": self.R_x, "R_v": self.R_v}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "GatedCase":
        """Rebuild a case from :meth:`state` (e.g. a reloaded counterexample).

        Raises:
            ValueError: unknown cell kind in the state.
        """
        cfg = dict(state["config"])
        kind = cfg.pop("kind")
        common = dict(activation=cfg["activation"], bias=cfg["bias"], dtype=dtype, device=device)
        if kind == "SGORNN":
            cell = SGORNN(cfg["input_size"], cfg["hidden_size"], k=cfg["k"], clip_beta=cfg["clip_beta"], **common)
        elif kind == "FastRNN":
            cell = FastRNN(cfg["input_size"], cfg["hidden_size"], beta_mode=cfg["beta_mode"], **common)
        else:
            raise ValueError(f"unknown cell kind {kind!r} in case state (expected SGORNN or FastRNN)")
        load_params(cell, state["params"], device, dtype)
        return cls(cell, state["x"].to(device=device, dtype=dtype), state["v"].to(device=device, dtype=dtype),
                   float(state["R_W"]), float(state["R_x"]), float(state["R_v"]))


def _logit(p: float) -> float:
    return math.log(p) - math.log1p(-p)


def sample_gated_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
                      gate: str = "1-alpha") -> GatedCase:
    """Draw a random case of F_T satisfying the assumptions of Theorem 2 (``gate="1-alpha"``,
    β ≤ 1 − α) or of Theorem 1 / eq. 3 (``gate="1-2alpha"``, β ≤ 1 − 2α).

    Inputs alternate between addition-problem sequences (n = 2, Sec. 3.1), Gaussian sequences
    and a repeated Gaussian vector (the input that drives ‖h_t‖ up fastest), with n = 2 or the
    HAR-2 width 9 (Sec. 3.2); a quarter of the cases are the aligned edge case Θ = 0, W = 1x_1ᵀ/√h
    with constant input, where the hidden-state bound is attained. α is log-uniform on [1e-3, α_max); β sits on its upper limit in
    a third of the cases (saturated gates) and is uniform below it otherwise.

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
        cell.alpha_logit.fill_(_logit(alpha))
        cell.beta_logit.fill_(_logit(beta))
        # the logits round-trip α and β to within a few ulps; pin β at or below its limit
        _project_gates(cell, gate)
    v = torch.randn(h, generator=gen, dtype=torch.float64)
    case = GatedCase(cell.to(device=device, dtype=dtype), x[None].to(device=device, dtype=dtype),
                     v.to(device=device, dtype=dtype), 0.0, 0.0, 0.0)
    case.R_W = float(torch.linalg.matrix_norm(case.cell.W.detach()))
    case.R_x = float(torch.linalg.vector_norm(case.x, dim=-1).max())
    case.R_v = float(torch.linalg.vector_norm(case.v))
    return case


def _project_gates(cell: SGORNN, gate: str) -> None:
    """Clamp α̂ so α ∈ [1e-4, α_max] and β̂ so β ≤ β_max(α), in place (β̂ is lowered by a
    couple of ulps so that sigmoid(β̂) ≤ β_max also after rounding)."""
    alpha_max = 1 - 1e-4 if gate == "1-alpha" else 0.5 - 1e-6
    cell.alpha_logit.clamp_(_logit(1e-4), _logit(alpha_max))
    alpha = torch.sigmoid(cell.alpha_logit)
    beta_max = 1 - alpha if gate == "1-alpha" else 1 - 2 * alpha
    limit = torch.log(beta_max) - torch.log1p(-beta_max)
    while torch.sigmoid(torch.minimum(cell.beta_logit, limit)) > beta_max:
        limit = torch.nextafter(limit, limit.new_tensor(-math.inf))
    cell.beta_logit.copy_(torch.minimum(cell.beta_logit, limit).clamp_min(_logit(1e-6)))


def _project(case: GatedCase, gate: str) -> None:
    """Move a case back onto the assumptions: ‖W‖_F ≤ R_W, ‖x_t‖ ≤ R_x, ‖v‖ ≤ R_v and the
    gate constraint. Θ is unconstrained (dom φ = ℝ^{h/2×k})."""
    W = case.cell.W
    W.mul_(min(1.0, case.R_W / float(torch.linalg.matrix_norm(W))))
    norms = torch.linalg.vector_norm(case.x, dim=-1, keepdim=True)
    case.x.mul_(torch.clamp(case.R_x / norms, max=1.0))
    case.v.mul_(min(1.0, case.R_v / float(torch.linalg.vector_norm(case.v))))
    if isinstance(case.cell, SGORNN):
        _project_gates(case.cell, gate)


def _free(case: GatedCase) -> list[Tensor]:
    cell = case.cell
    return [cell.W, case.theta(), cell.alpha_logit, cell.beta_logit, case.x, case.v]


# ----------------------------------------------------------------------------------- assumptions
def _f(t: Tensor) -> float:
    return float(t.detach())


def _within(value: float, limit: float) -> bool:
    return value <= limit * (1 + ASSUMPTION_RTOL)


A_RELU = Assumption("σ = ReLU", lambda c: (c.cell.activation == "relu", f"σ = {c.cell.activation}"))
A_NO_BIAS = Assumption("b = 0 (bias omitted or absorbed into W, eq. 5)", lambda c: (
    c.cell.b is None or bool((c.cell.b == 0).all()),
    "no bias" if c.cell.b is None else f"‖b‖₂ = {_f(torch.linalg.vector_norm(c.cell.b)):.3g}"))
A_ORTHOGONAL = Assumption("U = φ(Θ) orthogonal", lambda c: (
    float(orthogonality_defect(c.recurrent().detach())) <= ORTHOGONALITY_TOL,
    f"‖UᵀU − I‖₂ = {float(orthogonality_defect(c.recurrent().detach())):.3g}"))
A_W = Assumption("‖W‖_F ≤ R_W", lambda c: (
    _within(float(torch.linalg.matrix_norm(c.cell.W.detach())), c.R_W),
    f"‖W‖_F = {float(torch.linalg.matrix_norm(c.cell.W.detach())):.6g}, R_W = {c.R_W:.6g}"))
A_X = Assumption("‖x_t‖₂ ≤ R_x for all t", lambda c: (
    _within(float(torch.linalg.vector_norm(c.x.detach(), dim=-1).max()), c.R_x),
    f"max ‖x_t‖₂ = {float(torch.linalg.vector_norm(c.x.detach(), dim=-1).max()):.6g}, R_x = {c.R_x:.6g}"))
A_V = Assumption("‖v‖₂ ≤ R_v", lambda c: (
    _within(float(torch.linalg.vector_norm(c.v.detach())), c.R_v),
    f"‖v‖₂ = {float(torch.linalg.vector_norm(c.v.detach())):.6g}, R_v = {c.R_v:.6g}"))
A_GATES_OPEN = Assumption("α, β ∈ (0, 1)", lambda c: (
    0 < _f(c.cell.alpha) < 1 and 0 < _f(c.cell.beta) < 1,
    f"α = {_f(c.cell.alpha):.6g}, β = {_f(c.cell.beta):.6g}"))
A_BETA_1_ALPHA = Assumption("β ≤ 1 − α", lambda c: (
    _f(c.cell.beta) <= 1 - _f(c.cell.alpha) + ASSUMPTION_RTOL,
    f"α + β = {_f(c.cell.alpha) + _f(c.cell.beta):.12g}"))
A_VPRNN = Assumption("φ is the VPRNN map (eq. 2)", lambda c: (
    isinstance(c.cell, SGORNN) and isinstance(c.cell.phi, VPRNNRotations), type(c.cell).__name__))

F_T_ASSUMPTIONS = (A_RELU, A_NO_BIAS, A_ORTHOGONAL, A_W, A_X, A_GATES_OPEN, A_BETA_1_ALPHA)


# ---------------------------------------------------------------------------------- measurements
def local_M_phi(case: GatedCase) -> Tensor:
    """M_φ at the case's Θ: max over i, j of ‖∂φ(Θ)/∂Θ_ij‖_max (sgornn.md Theorem 2), 0-d.

    Computed exactly with ``torch.func.jacfwd`` of φ; for FastRNN (φ = identity on U) it is 1.
    The proof of Theorem 2 (eq. 29–31) uses ∂φ/∂Θ only at the current Θ, so this local value
    is the tightest M_φ the statement can be read with; the supremum over Θ that the theorem
    assumes can only be larger. Cost: h² · (h/2) · k entries (117 MB at h = 128, k = 14).
    """
    if not isinstance(case.cell, SGORNN):
        return case.x.new_ones(())
    theta = case.cell.phi.theta.detach()
    return jacfwd(case.cell.phi.matrix)(theta).abs().amax()


def _loss_and_states(case: GatedCase, U: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """L = vᵀh_T and all states (T, h). σ_y = identity and L = ŷ − y: a 1-Lipschitz loss with
    |∂L/∂ŷ| = 1, the worst case of Theorems 1–2's class, so ∂L/∂h_T = v exactly."""
    cell = case.cell
    U = case.recurrent() if U is None else U
    hs = scalar_gated_recurrence(case.x @ cell.W.mT, U, cell.b, cell.alpha, cell.beta,
                                 case.x.new_zeros(1, cell.hidden_size), cell.activation)[0]
    return hs[-1] @ case.v, hs


def _C(case: GatedCase) -> float:
    return case.R_x * case.R_W * case.R_v


def _measure_hidden_state(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    _, hs = _loss_and_states(case)
    T = hs.shape[0]
    measured = torch.linalg.vector_norm(hs, dim=-1).max()
    return {"‖h_t‖₂ ≤ αT R_W R_x": (measured, case.cell.alpha * T * case.R_W * case.R_x)}


def _parameter_gradients(case: GatedCase) -> tuple[Tensor, Tensor]:
    loss, _ = _loss_and_states(case)
    g_theta, g_W = torch.autograd.grad(loss, [case.theta(), case.cell.W], create_graph=True)
    return g_theta, g_W


def _measure_theorem2(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, T = case.size()
    g_theta, g_W = _parameter_gradients(case)
    aT = case.cell.alpha * T
    return {
        "eq. 7: ‖∂L/∂Θ‖_max ≤ C M_φ h (αT)²": (g_theta.abs().amax(), _C(case) * local_M_phi(case) * h * aT**2),
        "eq. 8: ‖∂L/∂W‖_max ≤ C αT √h / R_W": (g_W.abs().amax(), _C(case) * aT * math.sqrt(h) / case.R_W),
    }


def _measure_corollary1(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, T = case.size()
    g_theta, _ = _parameter_gradients(case)
    aT = case.cell.alpha * T
    bound = 4 * _C(case) * h**1.5 * math.log2(h) * aT**2
    return {"eq. 9: ‖∂L/∂Θ‖_max ≤ 4C h^{3/2} log₂(h) (αT)²": (g_theta.abs().amax(), bound)}


def _dL_dU(case: GatedCase) -> tuple[Tensor, Tensor]:
    """∂L/∂U (h, h), with U = φ(Θ) treated as the free matrix of eq. 25, and the states."""
    U = case.recurrent()
    loss, hs = _loss_and_states(case, U)
    (G,) = torch.autograd.grad(loss, [U], create_graph=True)
    return G, hs


def _measure_eq31(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, _ = case.size()
    G, _ = _dL_dU(case)
    l11 = G.abs().sum()
    return {
        "‖G‖₁,₁ ≤ √h ‖G‖_F": (l11, math.sqrt(h) * torch.linalg.matrix_norm(G)),
        "‖G‖₁,₁ ≤ h ‖G‖₂ (the chain as used)": (l11, h * torch.linalg.matrix_norm(G, ord=2)),
    }


def _measure_eq31_corrected(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, _ = case.size()
    G, hs = _dL_dU(case)
    nuclear = torch.linalg.matrix_norm(G, ord="nuc")
    prev_norms = torch.linalg.vector_norm(hs[:-1], dim=-1).sum()  # Σ_{t=1}^{T} ‖h_{t−1}‖, h_0 = 0
    return {
        "‖G‖₁,₁ ≤ h ‖G‖_*": (G.abs().sum(), h * nuclear),
        "‖G‖_* ≤ α R_v Σ_t ‖h_{t−1}‖₂": (nuclear, case.cell.alpha * case.R_v * prev_norms),
    }


# ------------------------------------------------------------------------------------------ claims
_QUICK = [(2, 1), (2, 7), (8, 10), (16, 50), (32, 100), (64, 200)]
_FULL_HIDDEN = _QUICK + [(128, 500), (128, 1000), (128, 5000)]
_FULL_GRAD = _QUICK + [(128, 500), (128, 1000)]

_COMMON = dict(paper="sgornn", free=_free, project=lambda c: _project(c, "1-alpha"), case_type=GatedCase,
               sample=lambda gen, h, T, device, dtype: sample_gated_case(gen, h, T, device, dtype, gate="1-alpha"))

_R_NOTE = ("R_W, R_x, R_v are the actual ‖W‖_F, max_t ‖x_t‖₂, ‖v‖₂ of each case, the tightest bounds the "
           "statement allows.")

hidden_state = Claim(
    id="sgornn.hidden_state",
    source="sgornn.md, Appendix A.2 (proof of Theorem 2), hidden-state bound",
    statement="‖h_t‖₂ ≤ αT R_W R_x for 1 ≤ t ≤ T (h_0 = 0, β ≤ 1 − α, ReLU, U orthogonal)",
    measure="max over t of ‖h_t‖₂ from the cell's forward pass",
    bound="α T R_W R_x",
    assumptions=F_T_ASSUMPTIONS,
    evaluate=_measure_hidden_state,
    sizes={"quick": _QUICK, "full": _FULL_HIDDEN},
    explanation="The recurrence ‖h_t‖ ≤ αR_WR_x + (α + β)‖h_{t−1}‖ needs α + β ≤ 1 and ‖U‖₂ = 1.",
    notes="The bound is attained (ratio → 1) when U = I acts on a state aligned with W x_t ≥ 0 and "
          "β = 1 − α, so ratios near 1 are expected. " + _R_NOTE,
    **_COMMON,
)

theorem2 = Claim(
    id="sgornn.theorem2",
    source="sgornn.md, Theorem 2, eq. 7–8 (proof in Appendix A.2, eq. 25–33)",
    statement="‖∂L/∂Θ‖_max ≤ C M_φ h (αT)² (eq. 7) and ‖∂L/∂W‖_max ≤ C αT √h / R_W (eq. 8), "
              "C = R_x R_W R_v, for a 1-Lipschitz loss and β ≤ 1 − α",
    measure="autograd gradients of L = vᵀh_T with respect to Θ and W; max |entry|",
    bound="C M_φ h (αT)² and C αT √h / R_W, with M_φ = max_ij ‖∂φ(Θ)/∂Θ_ij‖_max at the case's Θ",
    assumptions=F_T_ASSUMPTIONS + (A_V,),
    evaluate=_measure_theorem2,
    sizes={"quick": _QUICK, "full": _FULL_GRAD},
    explanation="Eq. 25's product ∏(αUᵀD + βI) is bounded by (α + β)^{T−t} ≤ 1 only if α + β ≤ 1 and "
                "‖U‖₂ ≤ 1; the hidden-state bound fails under the same conditions.",
    notes="L = vᵀh_T (σ_y = identity), the worst 1-Lipschitz loss: ∂L/∂h_T = v exactly. M_φ is taken at the "
          "case's Θ (jacfwd of φ), never larger than the supremum the theorem assumes, so the check is at least "
          "as strict as the statement. The proof's norm step eq. 31 is false as written; see sgornn.eq31. "
          + _R_NOTE,
    **_COMMON,
)

corollary1 = Claim(
    id="sgornn.corollary1",
    source="sgornn.md, Corollary 1, eq. 9 (details in Appendix A.3, eq. 34–36)",
    statement="For the VPRNN map, M_φ = 4√h log₂(h) and ‖∂L/∂Θ‖_max ≤ 4C h^{3/2} log₂(h) (αT)²",
    measure="autograd gradient of L = vᵀh_T with respect to Θ; max |entry|",
    bound="4 C h^{3/2} log₂(h) (αT)²",
    assumptions=F_T_ASSUMPTIONS + (A_V, A_VPRNN),
    evaluate=_measure_corollary1,
    sizes={"quick": _QUICK, "full": _FULL_GRAD},
    explanation="Inherits Theorem 2's conditions α + β ≤ 1 and ‖U‖₂ = 1.",
    notes="For VPRNN each ∂φ/∂Θ_ij = A·∂R_j·B with A, B orthogonal and ∂R_j of rank 2 and norm 1, so its entries "
          "are at most 1 and the factor 4√h log₂h is very loose; expect small ratios. " + _R_NOTE,
    **_COMMON,
)

eq31 = Claim(
    id="sgornn.eq31",
    source="sgornn.md, Appendix A.2, eq. 31 (step of the proof of Theorem 2)",
    statement="‖X‖₁,₁ ≤ √h ‖X‖_F and ‖X‖_F ≤ √h ‖X‖₂ for any h×h X, applied to X = G = ∂L/∂U",
    measure="G = ∂L/∂U by autograd (U = φ(Θ) as the free matrix of eq. 25); entrywise ℓ1, Frobenius, spectral",
    bound="√h ‖G‖_F; and h ‖G‖₂ for the combined step M_φ‖G‖₁,₁ ≤ M_φ h ‖G‖₂",
    assumptions=F_T_ASSUMPTIONS + (A_V,),
    evaluate=_measure_eq31,
    sizes={"quick": _QUICK, "full": _FULL_GRAD},
    explanation="Step eq. 31 is false: Cauchy–Schwarz gives ‖X‖₁,₁ ≤ h‖X‖_F for h×h X (h² entries), not "
                "√h‖X‖_F; a flat rank-one X reaches ratio √h, and the combined ‖X‖₁,₁ ≤ h‖X‖₂ fails for "
                "Hadamard-like X (up to √h). Theorem 2 survives: G = Σ_t a_t h_{t−1}ᵀ is a sum of rank-one terms "
                "and the proof's own sum bounds the nuclear norm, so ‖G‖₁,₁ ≤ h‖G‖_* ≤ h α R_v Σ_t‖h_{t−1}‖ "
                "(checked as sgornn.eq31.corrected) gives eq. 7 unchanged.",
    notes="A proof-step check: its verdict concerns the step, not Theorem 2's conclusion.",
    **_COMMON,
)

eq31_corrected = Claim(
    id="sgornn.eq31.corrected",
    source="sgornn.md, Appendix A.2, eq. 31, corrected by rnnaudit",
    statement="‖G‖₁,₁ ≤ h ‖G‖_* and ‖G‖_* ≤ α R_v Σ_{t=1}^{T} ‖h_{t−1}‖₂ for G = ∂L/∂U (eq. 25)",
    measure="G = ∂L/∂U by autograd; entrywise ℓ1 and nuclear norms; hidden-state norms from the forward pass",
    bound="h ‖G‖_* and α R_v Σ_t ‖h_{t−1}‖₂",
    assumptions=F_T_ASSUMPTIONS + (A_V,),
    evaluate=_measure_eq31_corrected,
    sizes={"quick": _QUICK, "full": _FULL_GRAD},
    explanation="Would mean the repaired step is wrong too: the nuclear norm is subadditive over the rank-one "
                "terms a_t h_{t−1}ᵀ with ‖a_t‖ ≤ α R_v when α + β ≤ 1 and ‖U‖₂ = 1.",
    notes="With ‖h_{t−1}‖ ≤ α(t−1)R_W R_x this gives ‖∂L/∂Θ‖_max ≤ M_φ h C α² T(T−1)/2, within eq. 7. " + _R_NOTE,
    **_COMMON,
)

CLAIMS = (hidden_state, theorem2, corollary1, eq31, eq31_corrected)


# ------------------------------------------------------------------------------ eq. 3 and eq. 4
def _measure_eq3(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    return {"β ≤ 1 − 2α": (case.cell.beta, 1 - 2 * case.cell.alpha)}


def _sample_eq3(gen, h, T, device, dtype) -> GatedCase:
    """A Theorem 1 case whose cell clips β itself (``clip_beta=True``), with logits drawn wide
    (|β̂| up to 20) so the clip is active in most cases."""
    case = sample_gated_case(gen, h, T, device, dtype, gate="1-2alpha")
    case.cell.clip_beta = True
    with torch.no_grad():
        case.cell.beta_logit.fill_(float(torch.empty(()).uniform_(-20, 20, generator=gen)))
    return case


def _project_eq3(case: GatedCase) -> None:
    # only α̂ < logit(1/2) is assumed (the interval (0, 1 − 2α] must be non-empty); β̂ is free
    case.cell.alpha_logit.clamp_(_logit(1e-4), _logit(0.5 - 1e-6))


A_CLIPPED = Assumption("β clipped after the sigmoid (clip_beta = True, Sec. 2)", lambda c: (
    isinstance(c.cell, SGORNN) and c.cell.clip_beta, "clipping on" if getattr(c.cell, "clip_beta", False) else "off"))
A_ALPHA_HALF = Assumption("α < 1/2 (so (0, 1 − 2α] is non-empty)", lambda c: (
    _f(c.cell.alpha) < 0.5, f"α = {_f(c.cell.alpha):.6g}"))

eq3 = Claim(
    id="sgornn.eq3",
    source="sgornn.md, Sec. 2, eq. 3 (and the clipping rule below it)",
    statement="β ≤ 1 − 2α, enforced by clipping β after the sigmoid into (0, 1 − 2α]",
    measure="the cell's effective β (sigmoid then clip) for arbitrary logits β̂",
    bound="1 − 2α",
    assumptions=(A_CLIPPED, A_ALPHA_HALF),
    sample=_sample_eq3,
    evaluate=_measure_eq3,
    free=lambda c: [c.cell.alpha_logit, c.cell.beta_logit],
    project=_project_eq3,
    sizes={"quick": [(2, 1), (8, 1)], "full": [(2, 1), (8, 1), (128, 1)]},
    case_type=GatedCase,
    paper="sgornn",
    explanation="An unclipped β = sigmoid(β̂) exceeds 1 − 2α for large β̂: the constraint holds only if enforced.",
    notes="Ratio 1 is reached whenever the clip is active; this checks the implementation of the rule that "
          "Theorem 1 relies on, and is the predicate the audit applies to trained SGORNN models.",
)


def fastrnn_eq4_limit(U: Tensor, T: int, R_U: float, D: float = 1.0) -> float:
    """Right side of FastRNN's constraint, sgornn.md eq. 4:

        α ≤ min( 1/(4T|D‖U‖₂ − 1|), 1/(4T R_U), 1/(T|‖U‖₂ − 1|) )

    Args:
        U: recurrent matrix (h, h). T: sequence length ≥ 1. R_U: the bound assumed on ‖U‖_F.
        D: the constant of eq. 4 "derived from the parameters and activation"; for ReLU, whose
            derivative is at most 1, D = 1 (the reading used here; the paper does not define D
            further).

    Returns:
        The largest α eq. 4 allows (``inf`` where a denominator is 0).

    Raises:
        ValueError: T < 1, R_U ≤ 0, or ‖U‖_F > R_U (then R_U is not a bound on ‖U‖_F).
    """
    if T < 1 or R_U <= 0:
        raise ValueError(f"T must be >= 1 and R_U > 0, got T={T}, R_U={R_U}")
    U = U.detach()
    if float(torch.linalg.matrix_norm(U)) > R_U * (1 + ASSUMPTION_RTOL):
        raise ValueError(f"R_U = {R_U} is below ‖U‖_F = {float(torch.linalg.matrix_norm(U)):.6g}")
    spectral = float(torch.linalg.matrix_norm(U, ord=2))
    terms = [abs(D * spectral - 1) * 4 * T, 4 * T * R_U, T * abs(spectral - 1)]
    return min(math.inf if t == 0 else 1 / t for t in terms)


def fastrnn_eq4_assumption(T: int, R_U: float | None = None, D: float = 1.0) -> Assumption:
    """Assumption predicate "α satisfies eq. 4" for a case or audit target with ``.cell`` (a
    FastRNN), at sequence length T; R_U defaults to the cell's own ‖U‖_F."""
    def check(c):
        U = c.cell.recurrent_matrix()
        r_u = float(torch.linalg.matrix_norm(U.detach())) if R_U is None else R_U
        limit = fastrnn_eq4_limit(U, T, r_u, D)
        return _f(c.cell.alpha) <= limit, f"α = {_f(c.cell.alpha):.4g}, eq. 4 allows α ≤ {limit:.4g} at T = {T}"
    return Assumption(f"FastRNN eq. 4 at T = {T}", check)


# ------------------------------------------------------------------------------------------ eq. 34
@dataclass
class PerturbationCase:
    """A VPRNN map φ with parameters Θ and a perturbation ΔΘ, both (h/2, k)."""

    phi: VPRNNRotations
    theta: Tensor
    delta: Tensor

    def size(self) -> tuple[int, int]:
        """(h, 1): no sequence is involved."""
        return self.phi.hidden_size, 1

    def state(self) -> dict:
        return {"hidden_size": self.phi.hidden_size, "k": self.phi.k,
                "permutations": self.phi.permutations.detach().clone(), "theta": self.theta.detach().clone(),
                "delta": self.delta.detach().clone()}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "PerturbationCase":
        phi = VPRNNRotations(int(state["hidden_size"]), int(state["k"]), dtype=dtype, device=device)
        phi.permutations.copy_(state["permutations"].to(device))
        return cls(phi, state["theta"].to(device=device, dtype=dtype), state["delta"].to(device=device, dtype=dtype))


def _sample_eq34(gen, h, T, device, dtype) -> PerturbationCase:
    """Random Θ (uniform angles) and ΔΘ of a log-uniform scale in [1e-6, 1]; in a third of the cases
    ΔΘ moves one row only (the same coordinate pair in every sublayer), the aligned direction."""
    phi = VPRNNRotations(h, generator=gen, dtype=dtype, device=device)
    delta = torch.randn(h // 2, phi.k, generator=gen, dtype=torch.float64)
    if torch.rand((), generator=gen) < 1 / 3:
        delta = torch.zeros_like(delta).index_fill_(0, torch.tensor([0]), 1.0)
    delta *= 10 ** float(torch.empty(()).uniform_(-6, 0, generator=gen))
    return PerturbationCase(phi, phi.theta.detach().clone(), delta.to(device=device, dtype=dtype))


def _measure_eq34(case: PerturbationCase) -> dict[str, tuple[Tensor, Tensor]]:
    h = case.phi.hidden_size
    diff = case.phi.matrix(case.theta) - case.phi.matrix(case.theta + case.delta)
    k = vprnn_max_sublayers(h)
    return {"‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ k‖ΔΘ‖₂, k = 2⌈log₂h⌉": (
        torch.linalg.matrix_norm(diff, ord=2), k * torch.linalg.matrix_norm(case.delta, ord=2))}


A_SUBLAYERS = Assumption("number of rotation sublayers ≤ 2⌈log₂ h⌉ (VPRNN's maximum)", lambda c: (
    c.phi.k <= vprnn_max_sublayers(c.phi.hidden_size),
    f"{c.phi.k} sublayers, maximum {vprnn_max_sublayers(c.phi.hidden_size)}"))

eq34 = Claim(
    id="sgornn.eq34",
    source="sgornn.md, Appendix A.3, eq. 34 (quoted from Taylor-Melanson et al., 2021)",
    statement="‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ k‖ΔΘ‖₂ with k = 2⌈log₂ h⌉, for the VPRNN map",
    measure="spectral norm of the difference of the two dense VPRNN matrices",
    bound="2⌈log₂ h⌉ · ‖ΔΘ‖₂ (spectral norm of the h/2 × k perturbation)",
    assumptions=(A_SUBLAYERS,),
    sample=_sample_eq34,
    evaluate=_measure_eq34,
    free=lambda c: [c.theta, c.delta],
    sizes={"quick": [(2, 1), (4, 1), (16, 1), (32, 1)], "full": [(2, 1), (4, 1), (16, 1), (64, 1), (128, 1)]},
    case_type=PerturbationCase,
    paper="sgornn",
    explanation="The telescoping argument gives (number of sublayers)·max_j ‖ΔΘ e_j‖_∞, so eq. 34's k must be at "
                "least the number of sublayers used; with more sublayers than 2⌈log₂h⌉ aligned perturbations add up.",
    notes="Each sublayer moves U by at most max_i |ΔΘ_ij| ≤ ‖ΔΘ‖₂, and aligned perturbations of one coordinate pair "
          "reach only √k·‖ΔΘ‖₂, so expect ratios well below 1.",
)

CLAIMS = CLAIMS + (eq3, eq34)


# ------------------------------------------------------------------------------------ Theorem 1
#: One-sided margin on the ε-average: a violation needs the estimate minus this many standard
#: errors to exceed the bound, so sampling ε alone flags a true claim with probability < 0.2 %.
THEOREM1_STDERR_MARGIN = 3.0


@dataclass
class SampleCase:
    """A sample S = {X^(i)} of m sequences and the class F_T of eq. 5 at fixed α, β.

    Attributes:
        cell: SGORNN with ReLU, no bias, β clipped to (0, 1 − 2α] (its W and Θ are the class's free
            parameters; their values here are only the ascent's starting point).
        X: (m, T, n), every ‖x_t‖₂ ≤ R_x. R_W, R_x, R_v: the class's radii. seed: the probe's RNG.
    """

    cell: SGORNN
    X: Tensor
    R_W: float
    R_x: float
    R_v: float
    seed: int

    def size(self) -> tuple[int, int]:
        """(h, T)."""
        return self.cell.hidden_size, self.X.shape[1]

    def state(self) -> dict:
        cfg = {"input_size": self.cell.input_size, "hidden_size": self.cell.hidden_size, "k": self.cell.phi.k}
        return {"config": cfg, "params": {k: v.detach().clone() for k, v in self.cell.state_dict().items()},
                "X": self.X.detach().clone(), "R_W": self.R_W, "R_x": self.R_x, "R_v": self.R_v, "seed": self.seed}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "SampleCase":
        cfg = state["config"]
        cell = SGORNN(cfg["input_size"], cfg["hidden_size"], k=cfg["k"], bias=False, dtype=dtype, device=device)
        load_params(cell, state["params"], device, dtype)
        return cls(cell, state["X"].to(device=device, dtype=dtype), float(state["R_W"]), float(state["R_x"]),
                   float(state["R_v"]), int(state["seed"]))


def _sample_theorem1(gen, h, T, device, dtype) -> SampleCase:
    """m ∈ {2, 4, 8, 16} sequences with ‖x_t‖₂ = R_x = 1 (the largest the class admits), n = 2;
    α log-uniform on [0.01, 0.45], β on its limit 1 − 2α in a third of the cases."""
    m = [2, 4, 8, 16][int(torch.randint(0, 4, (), generator=gen))]
    X = torch.randn(m, T, 2, generator=gen, dtype=torch.float64)
    X = X / torch.linalg.vector_norm(X, dim=-1, keepdim=True)
    u = float(torch.rand((), generator=gen))
    alpha = math.exp(math.log(0.01) + u * (math.log(0.45) - math.log(0.01)))
    beta = (1 - 2 * alpha) * (1.0 if torch.rand((), generator=gen) < 1 / 3 else max(float(torch.rand((), generator=gen)), 1e-3))
    cell = SGORNN(2, h, bias=False, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.alpha_logit.fill_(_logit(alpha))
        cell.beta_logit.fill_(_logit(min(beta, 1 - 1e-12)))
    seed = int(torch.randint(0, 2**31 - 1, (), generator=gen))
    return SampleCase(cell.to(device=device, dtype=dtype), X.to(device=device, dtype=dtype), 1.0, 1.0, 1.0, seed)


def _measure_theorem1(case: SampleCase) -> dict[str, tuple[Tensor, Tensor]]:
    from rnnaudit.analysis.capacity import cell_rademacher, sgornn_rademacher_bound

    h, T = case.size()
    estimate = cell_rademacher(case.cell, case.X, R_W=case.R_W, R_v=case.R_v, R_x=case.R_x, n_draws=8, n_starts=2,
                               steps=30, generator=torch.Generator().manual_seed(case.seed))
    low = max(estimate.estimate - THEOREM1_STDERR_MARGIN * estimate.stderr, 0.0)
    bound = sgornn_rademacher_bound(_f(case.cell.alpha), T, case.R_W, case.R_x, case.R_v, case.X.shape[0])
    like = case.X.new_tensor
    return {"R̂_m(v∘F_T) ≤ 2αT R_W R_x R_v/√m (eq. 22–23)": (like(low), like(bound))}


A_EQ3 = Assumption("β ≤ 1 − 2α (eq. 3)", lambda c: (
    _f(c.cell.beta) <= 1 - 2 * _f(c.cell.alpha) + ASSUMPTION_RTOL,
    f"α = {_f(c.cell.alpha):.6g}, β = {_f(c.cell.beta):.6g}"))
A_SAMPLE_X = Assumption("‖x_t^(i)‖₂ ≤ R_x for all i, t", lambda c: (
    _within(float(torch.linalg.vector_norm(c.X, dim=-1).max()), c.R_x),
    f"max ‖x‖ = {float(torch.linalg.vector_norm(c.X, dim=-1).max()):.6g}"))

theorem1 = Claim(
    id="sgornn.theorem1",
    source="sgornn.md, Theorem 1, eq. 6 (proof in Appendix A.1, eq. 16–23)",
    statement="R̂_m(v∘F_T) ≤ 2αT R_W R_x R_v/√m for β ≤ 1 − 2α (eq. 22 times R_v, eq. 19), the term behind "
              "the generalization gap 4CαT/√m of eq. 6",
    measure="empirical Rademacher complexity on the case's sample by the capacity probe (projected gradient ascent "
            "over ‖W‖_F ≤ R_W and Θ, exact sup over v, 8 draws of ε), minus 3 standard errors: a lower estimate",
    bound="2αT R_W R_x R_v/√m",
    assumptions=(A_RELU, A_NO_BIAS, A_EQ3, A_SAMPLE_X),
    sample=_sample_theorem1,
    evaluate=_measure_theorem1,
    sizes={"quick": [(2, 1), (4, 5), (8, 10)], "full": [(2, 1), (4, 5), (8, 10), (16, 50), (32, 100)]},
    case_type=SampleCase,
    paper="sgornn",
    explanation="A lower estimate of R̂_m above the bound disproves eq. 22; the proof's steps at risk are eq. 20's "
                "vector-valued contraction through σ and the recurrence eq. 21, which needs β + 2α ≤ 1.",
    notes="The probe finds values below the supremum, so 'holds' means no violation was found, not that the bound "
          "is confirmed. Eq. 6 states the confidence term as 3B_L√(log(2/δ)/m) while the proof (eq. 13, 24) "
          "gets 3B_L√(log(2/δ)/(2m)); the statement is the weaker of the two, so both are valid. The gap term "
          "4CαT/√m exceeds a loss bound B_L = 1 (a vacuous gap) unless m > 16(CαT)².",
)

CLAIMS = CLAIMS + (theorem1,)
