"""Shared cases and assumptions of the pascanu2013 claims (and of the classic papers that reuse them):
vanilla-RNN cases whose recurrent matrices satisfy λ₁ = ‖W‖₂ < 1/γ, any-architecture cases, and the
measured quantities η = max_t ‖∂h_t/∂h_{t−1}‖₂ and the growth max_{k<t} ‖∂h_t/∂h_k‖₂ as assumptions."""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import (
    GAMMA,
    GATED,
    VANILLA,
    ArchCase,
    layer_cases,
    sample_arch,
    spectral,
    state_words,
    step_map,
    step_norms,
    step_products,
)
from rnnaudit.analysis.norms import step_norm_name
from rnnaudit.bounds.core import Assumption
from rnnaudit.cells.linalg import eigvals

__all__ = ["draw", "pick", "layer_lambdas", "eta", "growth", "step_norms", "step_products",
           "sample_contractive_vanilla", "sample_any",
           "A_LAMBDA", "A_ETA", "A_GROWS", "project_lambda", "vanilla_free", "linear_regime_case",
           "per_layer", "A_RADIUS", "layer_radii", "project_radius", "sample_radius_vanilla", "triangular_case",
           "switching_case", "eigenvalue_counterexamples", "TRIANGULAR_W", "SWITCHING_W"]

#: ‖W‖₂ after projection sits this far below 1/γ, so "λ₁ < 1/γ" stays strict after rounding.
MARGIN = 1e-6


def draw(gen: torch.Generator) -> float:
    return float(torch.rand((), generator=gen, dtype=torch.float64))


def pick(gen: torch.Generator, options: tuple):
    return options[int(torch.randint(0, len(options), (), generator=gen))]


def layer_lambdas(case: ArchCase) -> list[float]:
    """γ·λ₁ of each layer: γ·‖W_l‖₂ (‖u‖_∞ for IndRNN)."""
    return [GAMMA[case.kind] * float(spectral(case.recurrent_matrix(k).detach())) for k in range(case.layers)]


def _lambda_below(case: ArchCase) -> tuple[bool, str]:
    if case.kind not in VANILLA:
        return False, f"not a vanilla RNN ({case.kind})"
    lam = layer_lambdas(case)
    return max(lam) < 1, "γ·λ₁ per layer = " + ", ".join(f"{v:.6g}" for v in lam) + f" (γ = {GAMMA[case.kind]:g})"


A_LAMBDA = Assumption("λ₁ < 1/γ (largest singular value of each layer's W; γ = sup|σ'|)", _lambda_below)




def eta(case: ArchCase) -> Tensor:
    """η = max_t ‖∂h_t/∂h_{t−1}‖₂ along the case's sequence (packed state, all layers together)."""
    return step_map(case).eta()


def growth(case: ArchCase) -> Tensor:
    """max over 0 ≤ k < t ≤ T of ‖∂h_t/∂h_k‖₂ (packed state)."""
    norms, _ = step_map(case).products()
    return norms.max()[0]


def _eta_below(case: ArchCase) -> tuple[bool, str]:
    value = float(eta(case).detach())
    return value < 1, f"η = {step_norm_name(state_words(case))} = {value:.6g}"


def _grows(case: ArchCase) -> tuple[bool, str]:
    value = float(growth(case).detach())
    state = state_words(case)
    if case.kind == "lstm":  # the products of the whole state's steps, named as such (not the h block)
        return value > 1, f"max_(k<t) ‖∂s_t/∂s_k‖₂ of s = {state} = {value:.6g}"
    return value > 1, f"max_(k<t) ‖∂h_t/∂h_k‖₂ = {value:.6g}"


#: the theorems speak of the recurrence's whole state s (an LSTM's (h, c), every layer of a stack), so η is of it
A_ETA = Assumption("η = max_t ‖∂s_t/∂s_(t−1)‖₂ < 1 on the data, s the whole state (every step contracts)", _eta_below)
A_GROWS = Assumption("the gradient grows: max_(k<t) ‖∂h_t/∂h_k‖₂ > 1 on the data", _grows)


def sample_contractive_vanilla(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64,
                               kinds: tuple = VANILLA) -> ArchCase:
    """A vanilla case (Pascanu's form with tanh or sigmoid, torch's tanh or relu, IndRNN; one or two layers)
    with γ‖W‖₂ drawn in [0.1, 0.999] per layer."""
    kind = pick(gen, kinds)
    layers = 2 if kind in ("rnn_tanh", "rnn_relu") and draw(gen) < 0.3 else 1
    case = sample_arch(gen, kind, h, T, layers=layers, norm=1.0, device=device, dtype=dtype)
    with torch.no_grad():
        for w in case.weights:
            w[1].mul_((0.1 + 0.899 * draw(gen)) / GAMMA[kind])
    return case


