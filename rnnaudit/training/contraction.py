"""Training until a contraction certificate holds: after every optimizer step, a projection that rescales each
layer's recurrent weights (and, for a gated cell, lowers the update or forget gate's bias where it must) so that
the certificate's rate is at most a target < 1.

Two certificates (:mod:`rnnaudit.bounds.contraction`) can be kept this way:

- ``"weighted_inf"`` (tanh or relu ``nn.RNN``): ρ(|W_hh|) ≤ target. The Perron root is positively homogeneous,
  ρ(|sW|) = s ρ(|W|), so W_hh ← W_hh · target/ρ(|W_hh|) is exact (repeated while float32 rounding leaves it above).
- ``"gated_box"`` (``nn.RNN`` tanh, ``nn.GRU``, ``nn.LSTM``): the certified rate of
  :func:`rnnaudit.analysis.contraction.certify` on the layer's forward-invariant box
  (:func:`rnnaudit.analysis.contraction.reachable_box`) at most the target. The rate is not homogeneous in W_hh:
  as W_hh → 0 it falls to a floor, the largest update gate z̄ (GRU: ∂h'/∂h ⊇ D(z)) or forget gate f̄ (LSTM:
  ∂c'/∂c = D(f)) over the box. Where the floor is above :func:`gate_ceiling` (the target less its distance to 1),
  that gate's recurrent bias is lowered until the gate's largest value over the box, with W_hh = 0, is the ceiling;
  then W_hh is scaled by s from the linear model rate(s) ≈ floor + (rate − floor)s, checked, and repeated.

The boxes: layer 0's inputs lie in ``input_box`` (the data's range, e.g. [0, 1] for the digits); a layer above
reads the states of the one below, which a tanh RNN, GRU (from h_0 ∈ [−1, 1]^H) or LSTM keeps in [−1, 1]^H, so its
input box is [−1, 1]^H. An audit reads each sequence's own, smaller boxes; interval arithmetic is monotone under
inclusion, so its rate is no larger up to the choice of weight (the Perron vector of its own bound, which can
only do better for one matrix; a GRU's two row bounds share one weight): the target's distance to 1 is the margin.

These certificates are sufficient conditions (rnnaudit's own, proofs in bounds/contraction/); a model trained
under the projection is proved to contract, one trained without it is not proved either way.

Source: rnnaudit's own (a projection of each optimizer step onto the certificate's set {rate ≤ target}); the
certificates and their proofs are in :mod:`rnnaudit.bounds.contraction`. The δISS papers that train under weight
conditions (Bonassi, Farina & Scattolini 2021; Terzi et al. 2021) were readable only as abstracts, so no method of
theirs is claimed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from rnnaudit.analysis.contraction import Box, certified_rate, perron_weight, reachable_box

__all__ = ["CERTIFICATES", "TARGET", "kind_of", "layer_weights", "input_boxes", "certificate_rate", "gate_ceiling",
           "project_", "DigitsRun", "train_digits"]

#: the certificates the projection keeps (claim ids contraction.<name>)
CERTIFICATES = ("weighted_inf", "gated_box")
#: default rate kept by the projection: 5 % below 1 leaves room for the audit's per-sequence boxes and rounding
TARGET = 0.95
#: the gate that multiplies the state itself, by kind: its block index in torch's layout (GRU [r | z | n], LSTM
#: [i | f | g | o])
_CARRY_GATE = {"gru": (1, 3), "lstm": (1, 4)}
#: at most this many rate evaluations per layer per projection (each a box and a Perron vector)
MAX_ITERATIONS = 12


def kind_of(rnn: nn.Module) -> str:
    """The layer kind of :data:`rnnaudit.analysis.contraction.KINDS` of a torch ``nn.RNN``/``GRU``/``LSTM``.

    Raises:
        TypeError: another module, a bidirectional one, or an LSTM with ``proj_size``.
    """
    if isinstance(rnn, (nn.RNN, nn.GRU, nn.LSTM)) and not rnn.bidirectional and not getattr(rnn, "proj_size", 0):
        if isinstance(rnn, nn.RNN):
            return "rnn_tanh" if rnn.nonlinearity == "tanh" else "rnn_relu"
        return "gru" if isinstance(rnn, nn.GRU) else "lstm"
    raise TypeError(f"rnn must be a unidirectional torch nn.RNN, nn.GRU or nn.LSTM without proj_size, "
                    f"got {type(rnn).__name__}")


def layer_weights(rnn: nn.Module, k: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Layer ``k``'s (weight_ih, weight_hh, bias_ih, bias_hh) as float64 copies (zeros for absent biases)."""
    w_ih, w_hh = getattr(rnn, f"weight_ih_l{k}"), getattr(rnn, f"weight_hh_l{k}")
    zeros = torch.zeros(w_hh.shape[0], dtype=torch.float64, device=w_hh.device)
    b_ih, b_hh = (getattr(rnn, f"{n}_l{k}", None) for n in ("bias_ih", "bias_hh"))
    return (w_ih.detach().double(), w_hh.detach().double(), zeros if b_ih is None else b_ih.detach().double(),
            zeros if b_hh is None else b_hh.detach().double())


