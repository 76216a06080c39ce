"""Shared cases and assumptions of the pascanu2013 claims (and of the classic papers that reuse them):
vanilla-RNN cases whose recurrent matrices satisfy λ₁ = ‖W‖₂ < 1/γ, any-architecture cases, and the
measured quantities η = max_t ‖∂h_t/∂h_{t−1}‖₂ and the growth max_{k<t} ‖∂h_t/∂h_k‖₂ as assumptions."""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import (
    GAMMA,
    GATED,
    MAX_STARTS,
    VANILLA,
    ArchCase,
    layer_cases,
    product_norms,
    sample_arch,
    spectral,
    step_jacobians,
)
from rnnaudit.bounds.core import Assumption

__all__ = ["draw", "pick", "layer_lambdas", "eta", "growth", "sample_contractive_vanilla", "sample_any",
           "A_LAMBDA", "A_ETA", "A_GROWS", "project_lambda", "vanilla_free", "linear_regime_case",
           "per_layer"]

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
    J, _ = step_jacobians(case)
    return spectral(J).max()


def growth(case: ArchCase) -> Tensor:
    """max over 0 ≤ k < t ≤ T of ‖∂h_t/∂h_k‖₂ (packed state)."""
    J, _ = step_jacobians(case)
    prods, _, _ = product_norms(J, MAX_STARTS)
    return prods.max()


def _eta_below(case: ArchCase) -> tuple[bool, str]:
    value = float(eta(case).detach())
    return value < 1, f"η = max_t ‖∂h_t/∂h_(t−1)‖₂ = {value:.6g}"


def _grows(case: ArchCase) -> tuple[bool, str]:
    value = float(growth(case).detach())
    return value > 1, f"max_(k<t) ‖∂h_t/∂h_k‖₂ = {value:.6g}"


A_ETA = Assumption("η = max_t ‖∂h_t/∂h_(t−1)‖₂ < 1 on the data (every step contracts)", _eta_below)
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
