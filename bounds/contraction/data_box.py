"""A local certificate on the data: an upper bound on the step Jacobian ‖∂s_t/∂s_{t−1}‖ at every point of the
box of states and inputs the data reach, so that "every step contracts where the data go" is proved on that box
rather than read off a sample maximum.

**Statement (rnnaudit).** Let B be the box of states a layer's trajectory visits (per coordinate min and max
over t, s_0 included) and X the box of its inputs, and let M ≥ |∂F/∂s| entrywise on B × X with row bounds
M_k (:func:`rnnaudit.analysis.contraction.certify`: interval arithmetic on the gates' pre-activations, each
factor of the Jacobian replaced by its largest absolute value on the box). Then for every s ∈ B and x ∈ X:
‖∂F/∂s (s, x)‖_{∞,η} ≤ c = max_k ‖M_k‖_{∞,η} and ‖∂F/∂s (s, x)‖₂ ≤ ‖M‖₂; and for s, s' ∈ B,
‖F(s, x) − F(s', x)‖_{∞,η} ≤ c ‖s − s'‖_{∞,η}. With c < 1 the step map contracts on the whole box the data
visit (not only at the visited points), in the weighted norm ‖·‖_{∞,η} with η the Perron weight.

Proof: |∂F/∂s| ≤ M entrywise gives the weighted row sums and ‖J‖₂ ≤ ‖|J|‖₂ ≤ ‖M‖₂ (monotonicity of the
spectral norm on nonnegative matrices); the difference by the mean value theorem on the segment inside the
convex B (the Lemma of :mod:`rnnaudit.analysis.contraction`). What it does not say: B need not be invariant, so a
trajectory of other inputs or from another state may leave it; the certificate is about the region the data
reach. Sufficient only: c ≥ 1 says nothing about whether the steps contract.

Checked by sampling: the Jacobian (autograd) at the trajectory's own points and at random points and corners of
B × X must have ‖J‖_{∞,η} ≤ c and ‖J‖₂ ≤ ‖M‖₂.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.analysis.norms import PairNorms
from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, arch_step, trajectory
from rnnaudit.bounds.contraction.cases import DATA_KINDS, data_certificate, project_certified, sample_certified
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.pascanu2013.cases import per_layer, vanilla_free

__all__ = ["data_box", "A_DATA_RATE", "box_points", "N_POINTS", "N_TRAJECTORY"]

#: random points of B × X at which the Jacobian is sampled (a third of them corners of B)
N_POINTS = 24
#: at most this many of the trajectory's own (state, input) pairs, evenly spaced in t
N_TRAJECTORY = 16
#: above this many states, half the trajectory's points and a third of the random ones (each is an S × S Jacobian
#: and its SVD: a 2-layer LSTM(150) took 157 s for 40 points at load 17)
LARGE = 64


def _rate(layer: ArchCase) -> float:
    return data_certificate(layer).rate


def _rate_below(case: ArchCase) -> tuple[bool, str]:
    if case.kind not in DATA_KINDS:
        return False, f"not a layer given by its weights ({case.kind}; covered: {', '.join(DATA_KINDS)})"
    parts, ok = [], True
    for k, layer in enumerate(per_layer(case)):
        cert = data_certificate(layer)
        ok &= cert.contracts
        parts.append(f"layer {k}: {cert.describe()} on the box the data reach")
    return ok, "; ".join(parts)


A_DATA_RATE = Assumption("the certified rate on the box of states and inputs the data reach is < 1, every layer "
                         "(contractive where the data go)", _rate_below)


def box_points(layer: ArchCase, cert, generator: torch.Generator) -> tuple[Tensor, Tensor]:
    """Points (P, S) of the state box and (P, n) of the input box: the trajectory's own (at most
    :data:`N_TRAJECTORY`), then :data:`N_POINTS` random ones, every third a random corner of the state box (fewer
    above :data:`LARGE` states)."""
    states = trajectory(layer)[:-1]
    T = states.shape[0]
    S, n = cert.states.lo.numel(), cert.inputs.lo.numel()
    n_traj, n_rand = (N_TRAJECTORY, N_POINTS) if S <= LARGE else (N_TRAJECTORY // 2, N_POINTS // 3)
    idx = torch.linspace(0, T - 1, min(T, n_traj)).round().long()
    lo, hi = cert.states.lo.to(layer.x.dtype), cert.states.hi.to(layer.x.dtype)
    u = torch.rand(n_rand, S, generator=generator, dtype=torch.float64).to(layer.x.dtype)
    corner = (u < 0.5).to(u.dtype)
    u[::3] = corner[::3]
    s = lo + u * (hi - lo)
    v = torch.rand(n_rand, n, generator=generator, dtype=torch.float64).to(layer.x.dtype)
    x = cert.inputs.lo.to(layer.x.dtype) + v * (cert.inputs.hi - cert.inputs.lo).to(layer.x.dtype)
    return torch.cat([states[idx], s]), torch.cat([layer.x[idx], x])


def _spectral_norms(J: Tensor) -> Tensor:
    """‖J_k‖₂ of a batch (P, S, S): by torch (differentiable, for the ascent) up to S = 64, above by scipy's LAPACK
    one matrix at a time (torch's batched SVD of large blocks was 100 s for 40 of 300 × 300 on a loaded machine)."""
    if J.shape[-1] <= 64 or J.requires_grad:
        return torch.linalg.matrix_norm(J, ord=2)
    import scipy.linalg
    return J.new_tensor([float(scipy.linalg.svdvals(j)[0]) for j in J.detach().cpu().numpy()])


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    gen = torch.Generator().manual_seed(0)
    inf_m, inf_b, two_m, two_b = [], [], [], []
    for layer in per_layer(case):
        cert = data_certificate(layer)
        s, x = box_points(layer, cert, gen)
        J = vmap(jacrev(lambda v, xt: arch_step(layer, xt, v)))(s, x)
        eta = cert.weight.to(J.dtype)
        inf_m.append(((J.abs() @ eta) / eta).amax(-1))
        inf_b.append(J.new_full((J.shape[0],), cert.rate))
        if J.shape[-1] > 64 and not J.requires_grad and cert.spectral > 0 and math.isfinite(cert.spectral):
            # one bound for every point of the layer: its worst pair is the largest norm (the first point reaching
            # it), certified without every SVD (rnnaudit.analysis.norms.PairNorms, the same number)
            two_m.append(PairNorms(J.detach()).max()[0][None])
            two_b.append(J.new_full((1,), cert.spectral))
        else:
            two_m.append(_spectral_norms(J))
            two_b.append(J.new_full((J.shape[0],), cert.spectral))
    return {"‖∂F/∂s‖_∞,η ≤ c at sampled points of the data's box": worst_pair(torch.cat(inf_m), torch.cat(inf_b)),
            "‖∂F/∂s‖₂ ≤ ‖M‖₂ at sampled points of the data's box": worst_pair(torch.cat(two_m), torch.cat(two_b))}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> dict[str, ArchCase]:
    """Equality: a tanh RNN with W = 0.9·I, zero inputs, biases and h_0: the state stays 0, the box is the point
    0, tanh'(0) = 1 and J = 0.9·I exactly: c = ‖M‖₂ = 0.9 = ‖J‖."""
    z = lambda *s: torch.zeros(*s, dtype=dtype, device=device)  # noqa: E731
    W = 0.9 * torch.eye(h, dtype=dtype, device=device)
    return {"tanh RNN at its fixed point 0, W = 0.9·I": ArchCase("rnn_tanh", ((z(h, 2), W, z(h), z(h)),), z(T, 2),
                                                                 z(h))}


def _sample(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ArchCase:
    fallback = lambda *a: next(iter(_starts(*a).values()))  # noqa: E731
    return sample_certified(gen, h, T, DATA_KINDS, _rate, fallback, device, dtype)


def _project(case: ArchCase) -> None:
    project_certified(case, _rate)


data_box = Claim(
    id="contraction.data_box",
    source="rnnaudit's own certificate (proof in bounds/contraction/data_box.py and analysis/contraction.py): interval "
           "bounds on the gates over the box the data reach",
    statement="If the certified rate c on the box B × X of states and inputs the data reach is < 1, then every point "
              "of B × X has ‖∂s_t/∂s_(t−1)‖_∞,η ≤ c < 1 and ‖∂s_t/∂s_(t−1)‖₂ ≤ ‖M‖₂ (M ≥ |∂F/∂s| entrywise on the "
              "box): every step contracts where the data go (tanh/relu RNN, IndRNN, GRU, LSTM; every layer)",
    assumptions=(A_DATA_RATE,),
    measure=f"‖∂F/∂s‖_∞,η and ‖∂F/∂s‖₂ by autograd at up to {N_TRAJECTORY} of the trajectory's points and "
            f"{N_POINTS} random points of B × X (a third at corners of B; fewer above {LARGE} states), each layer's "
            "own state",
    bound="c (weighted ℓ∞, Perron weight η) and ‖M‖₂",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=_sample,
                    sizes={"quick": [(1, 4), (3, 6)], "full": [(1, 4), (3, 6), (8, 12), (24, 20)]},
                    free=vanilla_free, project=_project, starts=_starts,
                    from_model=lambda view: arch_cases_from_model(view, DATA_KINDS,
                                                                  what="the local certificate on the data")),
    explanation="Would mean the interval bounds on the gates' pre-activations, or the Jacobian bound M built from "
                "them, are not bounds on the box.",
    notes="Holds; equality at a fixed point where the box is one point (tanh RNN at 0 with W = 0.9·I). A sufficient "
          "condition only. The box is per input sequence (one case per sequence in the audit), and it is not "
          "forward invariant: it certifies the steps where the data go, not every trajectory.",
    supremum=Supremum(1.0, "a tanh RNN resting at its fixed point 0 with W = 0.9·I: the box is a point and J = 0.9·I "
                           "(structured start)", at=(3, 6)),
)