def input_boxes(rnn: nn.Module, input_box: Box) -> list[Box]:
    """Each layer's input box: ``input_box`` (input_size,) for layer 0, [−1, 1]^H above (the range of the states
    of a tanh RNN, GRU or LSTM layer below).

    Raises:
        ValueError: ``input_box`` not of the module's input size.
    """
    if input_box.lo.shape != (rnn.input_size,):
        raise ValueError(f"input_box must have the module's input size {rnn.input_size}, got "
                         f"{tuple(input_box.lo.shape)}")
    one = torch.ones(rnn.hidden_size, dtype=torch.float64)
    lo, hi = input_box.lo.to(torch.float64), input_box.hi.to(torch.float64)
    return [Box(lo, hi)] + [Box(-one, one) for _ in range(rnn.num_layers - 1)]


def certificate_rate(certificate: str, kind: str, w: tuple, inputs: Box) -> float:
    """The certified rate of one layer (math.inf where the certificate has no bounded box).

    ``"weighted_inf"``: ‖|W_hh|‖_∞,η with η the Perron weight (≈ ρ(|W_hh|)); ``"gated_box"``: the rate of
    :func:`rnnaudit.analysis.contraction.certify` on the layer's invariant box for inputs in ``inputs``.

    Raises:
        ValueError: an unknown certificate, or one that does not cover ``kind``.
    """
    if certificate == "weighted_inf":
        if kind not in ("rnn_tanh", "rnn_relu"):
            raise ValueError(f"the weighted_inf certificate covers tanh and relu nn.RNN layers, not {kind}")
        return perron_weight(w[1].abs())[1]
    if certificate == "gated_box":
        if kind not in ("rnn_tanh", "gru", "lstm"):
            raise ValueError(f"the gated_box certificate covers tanh nn.RNN, nn.GRU and nn.LSTM layers, not {kind}")
        box = reachable_box(kind, w, inputs)
        if box is None:
            return math.inf
        try:
            return certified_rate(kind, w, box, inputs)
        except ValueError:  # a bound that is not finite
            return math.inf
    raise ValueError(f"certificate must be one of {CERTIFICATES}, got {certificate!r}")


def gate_ceiling(target: float) -> float:
    """The largest update/forget gate value the projection leaves: the target less its distance to 1
    (0.9 for 0.95), so that the recurrent weights keep room below the target."""
    return 2 * target - 1


def _lower_carry_gate(kind: str, rnn: nn.Module, k: int, inputs: Box, target: float) -> None:
    """Lower the recurrent bias of the update (GRU) or forget (LSTM) gate, per unit, until its largest value over
    the inputs' box, with W_hh h left out, is :func:`gate_ceiling` (what the rate tends to as W_hh → 0)."""
    from rnnaudit.analysis.contraction import affine_interval

    block, blocks = _CARRY_GATE[kind]
    w_ih, _, b_ih, b_hh = layer_weights(rnn, k)
    H = w_ih.shape[0] // blocks
    rows = slice(block * H, (block + 1) * H)
    top = affine_interval(w_ih[rows], b_ih[rows] + b_hh[rows], inputs).hi
    ceiling = math.log(gate_ceiling(target) / (1 - gate_ceiling(target)))
    excess = torch.clamp(top - ceiling, min=0.0)
    bias = getattr(rnn, f"bias_hh_l{k}", None)
    if bias is None:
        raise ValueError(f"layer {k} has no recurrent bias to lower its gate with (bias=False)")
    with torch.no_grad():
        bias[rows] -= excess.to(bias.dtype) * (1 + 1e-6) + 1e-6 * (excess > 0).to(bias.dtype)


