"""Structured cases of the class F_T (sgornn.md eq. 5) that attain, or approach, the suprema of the
gradient and state claims, and the suprema themselves.

Every construction is an SGORNN (VPRNN map, ReLU, no bias) with a constant input x_t = w, a rank-one
W = u wᵀ (u ≥ 0, ‖u‖ = ‖w‖ = 1), a U = φ(Θ) that fixes u, and β = 1 − α. Then

    h_t = α t u    (every pre-activation u + α(t − 1)u is ≥ 0, so ReLU passes it whole),

the largest state the recurrence allows (‖h_t‖ ≤ αR_WR_x + (α + β)‖h_{t−1}‖). The readout v and the
choice of U decide which bound is tight:

- :func:`aligned`: U = I, u = v = 1/√h. G = ∂L/∂U = α Σ_t v h_{t−1}ᵀ is a flat rank-one matrix, so
  ‖G‖₁,₁ = h‖G‖_* = √h · √h‖G‖_F (eq. 31 at its supremum √h, eq. 31 corrected at 1) and
  ‖h_T‖ = αT (the hidden-state bound at 1).
- :func:`pair_rotation`: U = I, u = (e₀ + e₁)/√2, v = J₀u with J₀ the rotation by π/2 of the first
  coordinate pair, which is ∂U/∂Θ_0j at Θ = 0. Then ∂L/∂Θ_0j = α Σ_t vᵀJ₀h_{t−1} = α² T(T − 1)/2 exactly,
  Corollary 1's supremum.
- :func:`coordinate`: U = I, u = v = e₀. Then (∂L/∂W)_{0,·} = αT wᵀ, eq. 8's supremum 1/√h.
- :func:`reflection` (h = 2): U = R(π/4)P, a reflection, whose derivative entries all have modulus
  1/√2 (the smallest M_φ at h = 2); u its fixed vector (> 0), v = Ju. Eq. 7's ratio tends to its
  supremum (T − 1)/(2√2 T) as α → 0.

:func:`hadamard` leaves that family: it makes G = ∂L/∂U close to a Hadamard matrix (flat entries, equal singular
values), the worst case of the chain ‖X‖₁,₁ ≤ h‖X‖₂ that eq. 31 uses (ratio → √h, where a flat rank-one G gives 1).
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from rnnaudit.bounds.sgornn.cases import GATED_1_ALPHA, GATED_1_ALPHA_LONG, GatedCase, logit, project_gates
from rnnaudit.cells import SGORNN, vprnn_max_sublayers

__all__ = ["gated_construction", "aligned", "pair_rotation", "coordinate", "reflection", "hadamard", "gated_starts",
           "GATED_STRUCTURED", "GATED_STRUCTURED_LONG", "STARTS_MAX_WIDTH", "theorem2_eq7_supremum", "eq8_supremum",
           "corollary1_supremum"]

F64 = torch.float64
#: The input direction w of every construction (n = 2).
_W_DIRECTION = torch.tensor([1.0, 0.0], dtype=F64)


def gated_construction(h: int, T: int, u: torch.Tensor, v: torch.Tensor, *, alpha: float,
                       permutations: torch.Tensor | None = None, theta: torch.Tensor | None = None,
                       device="cpu", dtype=F64) -> GatedCase:
    """The case x_t = w = e₀ ∈ ℝ², W = u wᵀ, readout v, gates α and β = 1 − α (on Theorem 2's limit),
    VPRNN with 2⌈log₂h⌉ sublayers, the given permutations (default: all identity) and Θ (default 0).
    R_W = R_x = R_v = 1 are the actual norms (u, v unit vectors).

    Raises:
        ValueError: u or v not unit vectors of length h, h odd, T < 1.
    """
    if h < 2 or h % 2 or T < 1:
        raise ValueError(f"h must be even >= 2 and T >= 1, got h={h}, T={T}")
    for name, vec in (("u", u), ("v", v)):
        if vec.shape != (h,) or abs(float(torch.linalg.vector_norm(vec)) - 1) > 1e-12:
            raise ValueError(f"{name} must be a unit vector of length {h}, got shape {tuple(vec.shape)}")
    k = vprnn_max_sublayers(h)
    cell = SGORNN(2, h, k=k, bias=False, clip_beta=False, dtype=F64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        cell.phi.permutations.copy_(torch.arange(h).expand(k, h) if permutations is None else permutations)
        cell.phi.theta.copy_(torch.zeros(h // 2, k, dtype=F64) if theta is None else theta)
        cell.W.copy_(u.to(F64)[:, None] @ _W_DIRECTION[None])
        cell.alpha_logit.fill_(logit(alpha))
        cell.beta_logit.fill_(logit(1 - alpha))
        project_gates(cell, "1-alpha")
    x = _W_DIRECTION.expand(1, T, 2).clone()
    return GatedCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                     v.to(device=device, dtype=dtype), 1.0, 1.0, 1.0)


def aligned(h: int, T: int, alpha: float = 0.01, **kw) -> GatedCase:
    """U = I, u = v = 1/√h (see the module docstring)."""
    flat = torch.full((h,), 1 / math.sqrt(h), dtype=F64)
    return gated_construction(h, T, flat, flat, alpha=alpha, **kw)


def pair_rotation(h: int, T: int, alpha: float = 0.01, **kw) -> GatedCase:
    """U = I, u = (e₀ + e₁)/√2, v = J₀u = (−e₀ + e₁)/√2 (see the module docstring)."""
    u = torch.zeros(h, dtype=F64)
    u[:2] = 1 / math.sqrt(2)
    v = torch.zeros(h, dtype=F64)
    v[0], v[1] = -u[1], u[0]
    return gated_construction(h, T, u, v, alpha=alpha, **kw)


def coordinate(h: int, T: int, alpha: float = 0.01, **kw) -> GatedCase:
    """U = I, u = v = e₀ (see the module docstring)."""
    e0 = torch.zeros(h, dtype=F64)
    e0[0] = 1.0
    return gated_construction(h, T, e0, e0, alpha=alpha, **kw)


def reflection(T: int, alpha: float = 1e-4, **kw) -> GatedCase:
    """h = 2: Q₁ = I, Q₂ = the swap, Θ = (π/4, 0), so U = R(π/4)P = [[−a, a], [a, a]] with a = 1/√2, a
    reflection whose derivatives ∂U/∂Θ_0j = ±JU have every entry of modulus 1/√2; u = its fixed vector
    (1, 1 + √2)/‖·‖ > 0, v = Ju ⊥ u with Uᵀv = −v (see the module docstring). α defaults to the smallest
    the projection allows, where eq. 7's ratio is within 10⁻⁴ of its supremum."""
    perms = torch.tensor([[0, 1], [1, 0]])
    theta = torch.tensor([[math.pi / 4, 0.0]], dtype=F64)
    u = torch.tensor([1.0, 1.0 + math.sqrt(2)], dtype=F64)
    u = u / torch.linalg.vector_norm(u)
    v = torch.stack((-u[1], u[0]))
    return gated_construction(2, T, u, v, alpha=alpha, permutations=perms, theta=theta, **kw)


def _butterfly_pairing(h: int, bit: int) -> torch.Tensor:
    """Permutation matrix Q with (Qy)_{2p} = y_a, (Qy)_{2p+1} = y_{a + 2^bit} for the p-th index a whose bit ``bit``
    is 0: it lines up the pairs of one butterfly layer of the Walsh–Hadamard transform on VPRNN's rotation pairs."""
    rows = [i for a in range(h) if not (a >> bit) & 1 for i in (a, a + (1 << bit))]
    Q = torch.zeros(h, h, dtype=F64)
    Q[torch.arange(h), torch.tensor(rows)] = 1.0
    return Q


def _rotation_layer(h: int, angle: float) -> torch.Tensor:
    """R_j of eq. 2: every coordinate pair (2i, 2i + 1) rotated by ``angle``."""
    c, s = math.cos(angle), math.sin(angle)
    return torch.block_diag(*[torch.tensor([[c, -s], [s, c]], dtype=F64)] * (h // 2))


def hadamard_rotation(h: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """VPRNN permutations (k, h) and angles Θ (h/2, k), k = 2 log₂h, with φ(Θ) = U = K C Kᵀ, and K (h, h).

    K = Q₁ B₁ ⋯ B_m, B_l = Q_lᵀ R(π/4) Q_l the butterfly layers (Q_l = :func:`_butterfly_pairing` of bit l), is a
    Hadamard matrix up to scale (every entry ±1/√h, orthogonal) and C the cyclic shift e_i → e_{i+1}, so Uᵀ walks
    K's columns: (Uᵀ)^j K e₀ = K e_{−j mod h}. Written as eq. 2's R₁Q₁ ⋯ R_kQ_k:
    U = R (Q₁Q₂ᵀ) R ⋯ R (Q_m C Q_mᵀ) Rᵀ (Q_m Q_{m−1}ᵀ) Rᵀ ⋯ (Q₂Q₁ᵀ) Rᵀ.

    Raises:
        ValueError: h not a power of two ≥ 2.
    """
    m = h.bit_length() - 1
    if h < 2 or h != 1 << m:
        raise ValueError(f"h must be a power of two >= 2, got {h}")
    Q = [_butterfly_pairing(h, bit) for bit in range(m)]
    shift = torch.roll(torch.eye(h, dtype=F64), 1, dims=0)
    middle = [Q[j] @ Q[j + 1].T for j in range(m - 1)] + [Q[-1] @ shift @ Q[-1].T]
    middle += [Q[m - 1 - i] @ Q[m - 2 - i].T for i in range(m - 1)] + [torch.eye(h, dtype=F64)]
    perms = torch.stack([P.argmax(dim=1) for P in middle])
    theta = torch.tensor([math.pi / 4] * m + [-math.pi / 4] * m, dtype=F64).expand(h // 2, 2 * m).clone()
    K = Q[0]
    for Ql in Q:
        K = K @ Ql.T @ _rotation_layer(h, math.pi / 4) @ Ql
    return perms, theta, K


def hadamard(h: int, T: int, *, eps: float = 1e-4, device="cpu", dtype=F64) -> GatedCase:
    """A case whose G = ∂L/∂U is close to the Hadamard matrix K (:func:`hadamard_rotation`) up to column scales.

    G = Σ_t a_t h_{t−1}ᵀ with a_t = α D_t ∂L/∂h_t. With α = 1 − 10⁻⁴ (the projection's largest), β = 10⁻⁶ (its
    smallest) and every pre-activation positive (D_t = I), ∂L/∂h_{T−j} ≈ (Uᵀ)^j v = K e_{−j}: v = K e₀ and U of
    :func:`hadamard_rotation`. The inputs (n = h, W = I) set the pre-activations of the last h + 1 steps to
    ε1 + e_j (j = 0, …, h − 1, so h_{t} ≈ α e_j) and then to 1, after T − h − 1 zero inputs (h_t = 0). So
    G ≈ Σ_j K e_{−j} e_jᵀ up to factors α^j: flat entries, equal singular values, and
    ‖G‖₁,₁ / (h‖G‖₂) → √h (√2 = 1.41421 at h = 2; 1.41405 with the defaults at T = 7, 2.8263 at h = 8,
    T = 10).

    Raises:
        ValueError: h not a power of two, T < h + 1.
    """
    if T < h + 1:
        raise ValueError(f"the construction needs T >= h + 1, got h={h}, T={T}")
    perms, theta, K = hadamard_rotation(h)
    cell = SGORNN(h, h, k=perms.shape[0], bias=False, clip_beta=False, dtype=F64,
                  generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        cell.phi.permutations.copy_(perms)
        cell.phi.theta.copy_(theta)
        cell.W.copy_(torch.eye(h, dtype=F64))
        cell.alpha_logit.fill_(logit(1 - 1e-4))
        cell.beta_logit.fill_(logit(1e-6))
        project_gates(cell, "1-alpha")
        U = cell.recurrent_matrix()
        alpha, beta = float(cell.alpha), float(cell.beta)
        x = torch.zeros(T, h, dtype=F64)
        state = torch.zeros(h, dtype=F64)
        for j in range(h + 1):
            target = torch.full((h,), eps, dtype=F64)
            if j < h:
                target[j] = 1.0
            else:
                target.fill_(1.0)
            x[T - h - 1 + j] = target - U @ state
            state = alpha * target + beta * state
    v = K[:, 0].clone()
    case = GatedCase(cell.to(device=device, dtype=dtype), x[None].to(device=device, dtype=dtype),
                     v.to(device=device, dtype=dtype), math.sqrt(h), 0.0, 1.0)
    case.R_x = float(torch.linalg.vector_norm(case.x, dim=-1).max())
    return case


#: Widths up to which the starts are added: each construction's ratio is exact at every size, and a
#: gradient case at h = 64, T = 200 costs about a second, so the larger sizes are left to the random cases.
STARTS_MAX_WIDTH = 16


def gated_starts(h: int, T: int, device="cpu", dtype=F64) -> dict[str, GatedCase]:
    """The structured starts of the gradient and state claims at (h, T) for h ≤ :data:`STARTS_MAX_WIDTH`, by name:
    ``aligned`` (flat rank-one G, aligned singular vectors; on the boundary β = 1 − α), ``pair_rotation``,
    ``coordinate``, ``reflection`` at h = 2, and ``hadamard`` (h a power of two, T > h; gates at the projection's
    bounds α = 1 − 10⁻⁴, β = 10⁻⁶)."""
    if h > STARTS_MAX_WIDTH:
        return {}
    out = {f.__name__: f(h, T, device=device, dtype=dtype) for f in (aligned, pair_rotation, coordinate)}
    if h == 2:
        out["reflection"] = reflection(T, device=device, dtype=dtype)
    if h & (h - 1) == 0 and T > h:
        out["hadamard"] = hadamard(h, T, device=device, dtype=dtype)
    return out


#: Theorem 2's case space (β ≤ 1 − α) with the structured starts.
GATED_STRUCTURED = replace(GATED_1_ALPHA, starts=gated_starts)
#: The hidden-state bound's longer sizes with the same starts.
GATED_STRUCTURED_LONG = replace(GATED_1_ALPHA_LONG, starts=gated_starts)


def theorem2_eq7_supremum(h: int, T: int) -> float:
    """sup of eq. 7's ratio ‖∂L/∂Θ‖_max / (C M_φ h (αT)²) at width h and length T: (T − 1)/(2√2 T) at
    h = 2; NaN (not known) for h > 2, where (T − 1)/(2√2 T) is only an upper bound. Derivation in
    ``sgornn.theorem2``'s supremum."""
    if h != 2:
        return math.nan
    return (T - 1) / (2 * math.sqrt(2) * T)


def eq8_supremum(h: int, T: int) -> float:
    """sup of eq. 8's ratio ‖∂L/∂W‖_max / (CαT√h/R_W): 1/√h, attained by :func:`coordinate` at every T."""
    return 1 / math.sqrt(h)


def corollary1_supremum(h: int, T: int) -> float:
    """sup of eq. 9's ratio: (T − 1)/(8T h^{3/2} log₂h), attained by :func:`pair_rotation`."""
    return (T - 1) / (8 * T * h**1.5 * math.log2(h))
