"""Claims of enrnn.md (Eigenvalue-Normalized RNN, Helfrich & Ye) as executable checks.

Claim ids and where they live in the paper:

- ``enrnn.coupling``              Sec. 3 after eq. 3: W of eq. 2 is block upper triangular, so its eigenvalues
                                  are those of W^(L) and W^(S) and ρ(W) = max(ρ(W^(L)), ρ(W^(S))) ≤ 1
- ``enrnn.theorem3.1``            Theorem 3.1 (proof in Sec. 8.1): ‖∂h^(S)_{t+τ}/∂h^(S)_t‖ ≤ ‖W^(S)‖₂^τ and
                                  ‖∂h^(S)_{t+τ}/∂x_t‖ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂
- ``enrnn.proposition3.2``        Proposition 3.2 (proof in Sec. 8.2) as printed, against autograd and central
                                  differences; false for ε > 0, the case it is stated for
- ``enrnn.proposition3.2.corrected`` the same with the inner factor 1/ρ(T), for ε ≥ 0
- ``enrnn.eq5``                   Sec. 4: eq. 5 gives "eigenvalues ... uniformly distributed on the complex
                                  unit disc" (KS tests; false: |λ| is uniform on [0, 1])
- ``enrnn.eq5.corrected``         eq. 5's own distribution: γ_j ~ U[−1, 1), t_j ~ U[0, π/2), so |λ| ~ U[0, 1]
                                  and arg λ ~ U[0, 2π)

Not here: the transient-amplification remarks of Sec. 2 (pseudospectra), which need a pseudospectrum
probe. Cells are :class:`cells.ENRNN` in eval mode, so forming W^(S) never latches the normalisation
(the latch is set explicitly where a case needs it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from scipy.optimize import linear_sum_assignment
from scipy.stats import kstwo
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.bounds.core import Assumption, Claim, load_params
from rnnaudit.cells import ENRNN, eigenvalue_normalize, enrnn_recurrence, eq5_init, prop32_gradient, spectral_radius

__all__ = ["ENRNNCase", "InitCase", "sample_coupling_case", "sample_theorem31_case", "sample_prop32_case",
           "sample_init_case", "dominant_matrix", "recurrent_matrix", "ks_statistic", "CLAIMS", "coupling",
           "theorem31", "proposition32", "proposition32_corrected", "eq5", "eq5_corrected"]

_U = torch.finfo(torch.float64).eps / 2  # unit roundoff of float64
#: Slack of the assumption ρ(W^(S)) ≤ 1: normalising gives ρ/(ρ + ε), which rounds to 1 + a few ulps
#: for ε = 0.
ASSUMPTION_RTOL = 1e-12
#: Prop. 3.2 vs autograd: both differentiate a simple eigenvalue from one eigendecomposition, so their
#: difference is a few roundings amplified by the eigenvector condition number κ(V) (calibrated below
#: 1e-14·κ·scale on the sampled cases); 1e-11 leaves a 1000× margin. The printed formula misses by
#: about (ε/ρ)·scale, i.e. ≥ 1e-4·scale for the ε ≥ 1e-3 drawn here.
PROP32_RTOL = 1e-11
#: Central differences with δ = 1e-6: truncation δ²/6·|L'''| and rounding u|L|/δ ≈ 1e-10|L| stay
#: below 1e-7 of (scale + |L|) once the dominant eigenvalue is separated by ≥ 1 % (calibrated below
#: 1e-9); 1e-6 leaves a 10× margin.
FD_DELTA = 1e-6
FD_RTOL = 1e-6
#: Dominant-eigenvalue separation the Prop. 3.2 cases keep: "λ simple" made quantitative, so that
#: central differences with δ = FD_DELTA do not straddle a change of dominant eigenvalue.
PROP32_GAP = 1e-2
#: KS significance level per test. The full profile runs ≤ 200 cases × 4 tests, so a correct
#: distribution is rejected somewhere with probability ≤ 800 α = 8e-4.
EQ5_ALPHA = 1e-6
#: Eq. 5 builds T from γ cos t and γ sin t directly: the block structure is exact in floating point,
#: and recomputing γR(t) from the recovered (γ, t) differs by a few ulps.
EQ5_STRUCTURE_TOL = 1e-13


# ======================================================================================= ENRNN cases
@dataclass
class ENRNNCase:
    """One sequence through an ENRNN cell (eval mode) with a linear loss.

    Attributes:
        cell: :class:`cells.ENRNN`, in eval mode.
        x: inputs (1, T, m).
        v: (T, n); L = Σ_t ⟨v_t, h_t⟩.
        W_lower: ``None``, or a (p, q) block coupling h^(L) into h^(S) (W[q:, :q]), which eq. 2
            excludes; used to show the checks can fail.
    """

    cell: ENRNN
    x: Tensor
    v: Tensor
    W_lower: Tensor | None = None

    def size(self) -> tuple[int, int]:
        """(n, T)."""
        return self.cell.hidden_size, self.x.shape[1]

    def state(self) -> dict:
        """Config, parameters and buffers (the latch included) and tensors, detached copies."""
        c = self.cell
        config = {"input_size": c.input_size, "long_size": c.long_size, "short_size": c.short_size, "eps": c.eps,
                  "coupling": c.W_C is not None, "activation": c.activation,
                  "num_negative": int((c.phi.D < 0).sum())}
        return {"config": config, "params": {k: v.detach().clone() for k, v in c.state_dict().items()},
                "x": self.x.detach().clone(), "v": self.v.detach().clone(),
                "W_lower": None if self.W_lower is None else self.W_lower.detach().clone()}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "ENRNNCase":
        """Rebuild a case from :meth:`state`."""
        cfg = state["config"]
        cell = ENRNN(cfg["input_size"], cfg["long_size"], cfg["short_size"], eps=cfg["eps"], coupling=cfg["coupling"],
                     activation=cfg["activation"], num_negative=cfg["num_negative"], dtype=dtype, device=device)
        load_params(cell, state["params"], device, dtype)
        conv = lambda t: None if t is None else t.to(device=device, dtype=dtype)  # noqa: E731
        return cls(cell.eval(), conv(state["x"]), conv(state["v"]), conv(state["W_lower"]))


def recurrent_matrix(case: ENRNNCase) -> Tensor:
    """W of eq. 2 from the cell, plus the excluded lower block when the case has one; (n, n)."""
    W = case.cell.recurrent_matrix()
    if case.W_lower is None:
        return W
    q = case.cell.long_size
    lower = torch.zeros_like(W)
    lower[q:, :q] = case.W_lower
    return W + lower


def _U_b(cell: ENRNN) -> tuple[Tensor, Tensor]:
    return torch.cat([cell.U_L, cell.U_S]), torch.cat([cell.b_L, cell.b_S])


def _loss(case: ENRNNCase, W: Tensor | None = None) -> Tensor:
    """L = Σ_t ⟨v_t, h_t⟩ through eq. 3 (with W from :func:`recurrent_matrix` unless given)."""
    cell = case.cell
    W = recurrent_matrix(case) if W is None else W
    U, b = _U_b(cell)
    hs = enrnn_recurrence(case.x @ U.mT, W, b, case.x.new_zeros(1, cell.hidden_size), cell.activation)
    return (hs[0] * case.v).sum()


def dominant_matrix(gen: torch.Generator, m: int, rho: float, *, angle: float | None, gap: float,
                    spread: float) -> Tensor:
    """T = P D P⁻¹ (m, m), float64, whose eigenvalue(s) of largest modulus ρ are ρe^{±i·angle} (a real
    ±ρ when ``angle`` is None, with a random sign, or when m = 1 or sin(angle) = 0), all others real
    of modulus ≤ (1 − gap)ρ. P = I + spread·N(0, 1): spread 0 is normal, 0.1 nearly normal, 1
    strongly non-normal. Formed with ``torch.linalg.solve``, no explicit inverse.
    """
    D = torch.diag((torch.rand(m, generator=gen, dtype=torch.float64) * 2 - 1) * (1 - gap) * rho)
    if angle is not None and m >= 2 and abs(math.sin(angle)) > 1e-12:
        c, s = math.cos(angle), math.sin(angle)
        D[:2, :2] = rho * torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    elif angle is not None:
        D[0, 0] = rho if math.cos(angle) > 0 else -rho
    else:
        D[0, 0] = rho if float(torch.rand((), generator=gen)) < 0.5 else -rho
    P = torch.eye(m, dtype=torch.float64) + spread * torch.randn(m, m, generator=gen, dtype=torch.float64)
    return torch.linalg.solve(P.mT, (P @ D).mT).mT


def _angle(gen: torch.Generator) -> float | None:
    """None (a real dominant eigenvalue) or an angle in [0.2, π − 0.2] (a complex pair), half each."""
    return None if _draw(gen) < 0.5 else 0.2 + _draw(gen) * (math.pi - 0.4)


def _draw(gen: torch.Generator) -> float:
    return float(torch.rand((), generator=gen))


def _new_cell(gen: torch.Generator, n: int, *, min_short: int = 1, activation: str, eps: float) -> ENRNN:
    p = int(torch.randint(min_short, n + 1, (), generator=gen))
    q = n - p
    m = int(torch.randint(1, 4, (), generator=gen))
    cell = ENRNN(m, q, p, eps=eps, coupling=_draw(gen) < 0.75, activation=activation,
                 num_negative=int(torch.randint(0, q + 1, (), generator=gen)), generator=gen, dtype=torch.float64)
    with torch.no_grad():
        cell.phi.theta.copy_(torch.randn(q, q, generator=gen, dtype=torch.float64) * (0.1 + 2 * _draw(gen)))
        if cell.W_C is not None:
            cell.W_C.mul_([1.0, 10.0, 30.0][int(torch.randint(0, 3, (), generator=gen))])
        cell.b_L.uniform_(-0.3, 0.3, generator=gen)
        cell.b_S.uniform_(-0.3, 0.3, generator=gen)
    return cell.eval()


def _finish(cell: ENRNN, gen: torch.Generator, T: int, device, dtype) -> ENRNNCase:
    x = torch.randn(1, T, cell.input_size, generator=gen, dtype=torch.float64)
    v = torch.randn(T, cell.hidden_size, generator=gen, dtype=torch.float64)
    return ENRNNCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                     v.to(device=device, dtype=dtype))


def sample_coupling_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ENRNNCase:
    """An ENRNN with n = h (q ≥ 0, p ≥ 1), random Θ, Glorot W^(C) scaled by 1, 10 or 30, and T in one
    of four regimes: eq. 5's initialisation (ρ < 1, W^(S) = T); ρ(T) ∈ (1, 3] normalised with ε = 0 or
    ε ∈ (0, 0.5); normalisation latched with ρ(T) < 1; and the edge case ε = 0 with W^(S)'s dominant
    eigenvalue placed on one of W^(L)'s, where W^(C) makes W defective."""
    regime = int(torch.randint(0, 4, (), generator=gen))
    eps = 0.0 if regime == 3 or _draw(gen) < 0.5 else 0.5 * _draw(gen)
    cell = _new_cell(gen, h, activation="modrelu", eps=eps)
    p, q = cell.short_size, cell.long_size
    with torch.no_grad():
        if regime == 1:
            cell.T.copy_(dominant_matrix(gen, p, 1.05 + 2 * _draw(gen), angle=_angle(gen), gap=0.1, spread=0.3))
        elif regime == 2:
            cell.T.copy_(dominant_matrix(gen, p, 0.3 + 0.65 * _draw(gen), angle=_angle(gen), gap=0.1, spread=0.3))
            cell.normalizing.fill_(True)
        elif regime == 3 and q:
            # W^(S) = T/ρ(T) then has the eigenvalue e^{iθ} of W^(L) (a real ±1 when p = 1 cannot match a
            # complex one; then only the moduli coincide)
            lam = torch.linalg.eigvals(cell.phi.matrix())
            theta = float(torch.angle(lam[int(lam.imag.argmax())]))
            cell.T.copy_(dominant_matrix(gen, p, 2.0, angle=theta, gap=0.1, spread=0.3))
    return _finish(cell, gen, T, device, dtype)