def project_lambda(case: ArchCase) -> None:
    """Scale each layer's W back to γ‖W‖₂ ≤ 1 − MARGIN."""
    for k in range(case.layers):
        lam = GAMMA[case.kind] * float(spectral(case.recurrent_matrix(k)))
        if lam >= 1 - MARGIN:
            case.weights[k][1].mul_((1 - MARGIN) / lam)


def vanilla_free(case: ArchCase) -> list[Tensor]:
    return [case.x, case.h0] + [t for w in case.weights for t in w[:3]]


def sample_any(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64, *,
               contractive: bool) -> ArchCase:
    """A case of any weight-given kind (vanilla or gated; one or two layers) whose η is < 1 (``contractive``)
    or whose gradient grows (not ``contractive``). Drawn, then rescaled until it does (W_hh and the biases
    halved, or W_hh doubled, at most 12 times); after 4 draws that never do, the structured case of
    :func:`linear_regime_case` (W = 0.5·I or 2·I at the zero state, where J_t = W)."""
    for _ in range(4):
        kind = pick(gen, VANILLA + GATED + GATED)
        layers = 2 if kind in ("rnn_tanh", "gru", "lstm") and draw(gen) < 0.3 else 1
        norm = 0.3 + 0.6 * draw(gen) if contractive else 1.5 + 2 * draw(gen)
        case = sample_arch(gen, kind, h, T, layers=layers, norm=norm / GAMMA.get(kind, 1.0), device=device,
                           dtype=dtype)
        with torch.no_grad():
            if not contractive:
                case.x.mul_(0.05)
                for w in case.weights:
                    w[2].mul_(0.1)
                    w[3].mul_(0.1)
            for _ in range(12):
                if bool(eta(case) < 1) if contractive else bool(growth(case) > 1):
                    return case
                for w in case.weights:
                    for i, f in ((1, 0.5), (2, 0.5), (3, 0.5)) if contractive else ((1, 2.0),):
                        w[i].mul_(f)
    return linear_regime_case(h, T, 0.5 if contractive else 2.0, device, dtype)


def linear_regime_case(h: int, T: int, scale: float, device="cpu", dtype=torch.float64) -> ArchCase:
    """torch's tanh RNN with W_hh = scale·I, zero inputs, biases and h_0: the state stays 0, tanh'(0) = 1 and
    every J_t = scale·I, so ‖∂h_t/∂h_k‖₂ = scale^(t−k) = Π‖J_j‖₂: the product bounds hold with equality."""
    z = lambda *s: torch.zeros(*s, dtype=dtype, device=device)  # noqa: E731
    W = scale * torch.eye(h, dtype=dtype, device=device)
    return ArchCase("rnn_tanh", ((z(h, 2), W, z(h), z(h)),), z(T, 2), z(h))


def per_layer(case: ArchCase) -> list[ArchCase]:
    """The case's layers as one-layer cases (see :func:`rnnaudit.bounds.architectures.layer_cases`)."""
    return layer_cases(case)


# --- the arXiv preprint's reading: λ₁ read as |largest eigenvalue| of W_rec (spectral radius ρ) -------------------

#: the counterexample W of the eigenvalue reading: ρ = 0.5 < 1 = 1/γ (tanh), ‖W‖₂ = 3.0811, and in the linear
#: regime ‖W^τ‖₂ = 3.08, 3.02, 2.26, 1.50, 0.94 for τ = 1…5: the gradient grows for four steps, every step expands,
#: and ‖W^τ‖₂/ρ^τ = ‖[[1, 6τ], [0, 1]]‖₂ ≈ 6τ is unbounded in τ.
TRIANGULAR_W = ((0.5, 3.0), (0.0, 0.5))
#: a normal-looking W with ρ = 0.9 whose products with alternately saturated tanh units grow without bound:
#: with σ' ≈ (1, 0) and (0, 1) on alternate steps the two-step product has spectral radius 0.9² · 2 = 1.62.
SWITCHING_W = ((0.9, 1.8), (-0.9, -0.9))
#: pre-activation of the saturated unit in the switching case: tanh'(6) = 2.5e-5, so σ' ≈ 0 there.
SATURATING_PRE_ACTIVATION = 6.0


