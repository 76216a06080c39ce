"""Shared plumbing of the contraction certificates: each layer of a case as a certificate over its boxes
(:mod:`rnnaudit.analysis.contraction`, the one engine), the rounding allowance of two compared trajectories,
the samplers and projections that keep a case inside the certificates' hypotheses.

Every certificate here is a sufficient condition only: a rate ≥ 1 says the argument does not apply, never
that the layer fails to contract.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.analysis.contraction import Box, ContractionCertificate, certify, data_box, perron_weight, reachable_box
from collections import OrderedDict

from rnnaudit.bounds.architectures import ArchCase, _case_key, layer_cases, sample_arch, trajectory

__all__ = ["absolute_certificate", "box_certificate", "data_certificate", "input_box", "weighted_distance",
           "gated_rounding", "rounding_allowance", "sample_certified", "project_certified", "MARGIN", "GATED_KINDS", "DATA_KINDS"]

#: kinds with a bounded invariant box (contraction.gated_box)
GATED_KINDS = ("rnn_tanh", "gru", "lstm")
#: kinds the local certificate on the data covers (contraction.data_box)
DATA_KINDS = ("rnn_tanh", "rnn_relu", "indrnn", "gru", "lstm")
#: a projected case sits this far below rate 1, so "rate < 1" stays strict after rounding
MARGIN = 1e-6


def input_box(layer: ArchCase) -> Box:
    """The box of the layer's inputs along the case's sequence (per coordinate min and max)."""
    x = layer.x.detach().to(torch.float64)
    return Box(x.amin(0), x.amax(0))


def absolute_certificate(layer: ArchCase) -> tuple[Tensor, float, float]:
    """(η, ‖|W|‖_{∞,η}, ρ(|W|)) of a vanilla layer (|u| on the diagonal for IndRNN): the rate that holds for
    every state and input, since each activation's slope lies in [0, 1]."""
    M = layer.recurrent_matrix(0).detach().to(torch.float64).abs()
    return perron_weight(M)


#: certificates kept per distinct layer content (the assumption and the measurement read the same one)
_MEMO: OrderedDict = OrderedDict()
_MEMO_SIZE = 16


def _memo(name: str, layer: ArchCase, compute):
    key = _case_key(layer)
    if key is None:
        return compute(layer)
    key = (name,) + key
    if key not in _MEMO:
        _MEMO[key] = compute(layer)
        while len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return _MEMO[key]


def _box_certificate(layer: ArchCase) -> ContractionCertificate | None:
    X = input_box(layer)
    w = tuple(t.detach().to(torch.float64) for t in layer.weights[0])
    B = reachable_box(layer.kind, w, X)
    return None if B is None else certify(layer.kind, w, B, X)


def box_certificate(layer: ArchCase) -> ContractionCertificate | None:
    """The layer's certificate over its forward-invariant state box and its inputs' box (None: no bounded
    invariant box, :func:`rnnaudit.analysis.contraction.reachable_box`); computed once per layer content."""
    return _memo("box", layer, _box_certificate)


def _data_certificate(layer: ArchCase) -> ContractionCertificate:
    states = trajectory(layer).detach()
    B, X = data_box(states, layer.x)
    return certify(layer.kind, tuple(t.detach().to(torch.float64) for t in layer.weights[0]), B, X)


def data_certificate(layer: ArchCase) -> ContractionCertificate:
    """The layer's certificate over the box of the states its trajectory visits (h_0 included) and of its
    inputs; computed once per layer content."""
    return _memo("data", layer, _data_certificate)


def weighted_distance(a: Tensor, b: Tensor, eta: Tensor) -> Tensor:
    """‖a − b‖_{∞,η} = max_i |a_i − b_i|/η_i along the last axis (differentiable)."""
    return ((a - b).abs() / eta).amax(-1)


