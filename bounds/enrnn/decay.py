"""enrnn.md, Sec. 3, the paragraph after eq. 1 (and the abstract, Sec. 2's second paragraph, the remark after
Theorem 3.1): "Since W^(S) has a spectral radius less than 1, the effect of any input on h^(S)_t will decay
quickly from repeat multiplication by W^(S) with the rate of decay controlled by the magnitude of the
eigenvalues of W^(S)".

Quantitative readings, W^(S) = VΛV⁻¹ with unit-norm eigenvectors:

- the repeated multiplication itself: ‖(W^(S))^τ‖₂ ≤ κ₂(V) ρ(W^(S))^τ (true; equality for normal W^(S));
- the network the paper runs (ReLU, modReLU; Sec. 4–5), uniform reading:
  ‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ κ₂(V) ρ(W^(S))^τ;
- the same, asymptotic reading: an activation pattern the inputs can repeat (U^(S) of full row rank)
  grows at the rate ρ(Π_k G_k W^(S))^{1/P} over a period of P steps, which must not exceed ρ(W^(S)).

Both network readings fail: the ReLU gates G_k = diag(σ'(a_k)) switch units off, and products G_k W^(S)
need not follow the eigenvalues of W^(S) (with ρ(W^(S)) = 0.63 an alternating pattern doubles the
Jacobian every step). ``.corrected`` is the form that holds, with the spectral norm: Theorem 3.1's
bounds for ReLU and modReLU, without its hypothesis ‖W^(S)‖₂ < 1.

The Jacobians here are the S-blocks of Π diag(σ'(a_k)) W with σ' by autograd at the pre-activations (σ acts
pointwise in eq. 3); ``enrnn.proof3.1`` checks that step against the Jacobian of the whole step by jacrev.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.enrnn.cases import (A_UPPER, ENRNNCase, dominant_matrix, draw, enrnn_cases_from_model,
                                         input_weights_and_bias, random_angle, recurrent_matrix, short_term_matrix)
from rnnaudit.cells import ENRNN, enrnn_recurrence, spectral_radius
from rnnaudit.cells.linalg import eig, eigvals

__all__ = ["sample_decay_case", "short_products", "decay", "decay_corrected", "alternating_case",
           "symmetric_case", "A_ACTIVATION"]


def _pointwise_sigma(activation: str, b: Tensor):
    if activation == "modrelu":
        return lambda z: torch.sign(z) * torch.relu(z.abs() + b)
    return lambda z: torch.relu(z + b)


def short_products(case: ENRNNCase) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """(‖∂h^(S)_s/∂h^(S)_t‖₂, ‖∂h^(S)_s/∂x_t‖₂, τ = s − t) over the pairs 1 ≤ t < s ≤ T (each (N,)), the gate
    derivatives σ'(a_k) of the whole state (T, n) and W of eq. 2 (n, n), for σ ∈ {ReLU, modReLU}.

    The Jacobians are the S-blocks of Π_k diag(σ'(a_k)) W over the whole state, so a block feeding h^(L) into
    h^(S) (outside eq. 2) shows; under eq. 2 they are Π_k G_k W^(S)."""
    cell = case.cell
    q = cell.long_size
    U, b = input_weights_and_bias(cell)
    W = recurrent_matrix(case)
    x = case.x
    hs = enrnn_recurrence(x @ U.mT, W, b, x.new_zeros(1, cell.hidden_size), cell.activation)[0]
    h_prev = torch.cat([x.new_zeros(1, cell.hidden_size), hs[:-1]])
    z = (x[0] @ U.mT + h_prev @ W.mT).detach().requires_grad_(True)
    (d,) = torch.autograd.grad(_pointwise_sigma(cell.activation, b.detach())(z).sum(), z)  # σ' pointwise
    n, T = W.shape[0], x.shape[1]
    eye = torch.eye(n, dtype=W.dtype, device=W.device)
    products = W.new_zeros(0, n, n)
    hh, hx, taus = [W.new_zeros(0)], [W.new_zeros(0)], [W.new_zeros(0)]
    for s in range(2, T + 1):
        products = (d[s - 1, :, None] * W) @ torch.cat([products, eye[None]])  # ∂h_s/∂h_t, t = 1..s−1
        taus.append(torch.arange(s - 1, 0, -1, device=W.device, dtype=W.dtype))
        hh.append(torch.linalg.matrix_norm(products[:, q:, q:], ord=2))
        hx.append(torch.linalg.matrix_norm(products[:, q:, :] @ (d[: s - 1, :, None] * U), ord=2))
    return torch.cat(hh), torch.cat(hx), torch.cat(taus), d, W


def _eigen_bound(W_S: Tensor) -> tuple[Tensor, Tensor]:
    """(κ₂(V), ρ(W^(S))) with V the unit-column eigenvector matrix torch returns, detached: their derivatives
    blow up near repeated eigenvalues, and the ascent needs only the measured side."""
    lam, V = eig(W_S.detach())
    kappa = torch.linalg.cond(V).real.to(W_S.dtype) if W_S.shape[0] > 1 else W_S.new_ones(())
    return kappa, lam.abs().max().to(W_S.dtype)


def _measure(case: ENRNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    hh, hx, taus, d, W = short_products(case)
    q = case.cell.long_size
    W_S = W[q:, q:]
    kappa, rho = _eigen_bound(W_S)
    u_norm = torch.linalg.matrix_norm(case.cell.U_S, ord=2)
    T = case.x.shape[1]
    names = ("linear: ‖(W^(S))^τ‖₂ ≤ κ₂(V) ρ(W^(S))^τ",
             "network, uniform: ‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ κ₂(V) ρ(W^(S))^τ",
             "network, uniform: ‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ κ₂(V) ρ(W^(S))^τ ‖U^(S)‖₂",
             "network, asymptotic: ρ(Π_k G_k W^(S))^{1/(T−1)} ≤ ρ(W^(S)) (the pattern repeated)")
    if T == 1:
        zero = W_S.new_zeros(())
        return {n: (zero, kappa * rho) for n in names}
    t_max = T - 1
    powers = [torch.linalg.matrix_power(W_S, k) for k in range(1, t_max + 1)]
    lin = torch.stack([torch.linalg.matrix_norm(P, ord=2) for P in powers])
    k_range = torch.arange(1, t_max + 1, dtype=W_S.dtype, device=W_S.device)
    M = torch.eye(W.shape[0], dtype=W.dtype, device=W.device)
    for k in range(1, T):  # the gates of steps 2..T, the period the trajectory shows
        M = (d[k, :, None] * W) @ M
    M = M[q:, q:]
    # detached: gated products often have repeated (zero) eigenvalues, where eig's derivative is infinite
    growth = eigvals(M.detach()).abs().max().to(W_S.dtype) ** (1.0 / t_max)
    return {
        names[0]: worst_pair(lin, kappa * rho**k_range),
        names[1]: worst_pair(hh, kappa * rho**taus),
        names[2]: worst_pair(hx, kappa * rho**taus * u_norm),
        names[3]: (growth, rho),
    }


def _corrected_measure(case: ENRNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    hh, hx, taus, _, W = short_products(case)
    W_S = W[case.cell.long_size:, case.cell.long_size:]
    w_norm = torch.linalg.matrix_norm(W_S, ord=2)
    u_norm = torch.linalg.matrix_norm(case.cell.U_S, ord=2)
    names = ("‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ", "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂")
    if not hh.numel():
        zero = W_S.new_zeros(())
        return {names[0]: (zero, w_norm), names[1]: (zero, w_norm * u_norm)}
    return {names[0]: worst_pair(hh, w_norm**taus), names[1]: worst_pair(hx, w_norm**taus * u_norm)}


# ----------------------------------------------------------------------------------------------- cases
def _cell(m: int, q: int, p: int, activation: str, eps: float, gen: torch.Generator | None) -> ENRNN:
    return ENRNN(m, q, p, eps=eps, coupling=q > 0, activation=activation, generator=gen, dtype=torch.float64).eval()


def sample_decay_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
                      any_norm: bool = False, activations: tuple[str, ...] = ("relu", "modrelu")) -> ENRNNCase:
    """An ENRNN (n = h, p ≥ 1 short-term units, m = p or p + 1 inputs, so U^(S) has full row rank) with ReLU
    or modReLU, biases in [−0.5, 0.5] (modReLU switches a unit off only for a negative bias) and W^(S) by the
    Sec. 4 rule with ρ(W^(S)) ∈ [0.3, 0.95]: W^(S) = T with ρ(T) < 1, or normalisation latched with ε > 0.
    ``any_norm`` (for the corrected form) also draws ε = 0 (Sec. 5, ρ(W^(S)) = 1). Eigenvectors from normal
    to strongly non-normal; inputs N(0, 1)."""
    p = int(torch.randint(1, h + 1, (), generator=gen))
    q = h - p
    m = p + int(torch.randint(0, 2, (), generator=gen))
    activation = activations[int(torch.randint(0, len(activations), (), generator=gen))]
    target = 0.3 + 0.65 * draw(gen)
    spread = [0.0, 0.3, 1.0][int(torch.randint(0, 3, (), generator=gen))]
    latched = draw(gen) < 0.5
    rho_T = 0.5 + 2.5 * draw(gen) if latched else target
    eps = rho_T / target - rho_T if latched else 0.0
    if any_norm and latched and draw(gen) < 0.5:
        eps = 0.0
    cell = _cell(m, q, p, activation, eps, gen)
    with torch.no_grad():
        cell.T.copy_(dominant_matrix(gen, p, rho_T, angle=random_angle(gen), gap=0.05 + 0.5 * draw(gen),
                                     spread=spread))
        cell.normalizing.fill_(latched)
        cell.b_L.uniform_(-0.5, 0.5, generator=gen)
        cell.b_S.uniform_(-0.5, 0.5, generator=gen)
    x = torch.randn(1, T, m, generator=gen, dtype=torch.float64)
    v = torch.randn(T, h, generator=gen, dtype=torch.float64)
    return ENRNNCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                     v.to(device=device, dtype=dtype))


#: W^(S) of the alternating construction: trace 0, det 0.4, so ρ = √0.4 ≈ 0.632, while the gate pattern
#: diag(1, 0), diag(0, 1), … multiplies the Jacobian by |W₁₂W₂₁| = 4.4 every two steps.
ALTERNATING_W = ((2.0, 2.0), (-2.2, -2.0))


def alternating_case(h: int, T: int, device="cpu", dtype=torch.float64) -> ENRNNCase | None:
    """p = 2, q = h − 2, ReLU, W^(S) = T = ALTERNATING_W (ρ(T) < 1, so not normalised), U^(S) = I, b^(S) = 0, and
    inputs x_k = a_k − W^(S) h^(S)_{k−1} that make the pre-activations a_k = (1, −1), (−1, 1), (1, −1), …:
    the gates alternate and ‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ grows like 2.1^τ although ρ(W^(S))^τ = 0.632^τ.
    None for h < 2."""
    if h < 2:
        return None
    cell = _cell(2, h - 2, 2, "relu", 0.1, torch.Generator().manual_seed(0))
    W_S = torch.tensor(ALTERNATING_W, dtype=torch.float64)
    with torch.no_grad():
        cell.T.copy_(W_S)
        cell.U_S.copy_(torch.eye(2, dtype=torch.float64))
        cell.b_S.zero_()
    x = torch.zeros(1, T, 2, dtype=torch.float64)
    h_S = torch.zeros(2, dtype=torch.float64)
    for k in range(T):
        a = torch.tensor([1.0, -1.0] if k % 2 == 0 else [-1.0, 1.0], dtype=torch.float64)
        x[0, k] = a - W_S @ h_S
        h_S = torch.relu(a)
    return ENRNNCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                     torch.ones(T, h, dtype=dtype, device=device))


def symmetric_case(h: int, T: int, device="cpu", dtype=torch.float64) -> ENRNNCase:
    """q = 0, p = h, ReLU, W^(S) = T symmetric with eigenvalues 0.9, 0.5, −0.3, … (orthonormal eigenvectors,
    κ₂(V) = 1), U^(S) = I, b^(S) = 3 and inputs 0.01: every unit on, so ∂h^(S)_{t+τ}/∂h^(S)_t = (W^(S))^τ and
    ‖(W^(S))^τ‖₂ = ρ^τ = ‖W^(S)‖₂^τ: the suprema (1) of the linear part and of Theorem 3.1's bounds."""
    cell = _cell(h, 0, h, "relu", 0.1, torch.Generator().manual_seed(0))
    Q, _ = torch.linalg.qr(torch.randn(h, h, generator=torch.Generator().manual_seed(1), dtype=torch.float64))
    eigs = torch.tensor([0.9] + [0.5 - 0.8 * k / max(h - 1, 1) for k in range(1, h)], dtype=torch.float64)
    with torch.no_grad():
        cell.T.copy_(Q @ torch.diag(eigs) @ Q.mT)
        cell.U_S.copy_(torch.eye(h, dtype=torch.float64))
        cell.b_S.fill_(3.0)
    x = torch.full((1, T, h), 0.01, dtype=torch.float64)
    return ENRNNCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                     torch.ones(T, h, dtype=dtype, device=device))


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ENRNNCase]:
    out = [symmetric_case(h, T, device, dtype)]
    alt = alternating_case(h, T, device, dtype)
    return out + ([alt] if alt is not None else [])