def project_(rnn: nn.Module, input_box: Box, *, certificate: str = "gated_box", target: float = TARGET) -> list[float]:
    """Bring every layer's certified rate to at most ``target``, in place (see the module docstring).

    Args:
        rnn: a torch ``nn.RNN``/``GRU``/``LSTM`` (any dtype; changed in place, under no_grad).
        input_box: the box (input_size,) of layer 0's inputs. certificate: one of :data:`CERTIFICATES`.
        target: the rate to keep, in (0, 1).

    Returns:
        each layer's certified rate after the projection (≤ target).

    Raises:
        TypeError: not such a module (:func:`kind_of`). ValueError: a certificate that does not cover the kind,
        a target outside (0, 1), a box of the wrong size, or a layer that the projection could not certify in
        :data:`MAX_ITERATIONS` evaluations (the message gives its rate).
    """
    kind = kind_of(rnn)
    if not 0 < target < 1:
        raise ValueError(f"target must be in (0, 1), got {target!r}")
    rates = []
    for k, X in enumerate(input_boxes(rnn, input_box)):
        weight = getattr(rnn, f"weight_hh_l{k}")
        rate = certificate_rate(certificate, kind, layer_weights(rnn, k), X)
        floor = None
        for _ in range(MAX_ITERATIONS):
            if rate <= target:
                break
            if certificate == "weighted_inf":
                scale = target / rate
            else:
                if floor is None:
                    w = layer_weights(rnn, k)
                    floor = certificate_rate(certificate, kind, (w[0], torch.zeros_like(w[1]), w[2], w[3]), X)
                    if floor >= gate_ceiling(target) and kind in _CARRY_GATE:
                        _lower_carry_gate(kind, rnn, k, X, target)
                        rate = certificate_rate(certificate, kind, layer_weights(rnn, k), X)
                        w = layer_weights(rnn, k)
                        floor = certificate_rate(certificate, kind, (w[0], torch.zeros_like(w[1]), w[2], w[3]), X)
                        continue
                # rate(s) ≈ floor + (rate − floor) s; aim a little below the target so one step usually suffices
                aim = target - 0.05 * (target - min(floor, target))
                scale = max(0.0, (aim - floor) / (rate - floor)) if math.isfinite(rate) else 0.5
            with torch.no_grad():
                weight.mul_(min(scale, 1 - 1e-6))
            rate = certificate_rate(certificate, kind, layer_weights(rnn, k), X)
        if rate > target:
            raise ValueError(f"layer {k}: the projection left the {certificate} rate at {rate:.6g} > target {target}")
        rates.append(rate)
    return rates


@dataclass(frozen=True)
class DigitsRun:
    """A classifier trained on the digits (:func:`train_digits`).

    Attributes:
        rnn: the trained torch module (float32, batch_first, eval mode). head: its linear readout of h_T.
        accuracy: share of the 359 held-out digits classified correctly. rates: each layer's certified rate of
        ``certificate`` after training (None for a run without one). certificate: what the projection kept.
    """

    rnn: nn.Module
    head: nn.Linear
    accuracy: float
    rates: list | None
    certificate: str | None


def train_digits(kind: str = "lstm", *, hidden: int = 16, layers: int = 1, steps: int = 300, lr: float = 1e-2,
                 batch: int = 64, seed: int = 0, certificate: str | None = None, target: float = TARGET,
                 every: int = 1) -> DigitsRun:
    """Train ``nn.RNN``/``GRU``/``LSTM`` + a linear head on scikit-learn's digits, one pixel per step (T = 64,
    pixels in [0, 1]: :func:`rnnaudit.tasks.digits.digits_splits`), Adam, cross-entropy on h_T, float32; with
    ``certificate``, :func:`project_` before the first step, after every ``every``-th optimizer step and after
    the last (input box [0, 1]), so the returned model is certified whatever ``every``.

    Args:
        kind: "rnn_tanh", "gru" or "lstm". hidden, layers: the module's hidden_size and num_layers.
        steps, lr, batch, seed: Adam steps, learning rate, batch size, seed of the initialisation and batches.
        certificate: None (plain training) or one of :data:`CERTIFICATES`. target: the rate kept.
        every: optimizer steps between projections (1: projected training proper; more is cheaper, the
            iterates in between may leave the set).

    Returns:
        :class:`DigitsRun`.

    Raises:
        ValueError: an unknown kind or certificate (or one that does not cover the kind).
        ImportError: scikit-learn missing.
    """
    from rnnaudit.tasks.digits import digits_splits

    modules = {"rnn_tanh": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}
    if kind not in modules:
        raise ValueError(f"kind must be one of {sorted(modules)}, got {kind!r}")
    if certificate is not None and certificate not in CERTIFICATES:
        raise ValueError(f"certificate must be None or one of {CERTIFICATES}, got {certificate!r}")
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ValueError(f"every must be a positive integer, got {every!r}")
    torch.manual_seed(seed)
    data = digits_splits()
    (x, y), (x_test, y_test) = data["train"], data["test"]
    rnn = modules[kind](1, hidden, num_layers=layers, batch_first=True)
    head = nn.Linear(hidden, 10)
    box = Box(torch.zeros(1, dtype=torch.float64), torch.ones(1, dtype=torch.float64))
    if certificate is not None:
        certificate_rate(certificate, kind, layer_weights(rnn, 0), box)  # refuses a certificate the kind lacks
        project_(rnn, box, certificate=certificate, target=target)
    opt = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=lr)
    gen = torch.Generator().manual_seed(seed)
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(x), (batch,), generator=gen)
        loss = nn.functional.cross_entropy(head(rnn(x[idx])[0][:, -1]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if certificate is not None and (step % every == 0 or step == steps):
            project_(rnn, box, certificate=certificate, target=target)
    rnn.eval()
    with torch.no_grad():
        accuracy = (head(rnn(x_test)[0][:, -1]).argmax(1) == y_test).double().mean().item()
    rates = None if certificate is None else [certificate_rate(certificate, kind, layer_weights(rnn, k), X)
                                              for k, X in enumerate(input_boxes(rnn, box))]
    return DigitsRun(rnn, head, accuracy, rates, certificate)
