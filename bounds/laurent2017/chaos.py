"""laurent2017 (arXiv 1612.06212): LSTM and GRU networks can be chaotic with zero input, an existence statement,
checked by exhibiting an example and measuring its top Lyapunov exponent with a standard error.

The paper shows its own example (weights printed in the paper); those weights were not readable here, so the
examples are rnnaudit's: torch-form LSTM and GRU with H = 2 units, zero input weights, recurrent weights and
biases drawn by a fixed recipe (:func:`example`, seeds found by a scan of 60 seeds per size; the LSTM is the
recipe's seed 3 with gain 10, the GRU seed 29 with gain 4). The measurement: the finite-time top exponent
λ₁ = (1/N) Σ log ‖J_t q_(t−1)‖ (a normalised tangent vector, Benettin's method for one exponent) after a warm-up,
with the batch-means standard error over 10 windows; chaos is shown when λ₁ > 3·SE. A test cross-checks λ₁
against :func:`rnnaudit.analysis.lyapunov_spectrum` (the QR method, its own code).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.analysis.norms import vector_norm
from rnnaudit.bounds.architectures import ArchCase, step_map
from rnnaudit.bounds.core import Assumption, CaseSpace

__all__ = ["example", "top_exponent", "chaos_cases", "measure_chaos", "CHAOS_ASSUMPTIONS", "RECIPES", "WARMUP",
           "WINDOWS", "LENGTH", "SOURCE", "MEASURE", "BOUND", "finite_time_exponent"]

#: kind → (units H, seed, gain): the examples exhibited (see the module docstring)
RECIPES = {"lstm": (2, 3, 10.0), "gru": (2, 29, 4.0)}
#: steps discarded before counting (the trajectory reaches its attractor), and batch-means windows
WARMUP, WINDOWS = 150, 10
#: length of the runs in the quick checks: 350 counted steps, 35 per window (the full profile runs 8×)
LENGTH = 500


def example(kind: str, T: int = LENGTH, device="cpu", dtype=torch.float64) -> ArchCase:
    """The exhibited zero-input ``kind`` ("lstm" or "gru") network: W_hh ~ N(0, gain²/H) per entry, b_ih ~ N(0, 1),
    b_hh ~ N(0, 1) for the GRU (0 for the LSTM), W_ih = 0, x = 0, h_0 ~ N(0, 1/4), from ``torch.Generator``
    seeded with the recipe's seed, in that order, in float64."""
    H, seed, gain = RECIPES[kind]
    g = torch.Generator().manual_seed(seed)
    gates = 4 if kind == "lstm" else 3
    w_hh = torch.randn(gates * H, H, generator=g, dtype=torch.float64) * gain / math.sqrt(H)
    b_ih = torch.randn(gates * H, generator=g, dtype=torch.float64)
    h0 = torch.randn((2 if kind == "lstm" else 1) * H, generator=g, dtype=torch.float64) * 0.5
    b_hh = torch.zeros(gates * H, dtype=torch.float64) if kind == "lstm" else \
        torch.randn(gates * H, generator=g, dtype=torch.float64)
    conv = lambda t: t.to(device=device, dtype=dtype)  # noqa: E731
    return ArchCase(kind, ((conv(torch.zeros(gates * H, 1)), conv(w_hh), conv(b_ih), conv(b_hh)),),
                    conv(torch.zeros(T, 1)), conv(h0))


def top_exponent(case: ArchCase, warmup: int = WARMUP, windows: int = WINDOWS) -> tuple[Tensor, Tensor]:
    """(λ₁, standard error) in nats per step of the case's trajectory (module docstring).

    Raises:
        ValueError: fewer counted steps than windows.
    """
    J = step_map(case).J
    if J.shape[0] - warmup < windows:
        raise ValueError(f"top_exponent needs more than warmup + windows = {warmup + windows} steps, got {J.shape[0]}")
    q = torch.ones(J.shape[1], dtype=J.dtype, device=J.device) / math.sqrt(J.shape[1])
    logs = []
    for t in range(J.shape[0]):
        q = J[t] @ q
        n = torch.linalg.vector_norm(q)
        if float(n.detach()) < 1e-150:  # squared entries underflow there: the scaled norm (λ₁ would read −∞)
            n = vector_norm(q)
        q = q / n
        if t >= warmup:
            logs.append(torch.log(n))
    logs = torch.stack(logs)
    per = logs.shape[0] // windows
    means = logs[: per * windows].reshape(windows, per).mean(1)
    return logs.mean(), means.std() / math.sqrt(windows)


def _zero_input(case: ArchCase) -> tuple[bool, str]:
    size = float(case.x.detach().abs().max()) if case.x.numel() else 0.0
    return size == 0, f"max|x_t| = {size:g}"


def _long_enough(case: ArchCase) -> tuple[bool, str]:
    return case.x.shape[0] >= WARMUP + 20 * WINDOWS, f"T = {case.x.shape[0]} (≥ {WARMUP + 20 * WINDOWS} needed)"


#: the least exponent counted as positive besides 3 standard errors (nats per step): a zero standard error (a
#: periodic orbit) must not pass an exponent of 0
POSITIVE = 1e-12


def measure_chaos(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    """(3·SE + POSITIVE, max(λ₁, 0)): ratio ≤ 1 iff λ₁ ≥ 3·SE + POSITIVE; λ₁ ≤ 0 gives +inf."""
    lam, se = top_exponent(case)
    return {"3·SE < λ₁ (a positive top Lyapunov exponent, 3 standard errors)": (3 * se + POSITIVE, lam.clamp_min(0))}


#: the two assumptions of the existence claims
CHAOS_ASSUMPTIONS = (Assumption("zero input", _zero_input), Assumption("long enough to estimate λ₁", _long_enough))
SOURCE = ("laurent2017 (arXiv 1612.06212), the chaotic zero-input dynamics of LSTM and GRU networks (existence; the "
          "paper's own example weights were not readable, rnnaudit exhibits its own)")
MEASURE = "3 × the batch-means standard error of λ₁ (+ 1e-12)"
BOUND = "λ₁, the finite-time top Lyapunov exponent (Benettin, one tangent vector) after the warm-up"


def chaos_cases(kind: str) -> CaseSpace:
    """The exhibited ``kind`` network, drawn from starts 10⁻³ away from the recipe's h_0 (the same basin)."""

    def sample(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
        case = example(kind, T, device, dtype)
        case.h0.add_(1e-3 * torch.randn(case.h0.shape, generator=gen, dtype=torch.float64).to(case.h0))
        return case

    H = RECIPES[kind][0]
    return CaseSpace(case_type=ArchCase, sample=sample, sizes={"quick": [(H, LENGTH)], "full": [(H, 8 * LENGTH)]})


def finite_time_exponent(J: Tensor) -> Tensor:
    """λ₁ over all T steps from q_0 = 1/√S (module docstring); −inf when some J_t q_(t−1) = 0."""
    q = torch.ones(J.shape[1], dtype=J.dtype, device=J.device) / math.sqrt(J.shape[1])
    total = J.new_zeros(())
    for t in range(J.shape[0]):
        q = J[t] @ q
        n = torch.linalg.vector_norm(q)
        if float(n.detach()) < 1e-150:  # squared entries underflow there: the scaled norm (λ₁ would read −∞)
            n = vector_norm(q)
        if float(n.detach()) == 0:
            return J.new_tensor(-math.inf)
        total = total + torch.log(n)
        q = q / n
    return total / J.shape[0]