def _free(case: ENRNNCase) -> list[Tensor]:
    return [] if bool(case.cell.normalizing) else [case.cell.T]


def _project(case: ENRNNCase) -> None:
    """Keep ρ(T) ≤ 0.99 while W^(S) = T (Sec. 4: un-normalised only while ρ(T) ≤ 1)."""
    cell = case.cell
    if bool(cell.normalizing):
        return
    rho = float(spectral_radius(cell.T))
    if rho > 0.99:
        cell.T.mul_(0.99 / rho)


# ----------------------------------------------------------------------------------------- assumptions
A_ACTIVATION = Assumption("σ ∈ {ReLU, modReLU} (Theorem 3.1; Sec. 4–5)", lambda c: (
    c.cell.activation in ("relu", "modrelu"), f"σ = {c.cell.activation}"))


def _rho_below_one(c: ENRNNCase) -> tuple[bool, str]:
    r = float(spectral_radius(short_term_matrix(c)))
    return r < 1, f"ρ(W^(S)) = {r:.12g}"


def _full_row_rank(c: ENRNNCase) -> tuple[bool, str]:
    U = c.cell.U_S.detach()
    s = torch.linalg.svdvals(U)
    ok = U.shape[0] <= U.shape[1] and float(s.min()) > 1e-8 * float(s.max())
    return ok, f"U^(S) {tuple(U.shape)}, σ_min/σ_max = {float(s.min() / s.max()):.3g}"


