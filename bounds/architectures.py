"""The standard recurrent architectures as cases of the classic claims: one case type for torch's
``nn.RNN`` (tanh, relu), ``nn.GRU``, ``nn.LSTM`` (one or several layers, and their ``*Cell``), the
vanilla RNN of Pascanu et al. (2013) ``x_t = W σ(x_{t−1}) + W_in u_t + b``, IndRNN
``h_t = relu(W_x x_t + u ⊙ h_{t−1} + b)`` and any other cell (a user's step function), so that the
claims of :mod:`rnnaudit.bounds.pascanu2013`, :mod:`~rnnaudit.bounds.miller_hardt2019`,
:mod:`~rnnaudit.bounds.echo_state` and the seed theorems' extensions speak to the models people train.

The step is written out from the weights (torch's own equations, as :class:`rnnaudit.cells.TorchRecurrent`
states them), so a case is plain tensors the adversarial search can move and a counterexample file
can hold; a test checks it against ``torch.nn`` itself. The packed state is torch's and
TorchRecurrent's: layers in order, for an LSTM all h parts before all c parts.

Sources: torch.nn.RNN/GRU/LSTM documentation (the equations); pascanu2013 eq. (11) (the vanilla
form with σ applied before W); Li et al. 2018, IndRNN (the elementwise recurrence).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.func import jacrev, vmap

from rnnaudit.analysis.norms import spectral as _spectral
from rnnaudit.analysis.norms import vector_norm as _scaled_norm
from rnnaudit.analysis.torch_rnn_jacobians import CLOSED_FORM_KINDS, stacked_step_jacobians
from rnnaudit.bounds.core import NotApplicable

__all__ = ["ArchCase", "KINDS", "VANILLA", "GATED", "arch_step", "trajectory", "step_jacobians", "step_norms",
           "step_products", "layer_cases", "product_norms", "pair_schedule", "MAX_STARTS", "sample_arch",
           "arch_cases_from_model", "spectral", "ACTIVATIONS", "GAMMA", "step_rounding", "STEP_ROUNDING_ULPS",
           "StepMap", "step_map", "shared_maps", "state_words"]

#: case kinds: torch's vanilla RNN (σ inside, h' = σ(W_ih x + b_ih + W_hh h + b_hh)), Pascanu's form
#: (σ before W), IndRNN, torch's GRU and LSTM, and "step": any other cell, measured through its own step.
KINDS = ("rnn_tanh", "rnn_relu", "pascanu_tanh", "pascanu_sigmoid", "indrnn", "gru", "lstm", "step")
#: kinds whose state Jacobian is diag(σ') W or W diag(σ') with one recurrent matrix W per layer
VANILLA = ("rnn_tanh", "rnn_relu", "pascanu_tanh", "pascanu_sigmoid", "indrnn")
GATED = ("gru", "lstm")
#: σ of each vanilla kind
ACTIVATIONS = {"rnn_tanh": torch.tanh, "rnn_relu": torch.relu, "pascanu_tanh": torch.tanh,
               "pascanu_sigmoid": torch.sigmoid, "indrnn": torch.relu}
#: γ = sup |σ'| of each vanilla kind (pascanu2013 Sec. 2.1: 1 for tanh, 1/4 for sigmoid; 1 for relu,
#: whose derivative is 0 or 1); pascanu2013.gamma checks the numbers.
GAMMA = {"rnn_tanh": 1.0, "rnn_relu": 1.0, "pascanu_tanh": 1.0, "pascanu_sigmoid": 0.25, "indrnn": 1.0}


def spectral(M: Tensor) -> Tensor:
    """‖M‖₂ of a matrix or of each in a batch (largest singular value): :func:`rnnaudit.analysis.norms.spectral`,
    the one function every claim computes a spectral norm with."""
    return _spectral(M)


@dataclass
class ArchCase:
    """One input sequence through a standard recurrent architecture given by its weights.

    Attributes:
        kind: one of :data:`KINDS`.
        weights: per layer, torch's ``(weight_ih, weight_hh, bias_ih, bias_hh)`` (gates stacked in
            torch's order: r, z, n for a GRU; i, f, g, o for an LSTM); for ``"indrnn"`` ``weight_hh``
            is the vector u (H,); for Pascanu's form ``(W_in, W_rec, b, 0)``. Empty for ``"step"``.
        x: inputs (T, n). h0: initial packed state (S,).
        cell: for ``"step"``: the float64 cell (:class:`rnnaudit.cells.base.RecurrentCell`) whose step is
            measured; None otherwise (not saved in counterexample files: only constructed cases are).
    """

    kind: str
    weights: tuple
    x: Tensor
    h0: Tensor
    cell: Any = None

    def size(self) -> tuple[int, int]:
        """(S, T): packed state width and length."""
        return self.h0.shape[0], self.x.shape[0]

    @property
    def layers(self) -> int:
        return len(self.weights)

    def units(self, layer: int = 0) -> int:
        """H of a layer."""
        w_hh = self.weights[layer][1]
        return w_hh.shape[0] if self.kind == "indrnn" else w_hh.shape[1]

    def recurrent_matrix(self, layer: int = 0) -> Tensor:
        """W of a vanilla layer (diag(u) for IndRNN)."""
        w = self.weights[layer][1]
        return torch.diag(w) if self.kind == "indrnn" else w


def _layer_step(kind: str, w: tuple, inp: Tensor, h: Tensor, c: Tensor | None) -> tuple[Tensor, Tensor | None]:
    w_ih, w_hh, b_ih, b_hh = w
    if kind in ("rnn_tanh", "rnn_relu"):
        return ACTIVATIONS[kind](w_ih @ inp + b_ih + w_hh @ h + b_hh), None
    if kind.startswith("pascanu"):
        return w_hh @ ACTIVATIONS[kind](h) + w_ih @ inp + b_ih, None
    if kind == "indrnn":
        return torch.relu(w_ih @ inp + w_hh * h + b_ih), None
    gi, gh = w_ih @ inp + b_ih, w_hh @ h + b_hh
    if kind == "gru":
        i_r, i_z, i_n = gi.chunk(3)
        h_r, h_z, h_n = gh.chunk(3)
        r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        return (1 - z) * n + z * h, None
    i, f, g, o = (gi + gh).chunk(4)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def arch_step(case: ArchCase, x_t: Tensor, state: Tensor) -> Tensor:
    """One step on the packed state: x_t (n,), state (S,) → (S,)."""
    if case.kind == "step":
        return case.cell.step(x_t[None], state[None])[0]
    L = case.layers
    H = [case.units(k) for k in range(L)]
    hs = list(state[:sum(H)].split(H))
    cs = list(state[sum(H):].split(H)) if case.kind == "lstm" else [None] * L
    inp, new_h, new_c = x_t, [], []
    for k in range(L):
        h, c = _layer_step(case.kind, case.weights[k], inp, hs[k], cs[k])
        new_h.append(h)
        new_c += [c] if c is not None else []
        inp = h
    return torch.cat(new_h + new_c)


#: Rounding of one evaluated vanilla step, in units u of the dtype: an elementwise activation evaluated to a few
#: ulps of its value (4 covers tanh's and relu's library implementations with margin).
STEP_ROUNDING_ULPS = 4


def step_rounding(case: ArchCase, x_t: Tensor, h: Tensor) -> Tensor:
    """A bound on ‖fl(φ(h, x_t)) − φ(h, x_t)‖₂ for one evaluated step of a one-layer vanilla case (rnn_tanh,
    rnn_relu, indrnn; ρ 1-Lipschitz): the pre-activation a = W_ih x + b_ih + W_hh h + b_hh is a sum of k = n + H + 2
    terms per entry, so |fl(a) − a| ≤ γ_k (|W_ih||x| + |b_ih| + |W_hh||h| + |b_hh|) elementwise (Higham, Accuracy and
    Stability, eq. 3.11), ρ passes that on at most unchanged, and ρ's own evaluation adds
    :data:`STEP_ROUNDING_ULPS` u |ρ(a)|.

    Used by the claims that compare two trajectories, whose difference falls to the level of the states' rounding
    once they merge (about 1e-17 against states of norm 1): there the rounding, not the map, decides the measured
    ratio, and without this allowance a contracting model reads as "exceeded".

    Returns:
        a 0-d tensor (detached), in the units of the state.
    """
    w_ih, w_hh, b_ih, b_hh = (w.detach() for w in case.weights[0])
    x_t, h = x_t.detach(), h.detach()
    u = torch.finfo(h.dtype).eps / 2
    k = x_t.shape[-1] + h.shape[-1] + 2
    gamma = k * u / (1 - k * u)
    rec = w_hh.abs() * h.abs() if case.kind == "indrnn" else w_hh.abs() @ h.abs()
    magnitude = w_ih.abs() @ x_t.abs() + b_ih.abs() + rec + b_hh.abs()
    value = arch_step(case, x_t, h).detach().abs()
    # gradual underflow adds an absolute error of at most half the smallest subnormal to each product and to ρ
    # (Higham eq. 2.8): it decides once two decaying trajectories reach ~1e−300, where the relative terms vanish
    floor = (k + STEP_ROUNDING_ULPS) * torch.finfo(h.dtype).tiny * torch.finfo(h.dtype).eps
    return _scaled_norm(gamma * magnitude + STEP_ROUNDING_ULPS * u * value + floor)


def trajectory(case: ArchCase) -> Tensor:
    """States h_0, …, h_T (T + 1, S). Inside one audit (:func:`~rnnaudit.bounds.step_maps.shared_maps`) computed
    once per case content (:func:`~rnnaudit.bounds.case_keys.shared_trajectory`): the claims run the same model
    sequence some thirty times (a Python loop of T steps each, 3.8 s of an LSTM(150) × 2 audit at T = 400); the
    caller must not write into the tensor returned."""
    from rnnaudit.bounds.case_keys import shared_trajectory

    return shared_trajectory(case, _trajectory)


def _trajectory(case: ArchCase) -> Tensor:
    states = [case.h0]
    for x_t in case.x:
        states.append(arch_step(case, x_t, states[-1]))
    return torch.stack(states)


#: numbers of step Jacobian entries formed by one vectorised jacrev call (2^22 float64: 32 MB, whose autograd
#: intermediates are a few times that)
JACOBIAN_CHUNK = 2 ** 22


def closed_form(case: ArchCase, states: Tensor) -> bool:
    """Whether :func:`step_jacobians` forms the case's Jacobians in closed form (torch's RNN/GRU/LSTM, nothing that
    an ascent differentiates)."""
    return case.kind in CLOSED_FORM_KINDS and not any(t.requires_grad for w in case.weights for t in w) and \
        not case.x.requires_grad and not states.requires_grad


def step_jacobians(case: ArchCase, states: Tensor | None = None, *, state: bool = True,
                   inputs: bool = True) -> tuple[Tensor | None, Tensor | None]:
    """∂h_t/∂h_{t−1} (T, S, S) and ∂h_t/∂x_t (T, S, n), t = 1..T: in closed form for torch's RNN/GRU/LSTM on a case no
    ascent differentiates (:func:`rnnaudit.analysis.torch_rnn_jacobians.stacked_step_jacobians`, equal to autograd to
    rounding), else by autograd (torch.func.jacrev, vectorised over t with vmap; a user's step that vmap cannot run
    is differentiated one step at a time). ``state=False`` or ``inputs=False`` skip the first or the second in the
    closed form (returned as None there; autograd forms both together, and returns both)."""
    states = trajectory(case) if states is None else states
    if closed_form(case, states):
        return stacked_step_jacobians(case.kind, case.weights, case.x, states, state=state, inputs=inputs)
    step = lambda x_t, h: arch_step(case, x_t, h)  # noqa: E731
    S, T = case.size()
    # vmap holds about S vector-Jacobian products of every step at once: chunks of t keep that to JACOBIAN_CHUNK
    # numbers per chunk (a short sequence is one chunk, as before)
    chunk = max(1, JACOBIAN_CHUNK // max(1, S * S))
    try:
        if T <= chunk:
            return vmap(jacrev(step, argnums=(1, 0)))(case.x, states[:-1])
        parts = [vmap(jacrev(step, argnums=(1, 0)))(x, h) for x, h in zip(case.x.split(chunk),
                                                                         states[:-1].split(chunk), strict=True)]
        return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])
    except (RuntimeError, ValueError, TypeError, NotImplementedError):
        if case.kind != "step":
            raise
    pairs = [jacrev(step, argnums=(1, 0))(x_t, h) for x_t, h in zip(case.x, states[:-1], strict=True)]
    return torch.stack([p[0] for p in pairs]), torch.stack([p[1] for p in pairs])


def state_words(case: ArchCase) -> str:
    """The packed state of ``case`` in words, as the audit names states: "h (64)", "h (150), c (150)", or for a
    stack "the packed state [l0.h (150) | l1.h (150) | l0.c (150) | l1.c (150)]"; "state (S)" for a ``step``."""
    if case.kind == "step":
        return f"state ({case.h0.shape[0]})"
    H = [case.units(k) for k in range(case.layers)]
    parts = ["h"] + (["c"] if case.kind == "lstm" else [])
    if case.layers == 1:
        return ", ".join(f"{p} ({H[0]})" for p in parts)
    return "the packed state [" + " | ".join(f"l{k}.{p} ({H[k]})" for p in parts for k in range(case.layers)) + "]"


def layer_cases(case: ArchCase) -> list[ArchCase]:
    """Each layer of a stacked torch model as its own one-layer case: layer l's inputs are layer l − 1's
    states along the sequence (torch's stacking), its h_0 (and c_0) the slice of the packed h_0. The
    lower layers' states stay differentiable in their weights, for the ascent."""
    if case.layers <= 1:
        return [case]
    H = [case.units(k) for k in range(case.layers)]
    states = trajectory(case)[1:]
    out, ranges, inp, start = [], [], case.x, 0
    c_start = sum(H)
    for k in range(case.layers):
        h0 = case.h0[start:start + H[k]]
        ranges.append([(start, start + H[k])])  # layer k's coordinates in the packed state: its h, then its c
        if case.kind == "lstm":
            h0 = torch.cat([h0, case.h0[c_start:c_start + H[k]]])
            ranges[-1].append((c_start, c_start + H[k]))
            c_start += H[k]
        out.append(ArchCase(case.kind, (case.weights[k],), inp, h0))
        inp = states[:, start:start + H[k]]
        start += H[k]
    from rnnaudit.bounds.case_keys import note_layers

    note_layers(case, out, ranges)  # a layer's map then reads its block of the packed map, where that is held
    return out


#: on a model's sequence (``max_starts`` given), at most this many start times k, and lags τ = t − k about two per
#: octave (1, 2, 3, 4, 6, 8, 11, 16, …, and the last): the cost is starts · log T spectral norms of S × S products
#: instead of T²/2; a claim's own cases (T ≤ 12) use every pair.
MAX_STARTS = 4


def pair_schedule(T: int, max_starts: int | None = None) -> dict[int, set[int]]:
    """Start time k → the times t > k at which a pair (k, t) is measured: all pairs when ``max_starts`` is None or
    T ≤ 12, else ``max_starts`` evenly spread starts with lags about two per octave (see :data:`MAX_STARTS`)."""
    if max_starts is None or T <= 12:
        return {k: set(range(k + 1, T + 1)) for k in range(T)}
    starts = sorted({round(i * (T - 1) / max(max_starts - 1, 1)) for i in range(max_starts)})
    lags = {max(1, round(2 ** (i / 2))) for i in range(int(2 * math.log2(T)) + 1)}
    return {k: {k + tau for tau in lags if k + tau <= T} | {T} for k in starts}


def product_norms(J: Tensor, max_starts: int | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """‖J_t ⋯ J_{k+1}‖₂ = ‖∂h_t/∂h_k‖₂ and the product of the factors' norms Π_{j=k+1}^t ‖J_j‖₂, with τ = t − k,
    over the pairs 0 ≤ k < t ≤ T of :func:`pair_schedule`, each (N,).

    Args:
        J: step Jacobians (T, S, S), J[j − 1] = ∂h_j/∂h_{j−1}.
        max_starts: None for every pair; else the schedule's subset (a model's long sequences).
    """
    T, S = J.shape[0], J.shape[1]
    norms = spectral(J)
    eye = torch.eye(S, dtype=J.dtype, device=J.device)
    prods, bounds, taus = [], [], []
    for k, ts in pair_schedule(T, max_starts).items():
        P, b = eye, J.new_ones(())
        for t in range(k + 1, max(ts) + 1):
            P, b = J[t - 1] @ P, b * norms[t - 1]
            if t in ts:
                prods.append(spectral(P))
                bounds.append(b)
                taus.append(t - k)
    if not prods:
        return J.new_zeros(0), J.new_zeros(0), J.new_zeros(0)
    return torch.stack(prods), torch.stack(bounds), torch.tensor(taus, dtype=J.dtype, device=J.device)


#: what the step-map memo (:mod:`rnnaudit.bounds.step_maps`) keeps outside an audit: at most this many maps,
#: holding at most MEMO_NUMBERS numbers together (2^25 float64: 256 MB); a larger one is computed and not kept.
MEMO_SIZE = 8
MEMO_NUMBERS = 2 ** 25


def _draw(gen: torch.Generator) -> float:
    return float(torch.rand((), generator=gen, dtype=torch.float64))


def _scaled(gen: torch.Generator, rows: int, cols: int, norm: float) -> Tensor:
    """A random (rows, cols) matrix with ‖·‖₂ = norm; symmetric when square in a quarter of the draws (the
    attaining case of the product bounds)."""
    A = torch.randn(rows, cols, generator=gen, dtype=torch.float64)
    if rows == cols and _draw(gen) < 0.25:
        A = A + A.mT
    return A * (norm / float(spectral(A)))


def sample_arch(gen: torch.Generator, kind: str, h: int, T: int, *, layers: int = 1, norm: float | None = None,
                n: int = 2, device="cpu", dtype=torch.float64) -> ArchCase:
    """A random case of ``kind`` with ``layers`` layers of H = h units, n inputs, T steps.

    Args:
        norm: ‖W_hh‖₂ of each recurrent block (‖u‖_∞ for IndRNN); default log-uniform in [0.1, 3].
    """
    weights = []
    gates = {"gru": 3, "lstm": 4}.get(kind, 1)
    for layer in range(layers):
        n_in = n if layer == 0 else h
        s = norm if norm is not None else math.exp(math.log(0.1) + (math.log(3.0) - math.log(0.1)) * _draw(gen))
        w_ih = torch.randn(gates * h, n_in, generator=gen, dtype=torch.float64) / math.sqrt(n_in)
        if kind == "indrnn":
            w_hh = (2 * torch.rand(h, generator=gen, dtype=torch.float64) - 1)
            w_hh = w_hh * (s / float(w_hh.abs().max()))
        else:
            w_hh = torch.cat([_scaled(gen, h, h, s) for _ in range(gates)])
        b_ih = torch.randn(gates * h, generator=gen, dtype=torch.float64) * 0.5
        b_hh = torch.zeros(gates * h, dtype=torch.float64) if kind.startswith("pascanu") or kind == "indrnn" else \
            torch.randn(gates * h, generator=gen, dtype=torch.float64) * 0.5
        weights.append(tuple(t.to(device=device, dtype=dtype) for t in (w_ih, w_hh, b_ih, b_hh)))
    S = layers * h * (2 if kind == "lstm" else 1)
    x = torch.randn(T, n, generator=gen, dtype=torch.float64) * math.exp(_draw(gen) * 2 - 1)
    h0 = torch.randn(S, generator=gen, dtype=torch.float64) * 0.5 * (_draw(gen) < 0.5)
    if kind in ("rnn_relu", "indrnn"):
        h0 = h0.abs()
    return ArchCase(kind, tuple(weights), x.to(device=device, dtype=dtype), h0.to(device=device, dtype=dtype))


def _torch_kind(cell) -> str:
    if cell.kind == "rnn":
        return "rnn_tanh" if cell.module.nonlinearity == "tanh" else "rnn_relu"
    return cell.kind


def arch_cases_from_model(view, kinds: tuple[str, ...] = KINDS, *, what: str = "this claim") -> list[ArchCase]:
    """A model (:class:`rnnaudit.bounds.on_model.ModelView`) as :class:`ArchCase` cases, one per input sequence,
    from the zero state, in float64.

    A wrapped ``torch.nn`` RNN/GRU/LSTM (any number of layers, ``*Cell`` too) becomes its weights (the
    parametrized tensors as the module uses them; absent biases as zeros); any other cell, e.g. a user's
    IndRNN step wrapped with ``rnnaudit.wrap(step, input_size=, state_size=)``, becomes a ``"step"`` case
    measured through a float64 copy of its own step.

    Raises:
        NotApplicable: the model's kind is not in ``kinds`` (the message says which kinds ``what`` is
            about), an LSTM with ``proj_size`` (not modelled here), or a cell that cannot be copied to float64.
    """
    from rnnaudit.cells.adapters import TorchRecurrent

    cell = view.cell
    inputs = view.inputs.detach().to(torch.float64)
    if isinstance(cell, TorchRecurrent):
        kind = _torch_kind(cell)
        if kind not in kinds:
            raise NotApplicable(f"{what} is about {', '.join(kinds)} models; the model is torch's {kind}")
        if cell.proj_size:
            raise NotApplicable(f"{what} does not model an LSTM with proj_size = {cell.proj_size}")
        m, H, gates = cell.module, cell.units, {"rnn": 1, "gru": 3, "lstm": 4}[cell.kind]
        weights = []
        for layer in range(cell.num_layers):
            suffix = "" if cell.is_cell else f"_l{layer}"

            def param(name: str, suffix: str = suffix) -> Tensor:
                t = getattr(m, f"{name}{suffix}", None)
                return torch.zeros(gates * H, dtype=torch.float64) if t is None else t.detach().to(torch.float64)
            weights.append(tuple(param(name) for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")))
        return [ArchCase(kind, tuple(weights), x, torch.zeros(cell.hidden_size, dtype=torch.float64))
                for x in inputs]
    if "step" not in kinds:
        raise NotApplicable(f"{what} is about {', '.join(kinds)} models given by their weights; the model's cell is "
                            f"{type(cell).__name__}")
    try:
        cell64 = copy.deepcopy(cell).to(torch.float64)
        for sub in cell64.modules():  # evaluation mode without calling the copy's train() (a user's class may
            sub.training = False      # override it; the library never calls it)
    except (RuntimeError, TypeError, ValueError) as err:
        raise NotApplicable(f"{what} measures a float64 copy of the cell's step, and the cell could not be copied: "
                            f"{' '.join(str(err).split())[:200]}") from None
    return [ArchCase("step", (), x, torch.zeros(cell.hidden_size, dtype=torch.float64), cell64) for x in inputs]


# the step maps, split into their own module (it imports this one); their names stay importable from here
from rnnaudit.bounds.step_maps import (  # noqa: E402
    _MEMO,
    SHARED_NUMBERS,
    StepMap,
    _case_key,
    _memo,
    shared_maps,
    step_map,
    step_norms,
    step_products,
)