def gated_rounding(layer: ArchCase, x: Tensor, s: Tensor) -> Tensor:
    """A bound on max_i |fl(F(s_t, x_t))_i − F(s_t, x_t)_i| for each evaluated step of a one-layer case: x (T, n)
    and s (T, S) give (T,).

    The pre-activations are sums of k = n + H + 2 terms, off by ≤ γ_k m with m = max_i (|W_ih||x| + |b_ih| +
    |W_hh||h| + |b_hh|)_i (Higham, eq. 3.11). Every activation is 1-Lipschitz and bounded by 1, and a gated step
    combines at most three products of such values with c (GRU: (1 − z)n + zh; LSTM: fc + ig, then o tanh(c)), so
    the pre-activation error reaches the output at most 4(1 + ‖s‖_∞) times; each activation, product and sum adds
    a few ulps of values ≤ 1 + ‖s‖_∞: 32 u (1 + ‖s‖_∞) covers them with margin."""
    w_ih, w_hh, b_ih, b_hh = (w.detach() for w in layer.weights[0])
    x, s = x.detach(), s.detach()
    H = layer.units(0)
    h = s[:, :H]
    u = torch.finfo(torch.float64).eps / 2
    k = x.shape[-1] + H + 2
    rec = h.abs() * w_hh.abs() if layer.kind == "indrnn" else h.abs() @ w_hh.abs().T
    m = (x.abs() @ w_ih.abs().T + b_ih.abs() + rec + b_hh.abs()).amax(-1)
    size = 1 + s.abs().amax(-1)
    return k * u / (1 - k * u) * m * 4 * size + 32 * u * size


def rounding_allowance(rate: float, like: Tensor, per_step_first: Tensor, per_step_other: Tensor) -> Tensor:
    """E_n + E'_n with E_n = rate·E_(n−1) + δ_n: how far two computed trajectories can be from the exact ones in
    the norm the per-step roundings δ (T,) are given in (the exact map contracts at ``rate``); a tensor like
    ``like``."""
    out, E, E_other = [], 0.0, 0.0
    for d1, d2 in zip(per_step_first.tolist(), per_step_other.tolist()):
        E, E_other = rate * E + d1, rate * E_other + d2
        out.append(E + E_other)
    return like.new_tensor(out)


def project_certified(case: ArchCase, rate_of, *, shrink: float = 0.7, tries: int = 12) -> None:
    """Scale every layer's recurrent weights by ``shrink`` until ``rate_of(layer) < 1 − MARGIN`` (at most
    ``tries`` times; None counts as not certified); a case that never gets there is left as it is, and the
    assumption rejects it. A lower layer's change moves the inputs of the layers above, so they are re-read."""
    for k in range(case.layers):
        for _ in range(tries):
            rate = rate_of(layer_cases(case)[k])
            if rate is not None and rate < 1 - MARGIN:
                break
            case.weights[k][1].mul_(shrink)


def _certified(case: ArchCase, rate_of) -> bool:
    for layer in layer_cases(case):
        rate = rate_of(layer)
        if rate is None or rate >= 1:
            return False
    return True


def sample_certified(gen: torch.Generator, h: int, T: int, kinds: tuple, rate_of, fallback, device="cpu",
                     dtype=torch.float64) -> ArchCase:
    """A case of one of ``kinds`` (one or two layers, ‖W_hh‖₂ of each block log-uniform in [0.05, 1.5], inputs
    of scale up to 2) whose every layer ``rate_of`` certifies (< 1 − MARGIN), its recurrent weights shrunk until
    it does (:func:`project_certified`). Some draws cannot be certified by shrinking W_hh (an LSTM's forget gate
    saturated by large inputs); after 8 such draws, ``fallback(h, T, device, dtype)``."""
    for _ in range(8):
        kind = kinds[int(torch.randint(0, len(kinds), (), generator=gen))]
        layers = 2 if float(torch.rand((), generator=gen, dtype=torch.float64)) < 0.3 else 1
        norm = 0.05 * 30 ** float(torch.rand((), generator=gen, dtype=torch.float64))
        case = sample_arch(gen, kind, h, T, layers=layers, norm=norm, device=device, dtype=dtype)
        with torch.no_grad():
            case.x.mul_(2 * float(torch.rand((), generator=gen, dtype=torch.float64)))
            project_certified(case, rate_of)
        if _certified(case, rate_of):
            return case
    return fallback(h, T, device, dtype)