def _diagonalisable(c: ENRNNCase) -> tuple[bool, str]:
    k = float(_eigen_bound(short_term_matrix(c))[0])
    return k < 1e8, f"κ₂(V) = {k:.3g}"


A_RHO_BELOW_ONE = Assumption("ρ(W^(S)) < 1 (the sentence's premise)", _rho_below_one)
A_FULL_ROW_RANK = Assumption("U^(S) of full row rank (any gate pattern can be driven by the inputs; a restriction, "
                             "not in the paper)", _full_row_rank)
A_DIAGONALISABLE = Assumption("W^(S) diagonalisable, κ₂(V) < 1e8 (so the eigenvalue reading is finite)",
                              _diagonalisable)

_DECAY_CASES = CaseSpace(case_type=ENRNNCase, sample=sample_decay_case, free=_free, project=_project, starts=_starts,
                         sizes={"quick": [(1, 4), (2, 6), (3, 8), (4, 10)],
                                "full": [(1, 4), (2, 6), (3, 8), (4, 10), (8, 16), (16, 30)]},
                         from_model=enrnn_cases_from_model)

decay = Claim(
    id="enrnn.decay",
    source="enrnn.md, Sec. 3, paragraph after eq. 1 (also the abstract, Sec. 2 second paragraph, remark after "
           "Theorem 3.1)",
    statement="Since W^(S) has a spectral radius less than 1, the effect of any input on h^(S)_t will decay quickly "
              "from repeat multiplication by W^(S), with the rate of decay controlled by the magnitude of the "
              "eigenvalues of W^(S)",
    assumptions=(A_ACTIVATION, A_UPPER, A_RHO_BELOW_ONE, A_FULL_ROW_RANK, A_DIAGONALISABLE),
    measure="‖(W^(S))^τ‖₂; ‖Π_k diag(σ'(a_k)) W^(S)‖₂ and the same times diag(σ'(a_t))U^(S) along the case's "
            "trajectory (σ' by autograd at the pre-activations of eq. 3), worst over 1 ≤ t < t + τ ≤ T; ρ of the "
            "product over steps 2..T",
    bound="κ₂(V) ρ(W^(S))^τ (times ‖U^(S)‖₂ for the input) (uniform readings); ρ(W^(S)) per step (asymptotic "
          "reading)",
    evaluate=_measure,
    cases=_DECAY_CASES,
    explanation="True for the repeated multiplication by W^(S) alone (the linear part), false for the network: "
                "∂h^(S)_{t+τ}/∂h^(S)_t = Π G_k W^(S) with 0/1 gates G_k, and gated products are not governed by "
                "the eigenvalues of W^(S). With W^(S) = [[2, 2], [−2.2, −2]] (ρ = 0.632) and inputs that "
                "alternate the two ReLU units, the Jacobian grows by 4.4 every two steps: a 1e-12 change of x_1 "
                "moves h_{1+τ} by 4.4, 19.4, 375 and 2.2e9 times as much at τ = 2, 4, 8, 29, where ρ^τ predicts "
                "0.4 down to 1e-6 — sustained exponential growth, not the transient growth Sec. 2 concedes, while "
                "the linear part ‖W^τ‖₂ does decay (1e-5 at τ = 29). The paper's own Theorem 3.1 avoids this only "
                "through ‖W^(S)‖₂ < 1, which "
                "the eigenvalue normalisation does not give (here ‖W^(S)‖₂ = 4.10). Sec. 2's 'if the spectral "
                "radius of W is less than one, gradients vanish' fails the same way. See enrnn.decay.corrected.",
    notes="The asymptotic part is rigorous only for patterns the inputs can repeat, hence the full-row-rank "
          "restriction (with it any pre-activation, so any gate pattern, is reachable each step). Supremum of the "
          "linear part: 1 (‖W^τ‖₂ ≤ ‖V‖₂‖Λ^τ‖₂‖V⁻¹‖₂ = κρ^τ, equality for symmetric W^(S), where V is orthogonal). "
          "With ε = 0 (Sec. 5) ρ(W^(S)) = 1 and the premise fails (enrnn.normalisation).",
    supremum=Supremum(1.0, "‖(W^(S))^τ‖₂ = ‖VΛ^τV⁻¹‖₂ ≤ κ₂(V)ρ^τ, with equality when W^(S) is symmetric (V orthogonal, "
                           "κ = 1, ‖W^τ‖₂ = ρ^τ): symmetric_case reaches it at every size",
                      at=(2, 6), part="linear: ‖(W^(S))^τ‖₂ ≤ κ₂(V) ρ(W^(S))^τ"),
)