def layer_radii(case: ArchCase) -> list[float]:
    """γ·ρ(W_l) of each layer (ρ the spectral radius; |u|_∞ for IndRNN)."""
    return [GAMMA[case.kind] * float(eigvals(case.recurrent_matrix(k).detach()).abs().max())
            for k in range(case.layers)]


def _radius_below(case: ArchCase) -> tuple[bool, str]:
    if case.kind not in VANILLA:
        return False, f"not a vanilla RNN ({case.kind})"
    rho = layer_radii(case)
    return max(rho) < 1, "γ·ρ(W) per layer = " + ", ".join(f"{v:.6g}" for v in rho) + f" (γ = {GAMMA[case.kind]:g})"


A_RADIUS = Assumption("ρ(W) < 1/γ (absolute value of the largest eigenvalue of each layer's W; γ = sup|σ'|)",
                      _radius_below)


def project_radius(case: ArchCase) -> None:
    """Scale each layer's W back to γρ(W) ≤ 1 − MARGIN."""
    for k, rho in enumerate(layer_radii(case)):
        if rho >= 1 - MARGIN:
            case.weights[k][1].mul_((1 - MARGIN) / rho)


def sample_radius_vanilla(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ArchCase:
    """A vanilla case (as :func:`sample_contractive_vanilla`) with γρ(W) drawn in [0.1, 0.999] per layer, so
    ‖W‖₂ may be far above 1/γ for a non-normal W."""
    kind = pick(gen, VANILLA)
    layers = 2 if kind in ("rnn_tanh", "rnn_relu") and draw(gen) < 0.3 else 1
    case = sample_arch(gen, kind, h, T, layers=layers, norm=1.0, device=device, dtype=dtype)
    with torch.no_grad():
        for k, rho in enumerate(layer_radii(case)):
            case.weights[k][1].mul_((0.1 + 0.899 * draw(gen)) / max(rho, 1e-12))
    return case


def _embedded(W: tuple, h: int, device, dtype) -> Tensor:
    M = torch.zeros(h, h, dtype=dtype, device=device)
    M[:2, :2] = torch.tensor(W, dtype=dtype, device=device)
    return M


def triangular_case(h: int, T: int, device="cpu", dtype=torch.float64) -> ArchCase:
    """torch's tanh RNN with W_hh = :data:`TRIANGULAR_W` (zero-padded to h ≥ 2), zero inputs, biases and h_0: the
    linear regime of tanh, J_t = W_hh, so ‖∂h_t/∂h_k‖₂ = ‖W^(t−k)‖₂ while ρ(W) = 0.5."""
    z = lambda *s: torch.zeros(*s, dtype=dtype, device=device)  # noqa: E731
    return ArchCase("rnn_tanh", ((z(h, 2), _embedded(TRIANGULAR_W, h, device, dtype), z(h), z(h)),), z(T, 2), z(h))


def switching_case(h: int, T: int, device="cpu", dtype=torch.float64) -> ArchCase:
    """torch's tanh RNN with W_hh = :data:`SWITCHING_W` (zero-padded to h ≥ 2), W_ih = the first two unit vectors,
    and inputs chosen step by step so the pre-activation of units (1, 2) is (0, 6) at even and (6, 0) at odd steps:
    σ' alternates between ≈ (1, 0) and ≈ (0, 1), and ‖∂h_t/∂h_0‖₂ grows like 1.27^t although ρ(W) = 0.9."""
    W = _embedded(SWITCHING_W, h, device, dtype)
    W_ih = torch.zeros(h, 2, dtype=dtype, device=device)
    W_ih[0, 0] = W_ih[1, 1] = 1
    x, state = torch.zeros(T, 2, dtype=dtype, device=device), torch.zeros(h, dtype=dtype, device=device)
    s = SATURATING_PRE_ACTIVATION
    for t in range(T):
        want = torch.tensor((0.0, s) if t % 2 == 0 else (s, 0.0), dtype=dtype, device=device)
        x[t] = want - (W @ state)[:2]
        state = torch.tanh(W @ state + W_ih @ x[t])
    zero = torch.zeros(h, dtype=dtype, device=device)
    return ArchCase("rnn_tanh", ((W_ih, W, zero, zero.clone()),), x, torch.zeros(h, dtype=dtype, device=device))


def eigenvalue_counterexamples(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """The two structured cases of the eigenvalue reading (h ≥ 2; none for h = 1, where ρ = ‖W‖₂)."""
    return [] if h < 2 else [triangular_case(h, T, device, dtype), switching_case(h, T, device, dtype)]
