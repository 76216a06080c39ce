"""enrnn.md, Theorem 3.1 (Sec. 3; proof in Sec. 8.1): the short-term block forgets geometrically,
‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ and ‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂ with ReLU."""

from __future__ import annotations

import torch
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.enrnn.cases import (A_UPPER, ENRNNCase, dominant_matrix, draw, enrnn_cases_from_model, finish_case,
                                         input_weights_and_bias, new_cell, random_angle, recurrent_matrix,
                                         short_term_matrix)
from rnnaudit.bounds.enrnn.decay import symmetric_case
from rnnaudit.cells import enrnn_recurrence, spectral_radius

__all__ = ["sample_theorem31_case", "theorem3_1", "pair_norms", "A_RELU", "A_WS_NORM"]


def sample_theorem31_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ENRNNCase:
    """An ENRNN with ReLU and ‖W^(S)‖₂ < 1, n = h, in one of three regimes: W^(S) = T with ‖T‖₂ drawn in
    [0.3, 0.999) (non-normal T of either spread); normalisation latched, T with ρ(T) ∈ [0.5, 2] and ε
    chosen so that ‖T‖₂/(ρ + ε) lands in [0.3, 0.999); and the attaining edge case: symmetric T,
    b^(S) = 3 so every ReLU of h^(S) is on, where ∂h^(S)_{t+τ}/∂h^(S)_t = T^τ and ‖T^τ‖₂ = ‖T‖₂^τ."""
    regime = int(torch.randint(0, 3, (), generator=gen))
    target = 0.3 + 0.699 * draw(gen)
    cell = new_cell(gen, h, activation="relu", eps=0.0)
    p = cell.short_size
    with torch.no_grad():
        T0 = dominant_matrix(gen, p, 0.5 + 1.5 * draw(gen), angle=random_angle(gen), gap=0.1,
                             spread=[0.1, 1.0][int(torch.randint(0, 2, (), generator=gen))])
        if regime == 2:
            # non-negative symmetric T and b^(S) = 3 with inputs scaled by 0.1 keep every unit of h^(S) on
            A = torch.rand(p, p, generator=gen, dtype=torch.float64)
            T0 = A + A.mT
            cell.b_S.fill_(3.0)
        norm = float(torch.linalg.matrix_norm(T0, ord=2))
        if regime == 1:
            rho = float(spectral_radius(T0))
            cell.eps = norm / target - rho  # ‖T/(ρ + ε)‖₂ = target
            cell.normalizing.fill_(True)
            cell.T.copy_(T0)
        else:
            cell.T.copy_(T0 * (target / norm))
    case = finish_case(cell, gen, T, device, dtype)
    if regime == 2:
        case.x.mul_(0.1)
    return case


A_RELU = Assumption("σ = ReLU (Theorem 3.1)", lambda c: (c.cell.activation == "relu", f"σ = {c.cell.activation}"))


def _ws_contractive(c: ENRNNCase) -> tuple[bool, str]:
    s = float(torch.linalg.matrix_norm(short_term_matrix(c), ord=2)) if c.cell.short_size else 0.0
    return s < 1, f"‖W^(S)‖₂ = {s:.12g}"


A_WS_NORM = Assumption("‖W^(S)‖₂ < 1", _ws_contractive)


def _step_jacobians(case: ENRNNCase, W: Tensor) -> tuple[Tensor, Tensor]:
    """∂h_k/∂h_{k−1} (T, n, n) and ∂h_k/∂x_k (T, n, m) along the case's trajectory, k = 1..T."""
    cell = case.cell
    U, b = input_weights_and_bias(cell)
    x = case.x[0]
    hs = enrnn_recurrence(case.x @ U.mT, W, b, x.new_zeros(1, cell.hidden_size), cell.activation)[0]
    h_prev = torch.cat([x.new_zeros(1, cell.hidden_size), hs[:-1]])

    def step(x_t: Tensor, h: Tensor) -> Tensor:
        return enrnn_recurrence((x_t @ U.mT)[None, None], W, b, h[None], cell.activation)[0, 0]

    J_h = vmap(jacrev(step, argnums=1))(x, h_prev)
    J_x = vmap(jacrev(step, argnums=0))(x, h_prev)
    return J_h, J_x