decay_corrected = Claim(
    id="enrnn.decay.corrected",
    source="enrnn.md, Sec. 3, paragraph after eq. 1, corrected by rnnaudit: the rate is ‖W^(S)‖₂ (Theorem 3.1 "
           "without ‖W^(S)‖₂ < 1)",
    statement="For eq. 2–3 with ReLU or modReLU and any W^(S): ‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ and "
              "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂, so the effect of an input decays when ‖W^(S)‖₂ < 1",
    assumptions=(A_ACTIVATION, A_UPPER),
    measure="‖Π_k diag(σ'(a_k)) W^(S)‖₂ and the same times diag(σ'(a_t)) U^(S), worst over pairs",
    bound="‖W^(S)‖₂^τ and ‖W^(S)‖₂^τ ‖U^(S)‖₂",
    evaluate=_corrected_measure,
    cases=replace(_DECAY_CASES, sample=lambda gen, h, T, device="cpu", dtype=torch.float64: sample_decay_case(
        gen, h, T, device, dtype, any_norm=True)),
    explanation="Would mean ‖G_k‖₂ > 1 (|σ'| > 1) or h^(S) fed by h^(L).",
    notes="Theorem 3.1's proof uses only ‖G_k‖₂ ≤ 1 and submultiplicativity (enrnn.proof3.1), so its bounds hold "
          "without ‖W^(S)‖₂ < 1 and for modReLU (σ' ∈ {0, 1} away from 0) as well as ReLU; the hypothesis only "
          "makes them decay. Cases include ε = 0 (Sec. 5, ‖W^(S)‖₂ ≥ ρ(W^(S)) = 1) and the alternating "
          "construction (ratio < 1: its ‖W^(S)‖₂ = 4.10).",
    supremum=Supremum(1.0, "‖Π G_k W‖₂ ≤ Π‖G_k‖₂‖W‖₂ ≤ ‖W‖₂^τ; equality for symmetric W^(S) with every unit on "
                           "(G_k = I, ‖W^τ‖₂ = ‖W‖₂^τ) and U^(S) = I: symmetric_case", at=(2, 6)),
)