# ------------------------------------------------------------------------------------- assumptions
def _has_lower(c: ENRNNCase) -> bool:
    return c.W_lower is not None and bool((c.W_lower != 0).any())


A_UPPER = Assumption("W block upper triangular: no coupling from h^(L) to h^(S) (eq. 2)", lambda c: (
    not _has_lower(c), "lower block present" if _has_lower(c) else "W[q:, :q] = 0"))
def _orthogonal_long(c: ENRNNCase) -> tuple[bool, str]:
    q = c.cell.long_size
    if q == 0:
        return True, "q = 0"
    W_L = c.cell.phi.matrix().detach()
    defect = float(torch.linalg.matrix_norm(W_L.mT @ W_L - torch.eye(q, dtype=W_L.dtype, device=W_L.device), ord=2))
    return defect < 1e-10, f"‖W^(L)ᵀW^(L) − I‖₂ = {defect:.3g}"


A_ORTHOGONAL_L = Assumption("W^(L) orthogonal (scaled Cayley, Sec. 5)", _orthogonal_long)


def _short(c: ENRNNCase) -> Tensor:
    return c.cell.short_term_matrix().detach()


def _ws_rule_holds(c: ENRNNCase) -> tuple[bool, str]:
    """ρ(W^(S)) ≤ 1 under the Sec. 4 rule (T itself while ρ(T) ≤ 1, T/(ρ + ε) after)."""
    r = float(spectral_radius(_short(c)))
    return r <= 1 + ASSUMPTION_RTOL, f"ρ(W^(S)) = {r:.6g}"