def pair_norms(case: ENRNNCase) -> tuple[Tensor, Tensor, Tensor]:
    """‖∂h^(S)_s/∂h^(S)_t‖₂, ‖∂h^(S)_s/∂x_t‖₂ and τ = s − t over all pairs 1 ≤ t < s ≤ T, each (N,) with
    N = T(T − 1)/2 (empty for T = 1): products of the per-step Jacobians of eq. 3 through the whole state."""
    cell = case.cell
    q, n, T = cell.long_size, cell.hidden_size, case.x.shape[1]
    W = recurrent_matrix(case)
    J_h, J_x = _step_jacobians(case, W)
    eye = torch.eye(n, dtype=W.dtype, device=W.device)
    # products[t − 1] = ∂h_s/∂h_t for t = 1..s−1, advanced one step s at a time (J_h[k − 1] = ∂h_k/∂h_{k−1})
    products = J_h.new_zeros(0, n, n)
    hh, hx, taus = [W.new_zeros(0)], [W.new_zeros(0)], [W.new_zeros(0)]
    for s in range(2, T + 1):
        products = J_h[s - 1] @ torch.cat([products, eye[None]])
        taus.append(torch.arange(s - 1, 0, -1, device=W.device, dtype=W.dtype))  # τ = s − t
        hh.append(torch.linalg.matrix_norm(products[:, q:, q:], ord=2))
        hx.append(torch.linalg.matrix_norm(products[:, q:, :] @ J_x[: s - 1], ord=2))  # J_x[t − 1] = ∂h_t/∂x_t
    return torch.cat(hh), torch.cat(hx), torch.cat(taus)


def _measure(case: ENRNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    cell = case.cell
    q = cell.long_size
    W = recurrent_matrix(case)
    w_norm = torch.linalg.matrix_norm(W[q:, q:], ord=2)
    u_norm = torch.linalg.matrix_norm(cell.U_S, ord=2)
    hh, hx, taus = pair_norms(case)
    if not hh.numel():  # T = 1: no pair with τ ≥ 1
        zero = W.new_zeros(())
        return {"‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ": (zero, w_norm),
                "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂": (zero, w_norm * u_norm)}
    return {
        "‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ": worst_pair(hh, w_norm**taus),
        "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂": worst_pair(hx, w_norm**taus * u_norm),
    }


def _free(case: ENRNNCase) -> list[Tensor]:
    cell = case.cell
    latched = bool(cell.normalizing)
    return [case.x, cell.U_S, cell.b_S] + ([] if latched else [cell.T])


def _project(case: ENRNNCase) -> None:
    """Keep ‖T‖₂ < 1 while W^(S) = T (then ρ(T) < 1 too, so T stays un-normalised)."""
    cell = case.cell
    if bool(cell.normalizing) or cell.short_size == 0:
        return
    norm = float(torch.linalg.matrix_norm(cell.T, ord=2))
    if norm >= 1 - 1e-6:
        cell.T.mul_((1 - 1e-6) / norm)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ENRNNCase]:
    """The attaining construction at every size: q = 0, symmetric W^(S) = T with ‖T‖₂ = 0.9, U^(S) = I, b^(S) = 3
    and inputs 0.01, so every ReLU is on and both bounds hold with equality."""
    return [symmetric_case(h, T, device, dtype)]


_THEOREM3_1_CASES = CaseSpace(case_type=ENRNNCase, sample=sample_theorem31_case, free=_free, project=_project,
                              starts=_starts,
                              sizes={"quick": [(1, 2), (2, 5), (4, 8), (6, 10), (8, 12)],
                                     "full": [(1, 2), (2, 5), (4, 8), (6, 12), (10, 16), (16, 30), (40, 50)]},
                              from_model=enrnn_cases_from_model)

theorem3_1 = Claim(
    id="enrnn.theorem3.1",
    source="enrnn.md, Theorem 3.1 (Sec. 3; proof in Sec. 8.1)",
    statement="For eq. 2–3 with ReLU and ‖W^(S)‖₂ < 1: ‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ and "
              "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂",
    assumptions=(A_RELU, A_UPPER, A_WS_NORM),
    measure="products of per-step Jacobians (torch.func.jacrev of one step of eq. 3, through the whole state), "
            "S-block, spectral norm; worst over all 1 ≤ t < t + τ ≤ T",
    bound="‖W^(S)‖₂^τ and ‖W^(S)‖₂^τ ‖U^(S)‖₂",
    evaluate=_measure,
    cases=_THEOREM3_1_CASES,
    explanation="The proof needs ∂h^(S)_k/∂h^(S)_{k−1} = G_k W^(S) with ‖G_k‖₂ ≤ 1, i.e. h^(S) not fed by h^(L) "
                "(no lower coupling block) and |σ'| ≤ 1.",
    notes="Attained (ratio 1) with a symmetric W^(S) and every ReLU on. The inequalities hold for any W^(S) (the "
          "proof never uses ‖W^(S)‖₂ < 1, only the remark that follows does: enrnn.proof3.1, enrnn.decay.corrected). "
          "With ε = 0, as in Sec. 5, a normalised W^(S) has ρ = 1 (enrnn.normalisation, false), hence ‖W^(S)‖₂ ≥ 1: the hypothesis can then "
          "never hold.",
    supremum=Supremum(1.0, "‖Π G_k W^(S)‖₂ ≤ Π‖G_k‖₂‖W^(S)‖₂ ≤ ‖W^(S)‖₂^τ with ‖G_k‖₂ ≤ 1 (ReLU); equality for "
                           "symmetric W^(S) with every unit on (G_k = I, ‖W^τ‖₂ = ‖W‖₂^τ) and U^(S) = I for the input "
                           "bound: decay.symmetric_case, a structured start at every size", at=(2, 5)),
)
