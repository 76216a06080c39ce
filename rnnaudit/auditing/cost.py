"""What an audit will cost, before it starts: time and peak memory of the step maps the claims share
(:class:`rnnaudit.bounds.architectures.StepMap`) and of the diagnostics, from the sizes alone and a GEMM timed now
on this machine (:func:`rnnaudit.analysis.gemm_seconds`), the kind of estimate ``rnnaudit heatmap`` prints.

The model of the work, in GEMM units (one unit: an S × S by S × S float64 product, S the packed state width):

* the step Jacobians of each sequence: for torch's RNN/GRU/LSTM in closed form
  (:mod:`rnnaudit.analysis.torch_rnn_jacobians`: elementwise passes over G·S² numbers and, per layer above the first,
  one batched product), counted as 1/4 unit per step; for any other cell about 2 units per step (S vector-Jacobian
  products of one step);
* the step norms ‖J_t‖₂: the leaders factorised (a singular value decomposition, about 4 units: 97 ms against
  22 ms for one GEMM at S = 600, one thread), every other step certified below the maximum by a Cholesky test of
  c²I − JᵀJ (:class:`rnnaudit.analysis.norms.PairNorms`: BLAS syrk and LAPACK potrf, about 0.7 unit), counted for
  every step, and the same test for every pair of the schedule whose worst ratio a claim asks;
* the products ∂h_t/∂h_k of the pair schedule (:data:`rnnaudit.bounds.architectures.MAX_STARTS` starts spread over
  [0, T]): 2T units, and (n/S)·2T more for ∂h_t/∂x_s (counted in full: the chains stop early where their ratio can
  no longer be the worst, :meth:`rnnaudit.bounds.step_maps.StepMap.inputs` with a rate; 3 of the GRU(256)'s 30
  products at T = 46);
* each layer of a stack again for the per-layer claims, at (S_l/S)³ of the cost (its step Jacobians are copied from
  the packed map's block, not formed again); the diagnostics per layer: the step norms (a Cholesky test a step,
  0.7 unit, where the claims' map has not certified them), the memory horizon's certified lower bounds carried back
  from each of min(T, 128) end times (2 rows through every step, 2·min(T, 128)·T/S_l units of the layer), and
  min(T, 128) products per lag, each with its norm bounds, over the lags those leave open (counted as :data:`_HORIZON_LAGS`; a
  default-initialised LSTM(150) stack needs 17–18, a longer memory costs more). The Lyapunov exponents read the same
  step Jacobians (a QR of S × 3 per step: not counted); the fixed-point search is not counted.

The claims and diagnostics also step through every sequence in Python (trajectories, the gated boxes, the memory
horizon's rows, the Lyapunov QR steps): about :data:`_STEP_OPS` small torch operations per step of each sequence and
layer, each timed now (a tanh of a 6-wide linear map). At small widths this is nearly all of the time: a GRU(6) on 4
sequences took 12.8 s of CPU at T = 300 and 36.4 s at T = 3000 (2.19 ms per sequence-step, one small operation
10.5 µs, measured together at load 7), while its linear algebra is well under a second.

Memory: what the audit holds at once (8 bytes a number), the largest of three phases, which do not overlap: the
claims on the packed state (J, T·S², per sequence, the schedule's products ∂h_t/∂h_k, pairs·S², and the input
products ∂h_t/∂x_s, pairs·S·n; ∂h_t/∂x_t of a sequence too, T·S·n, where the closed form does not apply), the claims
stated per layer (each layer's J and products, for every sequence; the audit drops them after each claim, Note [a
layer's map beside the packed one] in :mod:`rnnaudit.bounds.step_maps`) and the diagnostics (one layer's J of one
sequence at a time, or of two where they are compared, and the horizon's products, 3·min(T, 128)·S_l²); beside the
largest, the chunks' transients (:data:`_TRANSIENT_BYTES`). Not the interpreter, torch and the imported claims
themselves (about 0.4 GB of resident memory after a first audit).

Measured against the estimate (``benchmarks/bench_audit_real_sizes.py``, one thread, load average 5–6 on 2 cores):
the audit's CPU time was 1.08× the estimate's seconds (before the per-step term above was counted) for GRU(256)
at T = 46 (5.43 s against 5.03 s) and 1.15× for LSTM(150) × 2 at T = 400 (83.9 s against 73.1 s); its wall time on
that loaded machine 2.4–2.9×. The peak memory, recalibrated when the chunks' glibc heap growth was removed: for the
LSTM 1.37 GiB (1.47 GB) of maps estimated against a measured peak resident memory of 1.86 GB, 1.46 GB above the
interpreter's 0.41 GB (the packed map's J 1.15 GB, its products 0.15 GB and input products 0.04 GB, 0.12 GB of
transients and heap); for the GRU 0.23 GB against 0.20 GB above the interpreter's. (Summing the phases, as before, gave
2.5 GiB for the LSTM.) :meth:`AuditCost.describe` calls the time a lower bound and says by how much it has been off.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AuditCost", "audit_cost", "MEASURED_OVER_ESTIMATE"]

#: lags of the memory horizon counted in the estimate (see the module docstring)
_HORIZON_LAGS = 16
#: one Cholesky test of c²I − JᵀJ (syrk, then potrf) in GEMM units (see the module docstring)
_CERTIFY_UNITS = 0.7
#: factorised leaders per question (the maximum, and a worst ratio's leader)
_LEADERS = 2
#: what the measured audits' CPU time was, at most, over the estimate (module docstring)
MEASURED_OVER_ESTIMATE = 1.2
#: one exact spectral norm (singular values of an S × S matrix) in GEMM units (see the module docstring)
_SVD_UNITS = 4.0
#: small torch operations per step of each sequence and layer (see the module docstring): 2.19 ms / 10.5 µs ≈ 209
_STEP_OPS = 200
#: bytes of transients beside the held maps (the norms' and Jacobians' chunk copies, autograd's intermediates, the heap
#: they leave): 128 MiB, measured 0.12 GB at the LSTM(150) × 2 audit's peak (module docstring); or the vectorised
#: Jacobian chunks' intermediates of a cell without the closed form (4·JACOBIAN_CHUNK numbers) where that is more
_TRANSIENT_BYTES = 2 ** 27
#: resident bytes of the interpreter, torch and the imported claims after a first audit (0.405 GB measured), which the
#: line adds to the maps so that it compares with a measured peak resident memory (ru_maxrss)
_INTERPRETER_BYTES = 405 * 10 ** 6


@dataclass(frozen=True)
class AuditCost:
    """The estimate of :func:`audit_cost`.

    Attributes:
        claims: claims put to the model. sequences, T, S: the inputs' count and length, the packed state width.
        gemms: predicted work in GEMM units. seconds: gemms × seconds_per_gemm (measured now) plus step_seconds.
        peak_bytes: predicted peak memory of the maps and the transients beside them (not the interpreter's).
        memory_limit: bytes it is checked against.
        step_seconds: the per-step Python work (sequences · T · layers · :data:`_STEP_OPS` small operations).
    """

    claims: int
    sequences: int
    T: int
    S: int
    gemms: float
    seconds: float
    peak_bytes: int
    memory_limit: int
    step_seconds: float = 0.0

    @property
    def fits(self) -> bool:
        """The predicted peak memory is within the limit."""
        return self.peak_bytes <= self.memory_limit

    def describe(self) -> str:
        """One line for a user."""
        return (f"audit of {self.claims} claims on {self.sequences} sequence(s) of T = {self.T}, state width {self.S}: "
                f"about {self.seconds:.3g} s ({self.seconds - self.step_seconds:.3g} s of linear algebra, "
                f"{self.step_seconds:.3g} s of per-step work; a lower bound: measured audits took up to "
                f"{MEASURED_OVER_ESTIMATE:g}× the linear algebra in CPU time, more on a loaded machine, and the claims' "
                f"fixed start-up, about 10 s, is not counted), peak memory {_gib(self.peak_bytes)} of maps and "
                f"transients, about {_gib(self.peak_bytes + _INTERPRETER_BYTES)} resident with the interpreter "
                f"(limit {_gib(self.memory_limit)} on the maps)")


def _gib(n: int) -> str:
    return f"{n / 2 ** 30:.3g} GiB" if n >= 2 ** 26 else f"{n / 2 ** 20:.3g} MiB"


def audit_cost(cell, T: int, sequences: int, *, claims: int, memory_limit: int | None = None,
               seconds_per_gemm: float | None = None, seconds_per_op: float | None = None) -> AuditCost:
    """The estimate for auditing ``cell`` (a wrapped model, :func:`rnnaudit.wrap`) on ``sequences`` inputs of T steps.

    Args:
        cell: its ``hidden_size`` is the packed state width S, ``input_size`` n; a torch stack's layers are read
            from ``num_layers`` (default 1).
        claims: how many claims the audit puts (for the line). memory_limit: bytes (default
            :func:`rnnaudit.analysis.default_memory_limit`). seconds_per_gemm: the calibration (default: measured
            now, :func:`rnnaudit.analysis.gemm_seconds`). seconds_per_op: one small torch operation (default: timed
            now, :func:`small_op_seconds`).

    Returns:
        :class:`AuditCost`.
    """
    from rnnaudit.analysis import default_memory_limit, gemm_seconds
    from rnnaudit.bounds.architectures import JACOBIAN_CHUNK, MAX_STARTS, pair_schedule

    S, n = int(cell.hidden_size), int(cell.input_size)
    L = int(getattr(cell, "num_layers", 1) or 1)
    S_l = S / L
    pairs = sum(len(ts) for ts in pair_schedule(T, MAX_STARTS).values())
    closed = getattr(cell, "kind", None) in ("rnn", "gru", "lstm") and not getattr(cell, "proj_size", 0)
    jacobians = (0.25 if closed else 2.0) * T
    norms = _CERTIFY_UNITS * (T + pairs) + _SVD_UNITS * _LEADERS
    per_sequence = jacobians + norms + 2 * T + (n / S) * (2 * T + _CERTIFY_UNITS * pairs)
    layers = 0.0 if L == 1 else L * (S_l / S) ** 3 * (norms + 2 * T)  # the Jacobians: the packed map's blocks
    rows = 2 * min(T, 128) * T / max(S_l, 1)
    diagnostics = L * (S_l / S) ** 3 * (0.7 * T + rows + 2 * _HORIZON_LAGS * min(T, 128))
    gemms = sequences * (per_sequence + layers) + min(sequences, 2) * diagnostics
    packed = sequences * (T * S * S + pairs * (S * S + S * n)) + (0 if closed else T * S * n)
    per_layer = 0 if L == 1 else sequences * L * (T * S_l * S_l + pairs * S_l * S_l)
    diagnosed = min(sequences, 2) * T * S_l * S_l + 3 * min(T, 128) * S_l * S_l
    peak = int(8 * max(packed, per_layer, diagnosed) + max(_TRANSIENT_BYTES, 8 * 4 * JACOBIAN_CHUNK))
    rate = seconds_per_gemm if seconds_per_gemm is not None else gemm_seconds(S, S, repeats=2)
    limit = default_memory_limit() if memory_limit is None else int(memory_limit)
    op = seconds_per_op if seconds_per_op is not None else small_op_seconds()
    steps = sequences * T * L * _STEP_OPS * op
    return AuditCost(claims, sequences, T, S, gemms, gemms * rate + steps, peak, limit, steps)


def small_op_seconds() -> float:
    """Seconds of wall time of one small torch operation now (tanh of a 6-wide float64 linear map, the best of 3
    runs of 100), the unit of the audit's per-step work."""
    import torch
    import torch.nn.functional as F

    from rnnaudit.analysis.cost import best_seconds

    W = torch.full((6, 6), 0.1, dtype=torch.float64)
    b = torch.zeros(6, dtype=torch.float64)
    x = torch.zeros(1, 6, dtype=torch.float64)

    def run():
        y = x
        for _ in range(100):
            y = torch.tanh(F.linear(y, W, b))

    return best_seconds(run) / 100