A_WS_RULE = Assumption("W^(S) by the Sec. 4 rule, so ρ(W^(S)) ≤ 1", _ws_rule_holds)


# =========================================================================================== coupling
def _eig_tol(W: Tensor) -> Tensor:
    """Eigenvalue accuracy of a backward-stable eig of W: |δλ| ≤ κ‖E‖ for simple eigenvalues and
    ≈ (c‖E‖)^{1/2} for the 2×2 Jordan blocks W^(C) creates when W^(L) and W^(S) share an eigenvalue,
    with ‖E‖ ≈ n u ‖W‖_F; 10 √(n u) max(1, ‖W‖_F) covers both with a 10× margin."""
    n = W.shape[0]
    return 10 * math.sqrt(n * _U) * torch.linalg.matrix_norm(W.detach()).clamp_min(1.0)


def _match_distance(a: Tensor, b: Tensor) -> Tensor:
    """Largest distance in an optimal one-to-one matching of two eigenvalue lists."""
    cost = (a[:, None] - b[None, :]).abs()
    r, c = linear_sum_assignment(cost.cpu().numpy())
    return cost[torch.as_tensor(r, device=cost.device), torch.as_tensor(c, device=cost.device)].max()


def _measure_coupling(case: ENRNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    cell = case.cell
    with torch.no_grad():
        W = recurrent_matrix(case)
        q = cell.long_size
        blocks = [W[:q, :q], W[q:, q:]] if q else [W[q:, q:]]
        lam_blocks = torch.cat([torch.linalg.eigvals(B) for B in blocks])
        lam_W = torch.linalg.eigvals(W)
        rho_W = lam_W.abs().max()
        rho_blocks = lam_blocks.abs().max()
        tol = _eig_tol(W)
    return {
        "ρ(W) = max(ρ(W^(L)), ρ(W^(S)))": ((rho_W - rho_blocks).abs(), tol),
        "eigenvalues of W = those of W^(L) and W^(S)": (_match_distance(lam_W, lam_blocks), tol),
        "ρ(W) ≤ 1": (rho_W, 1 + tol),
    }


# ======================================================================================= Theorem 3.1
def sample_theorem31_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ENRNNCase:
    """An ENRNN with ReLU and ‖W^(S)‖₂ < 1, n = h, in one of three regimes: W^(S) = T with ‖T‖₂ drawn in
    [0.3, 0.999) (non-normal T of either spread); normalisation latched, T with ρ(T) ∈ [0.5, 2] and ε
    chosen so that ‖T‖₂/(ρ + ε) lands in [0.3, 0.999); and the attaining edge case: symmetric T,
    b^(S) = 3 so every ReLU of h^(S) is on, where ∂h^(S)_{t+τ}/∂h^(S)_t = T^τ and ‖T^τ‖₂ = ‖T‖₂^τ."""
    regime = int(torch.randint(0, 3, (), generator=gen))
    target = 0.3 + 0.699 * _draw(gen)
    cell = _new_cell(gen, h, activation="relu", eps=0.0)
    p = cell.short_size
    with torch.no_grad():
        T0 = dominant_matrix(gen, p, 0.5 + 1.5 * _draw(gen), angle=_angle(gen), gap=0.1,
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
    case = _finish(cell, gen, T, device, dtype)
    if regime == 2:
        case.x.mul_(0.1)
    return case


A_RELU = Assumption("σ = ReLU (Theorem 3.1)", lambda c: (c.cell.activation == "relu", f"σ = {c.cell.activation}"))


def _ws_contractive(c: ENRNNCase) -> tuple[bool, str]:
    s = float(torch.linalg.matrix_norm(_short(c), ord=2)) if c.cell.short_size else 0.0
    return s < 1, f"‖W^(S)‖₂ = {s:.12g}"


A_WS_NORM = Assumption("‖W^(S)‖₂ < 1", _ws_contractive)


def _step_jacobians(case: ENRNNCase, W: Tensor) -> tuple[Tensor, Tensor]:
    """∂h_k/∂h_{k−1} (T, n, n) and ∂h_k/∂x_k (T, n, m) along the case's trajectory, k = 1..T."""
    cell = case.cell
    U, b = _U_b(cell)
    x = case.x[0]
    hs = enrnn_recurrence(case.x @ U.mT, W, b, x.new_zeros(1, cell.hidden_size), cell.activation)[0]
    h_prev = torch.cat([x.new_zeros(1, cell.hidden_size), hs[:-1]])

    def step(x_t: Tensor, h: Tensor) -> Tensor:
        return enrnn_recurrence((x_t @ U.mT)[None, None], W, b, h[None], cell.activation)[0, 0]

    J_h = vmap(jacrev(step, argnums=1))(x, h_prev)
    J_x = vmap(jacrev(step, argnums=0))(x, h_prev)
    return J_h, J_x


def _worst_pair(measured: Tensor, bound: Tensor) -> tuple[Tensor, Tensor]:
    with torch.no_grad():
        ratio = measured / bound.clamp_min(torch.finfo(bound.dtype).tiny)
        k = int(ratio.argmax())
    return measured[k], bound[k]


def _measure_theorem31(case: ENRNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    cell = case.cell
    q, n, T = cell.long_size, cell.hidden_size, case.x.shape[1]
    W = recurrent_matrix(case)
    J_h, J_x = _step_jacobians(case, W)
    w_norm = torch.linalg.matrix_norm(W[q:, q:], ord=2)
    u_norm = torch.linalg.matrix_norm(cell.U_S, ord=2)
    eye = torch.eye(n, dtype=W.dtype, device=W.device)
    # products[t − 1] = ∂h_s/∂h_t for t = 1..s−1, advanced one step s at a time (J_h[k − 1] = ∂h_k/∂h_{k−1})
    products = J_h.new_zeros(0, n, n)
    hh, hx, hh_b, hx_b = [], [], [], []
    for s in range(2, T + 1):
        products = J_h[s - 1] @ torch.cat([products, eye[None]])
        taus = torch.arange(s - 1, 0, -1, device=W.device, dtype=W.dtype)  # τ = s − t
        hh.append(torch.linalg.matrix_norm(products[:, q:, q:], ord=2))
        hx.append(torch.linalg.matrix_norm(products[:, q:, :] @ J_x[: s - 1], ord=2))  # J_x[t − 1] = ∂h_t/∂x_t
        hh_b.append(w_norm**taus)
        hx_b.append(w_norm**taus * u_norm)
    if not hh:  # T = 1: no pair with τ ≥ 1
        zero = W.new_zeros(())
        return {"‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ": (zero, w_norm),
                "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂": (zero, w_norm * u_norm)}
    return {
        "‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ": _worst_pair(torch.cat(hh), torch.cat(hh_b)),
        "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂": _worst_pair(torch.cat(hx), torch.cat(hx_b)),
    }


def _free_theorem31(case: ENRNNCase) -> list[Tensor]:
    cell = case.cell
    latched = bool(cell.normalizing)
    return [case.x, cell.U_S, cell.b_S] + ([] if latched else [cell.T])


def _project_theorem31(case: ENRNNCase) -> None:
    """Keep ‖T‖₂ < 1 while W^(S) = T (then ρ(T) < 1 too, so T stays un-normalised)."""
    cell = case.cell
    if bool(cell.normalizing) or cell.short_size == 0:
        return
    norm = float(torch.linalg.matrix_norm(cell.T, ord=2))
    if norm >= 1 - 1e-6:
        cell.T.mul_((1 - 1e-6) / norm)


# ==================================================================================== Proposition 3.2
def sample_prop32_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
                       eps_zero_fraction: float = 0.0) -> ENRNNCase:
    """A latched ENRNN (W^(S) = T/(ρ(T) + ε)) with n = h, σ ∈ {tanh, modReLU, ReLU}, and T whose dominant
    eigenvalue (real, or a complex pair) has modulus ρ ∈ [0.5, 3] and is separated by a relative gap in
    [0.05, 0.6]; P of spread 0.1, 0.3 or 1 (eigenvector condition numbers from ≈ 1 to ≈ 10³).
    ε = 0 with probability ``eps_zero_fraction``, else log-uniform in [1e-3, 1]."""
    eps = 0.0 if _draw(gen) < eps_zero_fraction else 10 ** (-3 + 3 * _draw(gen))
    activation = ["tanh", "modrelu", "relu"][int(torch.randint(0, 3, (), generator=gen))]
    cell = _new_cell(gen, h, activation=activation, eps=eps)
    p = cell.short_size
    with torch.no_grad():
        cell.T.copy_(dominant_matrix(gen, p, 0.5 + 2.5 * _draw(gen), angle=_angle(gen), gap=0.05 + 0.55 * _draw(gen),
                                     spread=[0.1, 0.3, 1.0][int(torch.randint(0, 3, (), generator=gen))]))
        cell.normalizing.fill_(True)
    return _finish(cell, gen, T, device, dtype)


def _normalising(c: ENRNNCase) -> tuple[bool, str]:
    rho = float(spectral_radius(c.cell.T.detach()))
    on = bool(c.cell.normalizing) or rho > 1
    return on, f"latched = {bool(c.cell.normalizing)}, ρ(T) = {rho:.6g}"


def _separated(c: ENRNNCase) -> tuple[bool, str]:
    lam = torch.linalg.eigvals(c.cell.T.detach())
    mod = lam.abs()
    k = int(mod.argmax())
    rho = float(mod[k])
    if rho == 0:
        return False, "ρ(T) = 0"
    others = torch.ones_like(mod, dtype=torch.bool)
    others[k] = False
    if lam[k].imag != 0:  # λ̄ has the same modulus and is allowed (the remark after the proof)
        conj = int((lam - lam[k].conj()).abs().argmin())
        others[conj] = False
    second = float(mod[others].max()) if bool(others.any()) else 0.0
    return second <= (1 - PROP32_GAP) * rho, f"second modulus / ρ(T) = {second / rho:.6g}"


A_NORMALISING = Assumption("W^(S) = T/(ρ(T) + ε) (normalisation active, Sec. 3.1 and 4)", _normalising)
A_SIMPLE = Assumption(f"λ simple with |λ| = ρ(T), the only such eigenvalue besides λ̄ (separated by "
                      f"{PROP32_GAP:g} in modulus)", _separated)
A_EPS_POSITIVE = Assumption("ε > 0 (Proposition 3.2)", lambda c: (c.cell.eps > 0, f"ε = {c.cell.eps:g}"))
A_EPS_NONNEG = Assumption("ε ≥ 0", lambda c: (c.cell.eps >= 0, f"ε = {c.cell.eps:g}"))


def _dL_dWS(case: ENRNNCase) -> tuple[Tensor, Tensor]:
    """∂L/∂W^(S) with W^(S) an independent leaf in the same recurrence, and L."""
    with torch.no_grad():
        W = recurrent_matrix(case)
    q = case.cell.long_size
    W_S = W[q:, q:].clone().requires_grad_(True)
    W_full = torch.cat([W[:, :q], torch.cat([W[:q, q:], W_S])], dim=1)
    loss = _loss(case, W_full)
    (g,) = torch.autograd.grad(loss, W_S)
    return g, loss.detach()


def _central_differences(case: ENRNNCase) -> Tensor:
    """∂L/∂T by central differences through the cell (its own normalisation rule), step FD_DELTA."""
    T = case.cell.T
    fd = torch.zeros_like(T, requires_grad=False)
    with torch.no_grad():
        for i in range(T.shape[0]):
            for j in range(T.shape[1]):
                t0 = T[i, j].item()
                T[i, j] = t0 + FD_DELTA
                up = _loss(case)
                T[i, j] = t0 - FD_DELTA
                down = _loss(case)
                T[i, j] = t0
                fd[i, j] = (up - down) / (2 * FD_DELTA)
    return fd


def _measure_prop32(case: ENRNNCase, *, as_stated: bool) -> dict[str, tuple[Tensor, Tensor]]:
    cell = case.cell
    (auto,) = torch.autograd.grad(_loss(case), cell.T)
    dL_dW, loss = _dL_dWS(case)
    T = cell.T.detach()
    formula = prop32_gradient(T, dL_dW, cell.eps, as_stated=as_stated)
    fd = _central_differences(case)
    with torch.no_grad():
        V = torch.linalg.eig(T)[1]
        kappa = torch.linalg.cond(V).real if T.shape[0] > 1 else T.new_ones(())
        rho_t = spectral_radius(T) + cell.eps
        scale = torch.maximum(auto.abs().max(), dL_dW.abs().max() / rho_t)
    name = "printed (inner 1/ρ̃)" if as_stated else "corrected (inner 1/ρ)"
    return {
        f"Prop. 3.2 {name} = autograd": ((formula - auto).abs().max(), PROP32_RTOL * kappa * scale),
        f"Prop. 3.2 {name} = central differences": ((formula - fd).abs().max(), FD_RTOL * (scale + loss.abs())),
    }


# ============================================================================================= eq. 5
@dataclass
class InitCase:
    """An initial T of the short-term block with the eigenvalue chosen from each conjugate pair.

    Attributes:
        T: (m, m). pick: (⌊m/2⌋,) of ±1: use the eigenvalue of block j with sign(Im λ) = pick_j (the
            two of a pair are not independent; one per block, chosen at random, is a sample from the
            spectrum). source: how T was drawn (``"eq5_init"`` = :func:`cells.eq5_init`).
    """

    T: Tensor
    pick: Tensor
    source: str = "eq5_init"

    def size(self) -> tuple[int, int]:
        """(m, 1)."""
        return self.T.shape[0], 1

    def state(self) -> dict:
        """Tensors and the source label."""
        return {"T": self.T.detach().clone(), "pick": self.pick.detach().clone(), "source": self.source}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "InitCase":
        """Rebuild a case from :meth:`state`."""
        return cls(state["T"].to(device=device, dtype=dtype), state["pick"].to(device=device, dtype=dtype),
                   str(state["source"]))


def sample_init_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> InitCase:
    """T = eq5_init(m) with m = h (even: eq. 5 defines ⌊n/2⌋ 2×2 blocks and nothing else), and a
    random choice of one eigenvalue per conjugate pair."""
    mat = eq5_init(h, generator=gen, dtype=torch.float64)
    pick = torch.where(torch.rand(h // 2, generator=gen) < 0.5, 1.0, -1.0).to(torch.float64)
    return InitCase(mat.to(device=device, dtype=dtype), pick.to(device=device, dtype=dtype))


A_EQ5 = Assumption("T drawn by eq. 5 (cells.enrnn.eq5_init: γ_j ~ U[−1, 1), t_j ~ U[0, π/2))",
                   lambda c: (c.source == "eq5_init", f"source = {c.source}"))


def ks_statistic(samples: Tensor, cdf) -> Tensor:
    """Kolmogorov–Smirnov statistic sup |F_n − F| of ``samples`` (1-D) against the CDF ``cdf``, 0-d."""
    u = cdf(samples.sort().values).clamp(0, 1)
    n = u.numel()
    i = torch.arange(1, n + 1, dtype=u.dtype, device=u.device)
    return torch.maximum((i / n - u).max(), (u - (i - 1) / n).max())


def _blocks(case: InitCase) -> tuple[Tensor, Tensor]:
    """The 2×2 diagonal blocks (k, 2, 2) and the largest entry outside them."""
    T = case.T
    k = T.shape[0] // 2
    idx = torch.arange(k, device=T.device) * 2
    B = torch.stack([T[idx, idx], T[idx, idx + 1], T[idx + 1, idx], T[idx + 1, idx + 1]], dim=-1).reshape(k, 2, 2)
    mask = torch.ones_like(T, dtype=torch.bool)
    mask[idx, idx] = mask[idx, idx + 1] = mask[idx + 1, idx] = mask[idx + 1, idx + 1] = False
    if T.shape[0] % 2:
        mask[-1, -1] = False  # eq5_init's extra 1×1 block for odd m
    off = T[mask].abs().max() if bool(mask.any()) else T.new_zeros(())
    return B, off


def _eigen_sample(case: InitCase) -> tuple[Tensor, Tensor]:
    """|λ| and arg λ ∈ [0, 2π) of one eigenvalue per block (the one with sign(Im λ) = pick)."""
    lam = torch.linalg.eigvals(_blocks(case)[0])  # (k, 2)
    first = (case.pick * lam[:, 0].imag >= 0)
    chosen = torch.where(first, lam[:, 0], lam[:, 1])
    return chosen.abs(), torch.remainder(torch.angle(chosen), 2 * math.pi)


def _crit(n: int, like: Tensor) -> Tensor:
    return like.new_tensor(float(kstwo.ppf(1 - EQ5_ALPHA, n)))


def _measure_eq5(case: InitCase) -> dict[str, tuple[Tensor, Tensor]]:
    r, phi = _eigen_sample(case)
    crit = _crit(r.numel(), r)
    return {
        "|λ| as on the uniform disc, P(|λ| ≤ r) = r² (KS statistic ≤ critical value at α)": (
            ks_statistic(r, lambda s: s**2), crit),
        "arg λ ~ U[0, 2π) (KS statistic ≤ critical value at α)": (ks_statistic(phi, lambda s: s / (2 * math.pi)), crit),
    }


def _measure_eq5_corrected(case: InitCase) -> dict[str, tuple[Tensor, Tensor]]:
    B, off = _blocks(case)
    c, s = B[:, 0, 0], B[:, 1, 0]
    gamma = torch.sign(c) * torch.hypot(c, s)  # cos t_j > 0 on [0, π/2) fixes the sign of γ_j
    t = torch.atan2(s / gamma, c / gamma)
    rebuilt = gamma[:, None, None] * torch.stack([torch.stack([torch.cos(t), -torch.sin(t)], -1),
                                                  torch.stack([torch.sin(t), torch.cos(t)], -1)], -2)
    structure = torch.maximum((B - rebuilt).abs().max(), off)
    r, phi = _eigen_sample(case)
    crit = _crit(r.numel(), r)
    ks = "(KS statistic ≤ critical value at α)"
    return {
        "T = diag(γ_j R(t_j)) (eq. 5)": (structure, r.new_tensor(EQ5_STRUCTURE_TOL)),
        f"γ_j ~ U[−1, 1) {ks}": (ks_statistic(gamma, lambda v: (v + 1) / 2), crit),
        f"t_j ~ U[0, π/2) {ks}": (ks_statistic(t, lambda v: v / (math.pi / 2)), crit),
        f"|λ| ~ U[0, 1] {ks}": (ks_statistic(r, lambda v: v), crit),
        f"arg λ ~ U[0, 2π) {ks}": (ks_statistic(phi, lambda v: v / (2 * math.pi)), crit),
    }


# ============================================================================================= claims
_SMALL_N = {"quick": [(2, 1), (3, 1), (6, 1), (10, 1), (16, 1)],
            "full": [(2, 1), (3, 1), (6, 1), (10, 1), (16, 1), (64, 1), (160, 1)]}
_THM_SIZES = {"quick": [(1, 2), (2, 5), (4, 8), (6, 10), (8, 12)],
              "full": [(1, 2), (2, 5), (4, 8), (6, 12), (10, 16), (16, 30), (40, 50)]}
_PROP_SIZES = {"quick": [(2, 1), (3, 4), (6, 8), (10, 10)],
               "full": [(2, 1), (3, 4), (6, 8), (10, 10), (16, 20), (32, 20)]}
_EQ5_SIZES = {"quick": [(64, 1), (256, 1), (1024, 1)], "full": [(64, 1), (256, 1), (1024, 1), (2048, 1)]}

_EPS0_NOTE = ("Sec. 3.1 and Prop. 3.2 require ε > 0, but Sec. 5 trains with 'ε = 0 in Proposition 3.2'; with "
              "ε = 0 the normalised W^(S) has ρ(W^(S)) = 1 exactly, not < 1 as Sec. 3.1 says.")

coupling = Claim(
    id="enrnn.coupling",
    paper="enrnn",
    source="enrnn.md, Sec. 3, remark after eq. 3 (W of eq. 2)",
    statement="Since W is upper triangular, its eigenvalues consist of those of W^(L) and W^(S), so W has "
              "spectral radius at most one and the coupling W^(C) does not alter the spectral properties",
    measure="eigenvalues of the dense W (torch.linalg.eigvals) against those of its diagonal blocks: |ρ(W) − "
            "max block ρ|, optimal-matching distance of the two spectra, and ρ(W)",
    bound="0 up to the eigenvalue accuracy 10 √(n u) max(1, ‖W‖_F) (defective double eigenvalues included); 1",
    assumptions=(A_UPPER, A_ORTHOGONAL_L, A_WS_RULE),
    sample=sample_coupling_case,
    evaluate=_measure_coupling,
    sizes=_SMALL_N,
    case_type=ENRNNCase,
    explanation="det(W − λI) = det(W^(L) − λI) det(W^(S) − λI) needs the block below the diagonal to be zero; "
                "a coupling from h^(L) to h^(S) (which the paper rightly excludes) moves the eigenvalues.",
    notes="Cases include W^(C) 30× Glorot, q = 0, the latched rule with ρ(T) < 1, and W^(S) sharing its dominant "
          "eigenvalue with W^(L) (ε = 0), where W is defective. " + _EPS0_NOTE,
)

theorem31 = Claim(
    id="enrnn.theorem3.1",
    paper="enrnn",
    source="enrnn.md, Theorem 3.1 (Sec. 3; proof in Sec. 8.1)",
    statement="For eq. 2–3 with ReLU and ‖W^(S)‖₂ < 1: ‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ and "
              "‖∂h^(S)_{t+τ}/∂x_t‖₂ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂",
    measure="products of per-step Jacobians (torch.func.jacrev of one step of eq. 3, through the whole state), "
            "S-block, spectral norm; worst over all 1 ≤ t < t + τ ≤ T",
    bound="‖W^(S)‖₂^τ and ‖W^(S)‖₂^τ ‖U^(S)‖₂",
    assumptions=(A_RELU, A_UPPER, A_WS_NORM),
    sample=sample_theorem31_case,
    evaluate=_measure_theorem31,
    free=_free_theorem31,
    project=_project_theorem31,
    sizes=_THM_SIZES,
    case_type=ENRNNCase,
    explanation="The proof needs ∂h^(S)_k/∂h^(S)_{k−1} = G_k W^(S) with ‖G_k‖₂ ≤ 1, i.e. h^(S) not fed by h^(L) "
                "(no lower coupling block) and |σ'| ≤ 1.",
    notes="Attained (ratio 1) with a symmetric W^(S) and every ReLU on. The inequalities hold for any W^(S) (the "
          "proof never uses ‖W^(S)‖₂ < 1, only the remark that follows does). With ε = 0, as in Sec. 5, a "
          "normalised W^(S) has ρ = 1, hence ‖W^(S)‖₂ ≥ 1: the hypothesis can then never hold.",
)

_PROP32_EXPLANATION = (
    "The printed formula has the inner factor 1/ρ̃(T) = 1/(ρ + ε); the chain rule (the proof's own eq. 7, "
    "∂(1/ρ̃)/∂T = −C/(ρ ρ̃²)) gives 1/ρ(T). The proof's last line then drops ε altogether (1/ρ outside, 1/ρ³ "
    "inside), so neither the statement nor the proof's conclusion is the derivative for ε > 0; the error is "
    "≈ (ε/ρ)·|1ᵀ(∂L/∂W ⊙ W)1|·|C|/ρ̃². The two readings coincide for ε = 0, the value Sec. 5 trains with, which "
    "the proposition's hypothesis ε > 0 excludes. See enrnn.proposition3.2.corrected.")

proposition32 = Claim(
    id="enrnn.proposition3.2",
    paper="enrnn",
    source="enrnn.md, Proposition 3.2 (Sec. 3.1; proof in Sec. 8.2)",
    statement="For W = T/(ρ(T) + ε), ε > 0, λ = α + iβ simple with |λ| = ρ(T): ∂L/∂T = (1/ρ̃)[∂L/∂W − (1/ρ̃) "
              "1ᵀ(∂L/∂W ⊙ W)1 C], C = α Re S + β Im S, S = v̄uᵀ/(v*u), ρ̃ = ρ(T) + ε",
    measure="max |formula − ∂L/∂T| with ∂L/∂T by autograd through torch.linalg.eigvals and by central "
            "differences (δ = 1e-6) of L through the cell; L = Σ_t ⟨v_t, h_t⟩ through eq. 3",
    bound="PROP32_RTOL·κ(V)·scale (autograd) and FD_RTOL·(scale + |L|) (central differences); scale = "
          "max(‖∂L/∂T‖_max, ‖∂L/∂W‖_max/ρ̃)",
    assumptions=(A_NORMALISING, A_SIMPLE, A_EPS_POSITIVE),
    sample=sample_prop32_case,
    evaluate=lambda c: _measure_prop32(c, as_stated=True),
    sizes=_PROP_SIZES,
    case_type=ENRNNCase,
    explanation=_PROP32_EXPLANATION,
    notes="∂L/∂W is taken with W^(S) as an independent leaf in the same recurrence (coupling and W^(L) included). "
          "The formula is cells.enrnn.prop32_gradient(as_stated=True). With ε = 0 (outside this claim's "
          "hypothesis) the printed formula is exact; the tests show it. " + _EPS0_NOTE,
)

proposition32_corrected = Claim(
    id="enrnn.proposition3.2.corrected",
    paper="enrnn",
    source="enrnn.md, Proposition 3.2, corrected by rnnaudit (cells.enrnn.prop32_gradient)",
    statement="For W = T/(ρ(T) + ε), ε ≥ 0, λ simple with |λ| = ρ(T): ∂L/∂T = (1/ρ̃)[∂L/∂W − (1/ρ) "
              "1ᵀ(∂L/∂W ⊙ W)1 C]",
    measure="max |formula − ∂L/∂T| against autograd through torch.linalg.eigvals and central differences",
    bound="PROP32_RTOL·κ(V)·scale and FD_RTOL·(scale + |L|)",
    assumptions=(A_NORMALISING, A_SIMPLE, A_EPS_NONNEG),
    sample=lambda gen, h, T, device, dtype: sample_prop32_case(gen, h, T, device, dtype, eps_zero_fraction=0.5),
    evaluate=lambda c: _measure_prop32(c, as_stated=False),
    sizes=_PROP_SIZES,
    case_type=ENRNNCase,
    explanation="Would mean ∂ρ/∂T ≠ C/ρ, i.e. a non-simple or non-separated dominant eigenvalue, or a W^(S) that "
                "is not T/(ρ + ε) (before normalisation starts, ∂L/∂T = ∂L/∂W).",
    notes="Half the cases use ε = 0 (Sec. 5), half ε ∈ [1e-3, 1] (Sec. 3.1). The remark after the proof (λ or λ̄ "
          "give the same C) holds: C is real and invariant under conjugating u, v.",
)

eq5 = Claim(
    id="enrnn.eq5",
    paper="enrnn",
    source="enrnn.md, Sec. 4, eq. 5 and the sentences around it",
    statement="T = diag(B_1, …, B_⌊n/2⌋), B_j = γ_j R(t_j), t_j ~ U[0, π/2), γ_j ~ U[−1, 1), 'results in "
              "eigenvalues of the form γ_j e^{±it_j} which are uniformly distributed on the complex unit disc'",
    measure="one eigenvalue per 2×2 block (a random one of each conjugate pair): KS statistic of |λ| against "
            "P(|λ| ≤ r) = r² and of arg λ against U[0, 2π)",
    bound=f"the KS critical value at significance α = {EQ5_ALPHA:g} (statistic > critical value ⟺ p-value < α)",
    assumptions=(A_EQ5,),
    sample=sample_init_case,
    evaluate=_measure_eq5,
    sizes=_EQ5_SIZES,
    case_type=InitCase,
    explanation="|γ_j e^{±it_j}| = |γ_j| is uniform on [0, 1], so P(|λ| ≤ r) = r; uniform on the disc needs "
                "P(|λ| ≤ r) = r² (area πr²/π). The KS distance between the two is max_r (r − r²) = 1/4, detected "
                "once m/2 ≳ 250 blocks at α = 1e-6. The angle is uniform, as claimed. Uniform on the disc would "
                "need γ_j = ±√U. See enrnn.eq5.corrected.",
    notes="Counts one eigenvalue per conjugate pair, since the two are not independent. Small m has too little "
          "power to reject, so the verdict comes from m ≥ 256.",
)

eq5_corrected = Claim(
    id="enrnn.eq5.corrected",
    paper="enrnn",
    source="enrnn.md, Sec. 4, eq. 5, its own distribution (rnnaudit)",
    statement="eq. 5 gives T = diag(γ_j R(t_j)) with γ_j ~ U[−1, 1), t_j ~ U[0, π/2), hence eigenvalues "
              "γ_j e^{±it_j} with |λ| ~ U[0, 1] and arg λ ~ U[0, 2π)",
    measure="block structure max |T − diag(γ_j R(t_j))| with (γ_j, t_j) recovered from T; KS statistics of γ, t, "
            "|λ| and arg λ against those laws",
    bound=f"{EQ5_STRUCTURE_TOL:g} (structure); the KS critical value at α = {EQ5_ALPHA:g} (distributions)",
    assumptions=(A_EQ5,),
    sample=sample_init_case,
    evaluate=_measure_eq5_corrected,
    sizes=_EQ5_SIZES,
    case_type=InitCase,
    explanation="Would mean cells.enrnn.eq5_init does not implement eq. 5.",
    notes="The spectral radius of the initial T is max_j |γ_j| < 1, so training starts un-normalised (Sec. 4).",
)

CLAIMS = (coupling, theorem31, proposition32, proposition32_corrected, eq5, eq5_corrected)


# ======================================================================================== transient
@dataclass
class TransientCase:
    """A short-term matrix W^(S) (p, p): a non-normal T, eigenvalue-normalised (Sec. 3) so ρ < 1."""

    A: Tensor

    def size(self) -> tuple[int, int]:
        """(p, 1): no sequence is involved."""
        return self.A.shape[0], 1

    def state(self) -> dict:
        return {"A": self.A.detach().clone()}

    @classmethod
    def from_state(cls, state: dict, device="cpu", dtype=torch.float64) -> "TransientCase":
        return cls(state["A"].to(device=device, dtype=dtype))


#: Powers computed for sup_k ‖A^k‖₂; the sampled matrices have ρ ≤ 0.97, whose transients have
#: peaked and decayed well before k = 400 (the test checks the curve ends below its peak).
TRANSIENT_HORIZON = 400
#: log₁₀ ε of the pseudospectral radii used in the lower bound.
TRANSIENT_EPS = tuple(10.0 ** e for e in (-3, -2.5, -2, -1.5, -1, -0.5))
_TRANSIENT_GRID = 81


def sample_transient_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> TransientCase:
    """W^(S) = T/(ρ(T) + ε) with T = Q(D + sN)Qᵀ: D block-diagonal with eigenvalues in the unit disc,
    N strictly upper triangular Gaussian with s ∈ {0, 1, 4} (normal to strongly non-normal), Q a
    random orthogonal matrix, ε ∈ (0.03, 1) so that ρ(W^(S)) = ρ/(ρ + ε) ≤ 0.97."""
    p = h
    D = torch.diag(torch.rand(p, generator=gen, dtype=torch.float64) * 2 - 1)
    s = [0.0, 1.0, 4.0][int(torch.randint(0, 3, (), generator=gen))]
    N = torch.triu(torch.randn(p, p, generator=gen, dtype=torch.float64), diagonal=1) * s / math.sqrt(p)
    Q, _ = torch.linalg.qr(torch.randn(p, p, generator=gen, dtype=torch.float64))
    raw = Q @ (D + N) @ Q.mT
    eps = 0.03 + 0.97 * _draw(gen)
    A = eigenvalue_normalize(raw, eps)
    return TransientCase(A.to(device=device, dtype=dtype))


def pseudospectral_lower_bound(A: Tensor) -> Tensor:
    """max over ε of (ρ_ε(A) − 1)/ε, with ρ_ε the ε-pseudospectral radius, 0-d.

    ρ_ε is read off σ_min(zI − A) (:func:`analysis.sigma_min`) on a square grid and, finely, on the
    rays through the eigenvalues of largest modulus, where a grid is too coarse to see small ε. Any
    sampling can only miss points of Λ_ε, so this is a lower estimate of the true maximum, which
    keeps the check honest.
    """
    from rnnaudit.analysis import pseudospectrum, sigma_min

    A64 = A.detach().cpu().double()
    lim = float(torch.linalg.matrix_norm(A64, ord=2)) + max(TRANSIENT_EPS)
    axis = torch.linspace(-lim, lim, _TRANSIENT_GRID, dtype=torch.float64)
    grid = pseudospectrum(A64, axis, axis)
    z = torch.complex(grid.x[None, :].expand_as(grid.sigma), grid.y[:, None].expand_as(grid.sigma)).flatten()
    sig = grid.sigma.flatten()
    lam = torch.linalg.eigvals(A64)
    for l in lam[lam.abs().argsort(descending=True)[:4]]:
        direction = l / l.abs() if l.abs() > 0 else torch.tensor(1 + 0j, dtype=torch.complex128)
        # offsets clustered around each ε, where the boundary of Λ_ε crosses the ray for near-normal A
        offsets = torch.cat([e * torch.linspace(0.5, 3.0, 101, dtype=torch.float64) for e in TRANSIENT_EPS])
        r = l.abs() + offsets
        ray = r * direction
        z, sig = torch.cat([z, ray]), torch.cat([sig, sigma_min(A64, ray.numpy())])
    best = torch.tensor(-math.inf, dtype=torch.float64)
    for eps in TRANSIENT_EPS:
        inside = sig < eps
        if inside.any():
            best = torch.maximum(best, (z[inside].abs().max() - 1) / eps)
    return best.to(A.device)


def _measure_transient(case: TransientCase) -> dict[str, tuple[Tensor, Tensor]]:
    from rnnaudit.analysis import transient_growth

    growth = transient_growth(case.A, TRANSIENT_HORIZON)
    peak = torch.as_tensor(growth.peak, dtype=case.A.dtype, device=case.A.device)
    return {"(ρ_ε(A) − 1)/ε ≤ sup_k ‖A^k‖₂": (pseudospectral_lower_bound(case.A).clamp_min(0), peak)}


A_RHO_BELOW_ONE = Assumption("ρ(W^(S)) < 1 (after eigenvalue normalization with ε > 0)", lambda c: (
    float(spectral_radius(c.A.detach())) < 1, f"ρ = {float(spectral_radius(c.A.detach())):.6g}"))

transient = Claim(
    id="enrnn.transient",
    paper="enrnn",
    source="enrnn.md, Sec. 2 (transient amplification via the pseudospectrum)",
    statement="with the spectrum inside the unit disc, the dynamics show transient amplification as determined "
              "by the pseudospectrum: sup_k ‖A^k‖₂ ≥ (ρ_ε(A) − 1)/ε for every ε > 0 (Trefethen & Embree, "
              "Thm. 16.4), so a pseudospectrum reaching outside the disc forces ‖A^k‖₂ > 1 for some k",
    measure="(ρ_ε − 1)/ε maximised over ε ∈ {1e-3, …, 10^-0.5} from a σ_min(zI − A) grid (Schur + inverse "
            "Lanczos)",
    bound=f"max_k ‖A^k‖₂ for k ≤ {TRANSIENT_HORIZON} (transient_growth)",
    assumptions=(A_RHO_BELOW_ONE,),
    sample=sample_transient_case,
    evaluate=_measure_transient,
    sizes={"quick": [(2, 1), (8, 1), (16, 1)], "full": [(2, 1), (8, 1), (16, 1), (32, 1), (64, 1)]},
    case_type=TransientCase,
    explanation="Only possible if ρ(A) ≥ 1, where sup_k ‖A^k‖ is infinite and a finite horizon underestimates it.",
    notes="A measurement more than a verdict: the worst ratio says how much of the actual amplification the "
          "pseudospectrum accounts for; normal W^(S) (s = 0) have no amplification (ratio 0), non-normal ones do.",
)

CLAIMS = CLAIMS + (transient,)
