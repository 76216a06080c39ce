"""Synthetic sequence tasks, generated on the fly from a seed.

Every generator has the signature ``f(batch, T, *, generator=None, ...) -> (x, y)``, draws only
from the CPU ``torch.Generator`` it is given (the global RNG if None) and returns CPU tensors.
:data:`TASKS` maps a task name to its generator and :func:`task_baseline` gives the loss of the
trivial predictor the papers compare against.

========== ============================ ================================ ==========================
name       x                            y                                baseline (loss)
========== ============================ ================================ ==========================
adding     (B, T, 2) float              (B,) float                       1/6 (MSE)
copy       (B, T+20) int64 in 0..9      (B, T+20) int64 in 0..8          10 ln 8 / (T+20) (CE)
denoise    (B, T+20) int64 in 0..10     (B, T+20) int64 in 0..9          10 ln 9 / (T+20) (CE)
parenthesis (B, T) int64 in 0..6        (B, T, 3) int64 in 0..5          Markov-chain formula (MSE)
========== ============================ ================================ ==========================

The token tasks return ``x`` as class indices; ``one_hot=True`` returns the one-hot float form
(B, L, n_tokens) instead, which is what the papers feed the cells (an embedding layer in srnn.md).
"""

from __future__ import annotations

import math
import numbers

import torch
from torch import Tensor

__all__ = ["addition_problem", "ADDITION_BASELINE_MSE", "copy_task", "denoise_task", "parenthesis_task",
           "parenthesis_count_distribution", "COPY_N_TOKENS", "COPY_N_CLASSES", "DENOISE_N_TOKENS",
           "DENOISE_N_CLASSES", "PARENTHESIS_TOKENS", "TASKS", "task_baseline"]

#: MSE of always predicting the target mean 1 (sgornn.md Sec. 3.1, "approximately 0.167"):
#: Var(u_i + u_j) = 2/12 for u ~ U[0, 1].
ADDITION_BASELINE_MSE = 1 / 6

#: Copy task alphabet: 0 blank, 1..8 data symbols, 9 delimiter (srnn.md a_9, a_{1..8}, a_10).
COPY_N_TOKENS = 10
#: Copy task output classes: 0 blank and the 8 data symbols (the delimiter is never a target).
COPY_N_CLASSES = 9
#: Denoise alphabet: 0 noise, 1..9 data points, 10 marker (nc_gru.md Sec. 4.2, n = 9).
DENOISE_N_TOKENS = 11
#: Denoise output classes: 0 and the 9 data symbols.
DENOISE_N_CLASSES = 10
#: Parenthesis alphabet of NC-GRU's released task code: three bracket pairs, then one noise symbol.
PARENTHESIS_TOKENS = "()[]{}a"

_ADDING_VARIANTS = ("sgornn", "enrnn", "nc_gru")


def _check_sizes(batch: int, T: int, min_T: int = 1) -> None:
    if isinstance(batch, bool) or not isinstance(batch, numbers.Integral) or batch < 1:
        raise ValueError(f"batch must be an int >= 1, got {batch!r}")
    if isinstance(T, bool) or not isinstance(T, numbers.Integral) or T < min_T:
        raise ValueError(f"T must be an int >= {min_T}, got {T!r}")


def _maybe_one_hot(x: Tensor, n_tokens: int, one_hot: bool, dtype: torch.dtype | None) -> Tensor:
    if not one_hot:
        return x
    return torch.nn.functional.one_hot(x, n_tokens).to(dtype or torch.get_default_dtype())


def addition_problem(batch: int, T: int, *, generator: torch.Generator | None = None,
                     dtype: torch.dtype = torch.float64, variant: str = "sgornn") -> tuple[Tensor, Tensor]:
    """The addition problem (sgornn.md Sec. 3.1, eq. 10).

    x_t = (u_t, c_t) with u_t ~ U[0, 1] i.i.d. and c_t = 1 at one position i uniform in
    [1, T/2] and one j uniform in (T/2, T], 0 elsewhere; target y = u_i + u_j. For T = 1 the
    single step is the only marker (y = u_1).

    Variants (the papers describe the same task with small differences):

    - ``"sgornn"`` (default; srnn.md Sec. 4 "Adding Problem" reads the same): 0-based
      i ∈ [0, ⌊T/2⌋), j ∈ [⌊T/2⌋, T), channels (u_t, c_t).
    - ``"enrnn"``: enrnn.md Sec. 5.1 puts the markers in "[1, T/2)" and "[T/2, T)"; read 0-based
      as in the common uRNN-lineage generator, i ∈ [0, ⌊T/2⌋), j ∈ [⌈T/2⌉, T). Identical to
      ``"sgornn"`` (same draws) for even T; for odd T the middle step never holds a marker.
      Needs T ≥ 2.
    - ``"nc_gru"``: nc_gru.md Sec. 4.3 puts the markers in the first dimension and the values in
      the second, so x_t = (c_t, u_t); positions as ``"sgornn"``.

    All variants have E[y] = 1 and Var[y] = 1/6 for T ≥ 2, hence :data:`ADDITION_BASELINE_MSE`.

    Args:
        batch: number of sequences ≥ 1. T: length ≥ 1.
        generator: CPU torch.Generator (global RNG if None).
        dtype: of x and y.
        variant: ``"sgornn"``, ``"enrnn"`` or ``"nc_gru"``.

    Returns:
        x of shape (batch, T, 2) and y of shape (batch,), on the CPU.

    Raises:
        ValueError: batch < 1, T < 1 (T < 2 for ``"enrnn"``), unknown variant.
    """
    if variant not in _ADDING_VARIANTS:
        raise ValueError(f"variant must be one of {_ADDING_VARIANTS}, got {variant!r}")
    _check_sizes(batch, T, 2 if variant == "enrnn" else 1)
    u = torch.rand(batch, T, generator=generator, dtype=torch.float64)
    c = torch.zeros(batch, T, dtype=torch.float64)
    half = max(T // 2, 1)
    second = (T + 1) // 2 if variant == "enrnn" else half
    rows = torch.arange(batch)
    c[rows, torch.randint(0, half, (batch,), generator=generator)] = 1
    if T > 1:
        c[rows, second + torch.randint(0, T - second, (batch,), generator=generator)] = 1
    y = (u * c).sum(dim=1)
    channels = [c, u] if variant == "nc_gru" else [u, c]
    return torch.stack(channels, dim=-1).to(dtype), y.to(dtype)


def copy_task(batch: int, T: int, *, generator: torch.Generator | None = None, n_copy: int = 10,
              n_symbols: int = 8, one_hot: bool = False, dtype: torch.dtype | None = None) -> tuple[Tensor, Tensor]:
    """Copying memory task, length T + 20 (srnn.md Sec. 4 "Copying Memory Problem"; nc_gru.md
    Sec. 4.4; enrnn.md Sec. 5.2).

    x = [s_1..s_10, blank × (T−1), delimiter, blank × 10] with s_k uniform on the data symbols
    1..8, blank 0 and delimiter 9; y = [blank × (T+10), s_1..s_10]. This is srnn.md's exact
    description and the generator of the uRNN line of work whose baselines the papers quote.
    The prose of the other two papers places the delimiter differently: nc_gru.md has "T zeros
    and a digit 9, which marks the start of a string of 9 zeros" (delimiter at the first output
    step), and enrnn.md "the marker digit 9, a sequence of T zeros, and another marker digit 9",
    which adds up to T + 12, not the T + 20 it states. All three state length T + 20 and the
    baseline 10 ln 8 / (T + 20), which depends only on the length and the 10 final targets.

    Args:
        batch: ≥ 1. T: delay ≥ 1 (sequence length T + 2·n_copy).
        generator: CPU torch.Generator.
        n_copy: symbols to copy (10 in all three papers). n_symbols: data alphabet size (8).
        one_hot: return x as one-hot floats of width n_symbols + 2.
        dtype: float dtype of the one-hot x (default dtype if None); ignored otherwise.

    Returns:
        x: (batch, T + 2·n_copy) int64 tokens in [0, n_symbols + 1], or (batch, T + 2·n_copy,
        n_symbols + 2) floats if ``one_hot``. y: (batch, T + 2·n_copy) int64 classes in
        [0, n_symbols].

    Raises:
        ValueError: batch < 1, T < 1, n_copy < 1, n_symbols < 1.
    """
    _check_sizes(batch, T)
    if n_copy < 1 or n_symbols < 1:
        raise ValueError(f"n_copy and n_symbols must be >= 1, got n_copy={n_copy}, n_symbols={n_symbols}")
    length = T + 2 * n_copy
    s = torch.randint(1, n_symbols + 1, (batch, n_copy), generator=generator)
    x = torch.zeros(batch, length, dtype=torch.int64)
    x[:, :n_copy] = s
    x[:, n_copy + T - 1] = n_symbols + 1
    y = torch.zeros(batch, length, dtype=torch.int64)
    y[:, -n_copy:] = s
    return _maybe_one_hot(x, n_symbols + 2, one_hot, dtype), y


def denoise_task(batch: int, T: int, *, generator: torch.Generator | None = None, n_data: int = 10,
                 n_symbols: int = 9, one_hot: bool = False, dtype: torch.dtype | None = None) -> tuple[Tensor, Tensor]:
    """Denoise task, length T + 20 (nc_gru.md Sec. 4.2, after Jing et al., 2019).

    The first T + 9 steps are noise (token 0) except n_data = 10 randomly located data points
    drawn uniformly from the symbols 1..9; then the marker 10 and 10 noise steps. The target is
    0 for the first T + 10 steps and then the data points in their input order. nc_gru.md's
    dictionary {a_i}, i = 0..n+1, has n data symbols plus "noise" and "marker"; the released
    code (GORU's ``denoise_data``, reused by NC-GRU) uses n = 9 and this layout.

    Difference from that code, on purpose: it draws the positions *with* replacement
    (``np.random.choice(T + 9, 10)``), so a collision silently hides a data point that the target
    still asks for; here the 10 positions are distinct, as the paper's "10 randomly located data
    points" says.

    Args:
        batch: ≥ 1. T: ≥ 1 (sequence length T + 2·n_data).
        generator: CPU torch.Generator.
        n_data: data points per sequence (10). n_symbols: data alphabet size n (9).
        one_hot: return x as one-hot floats of width n_symbols + 2. dtype: their float dtype.

    Returns:
        x: (batch, T + 2·n_data) int64 tokens in [0, n_symbols + 1] (or one-hot floats);
        y: (batch, T + 2·n_data) int64 classes in [0, n_symbols].

    Raises:
        ValueError: batch < 1, T < 1, n_data < 1, n_symbols < 1.
    """
    _check_sizes(batch, T)
    if n_data < 1 or n_symbols < 1:
        raise ValueError(f"n_data and n_symbols must be >= 1, got n_data={n_data}, n_symbols={n_symbols}")
    span = T + n_data - 1
    length = T + 2 * n_data
    s = torch.randint(1, n_symbols + 1, (batch, n_data), generator=generator)
    # The first n_data entries of a uniform random permutation form a uniform random subset.
    positions = torch.rand(batch, span, generator=generator).argsort(dim=1)[:, :n_data].sort(dim=1).values
    x = torch.zeros(batch, length, dtype=torch.int64)
    x.scatter_(1, positions, s)
    x[:, span] = n_symbols + 1
    y = torch.zeros(batch, length, dtype=torch.int64)
    y[:, -n_data:] = s
    return _maybe_one_hot(x, n_symbols + 2, one_hot, dtype), y


def parenthesis_task(batch: int, T: int, *, generator: torch.Generator | None = None, n_types: int = 3,
                     max_count: int = 5, n_noise: int = 1, one_hot: bool = False,
                     dtype: torch.dtype | None = None) -> tuple[Tensor, Tensor]:
    """Parenthesis counting task (nc_gru.md Sec. 4.1, after Foerster et al., 2016 and Jing et
    al., 2019).

    Each x_t is uniform over 2·n_types + n_noise tokens: token 2k opens and 2k + 1 closes
    bracket type k, the last n_noise tokens are noise. The target y_{t,k} is the number of
    unmatched open brackets of type k after step t, saturating: an opening adds 1 up to
    max_count, a closing removes 1 down to 0. Defaults are those of NC-GRU's released code
    (types "()[]{}", one noise symbol, max_count = 5, i.e. 6 count classes per type); the
    paper's text only says "not more than 10 types". That code trains with the squared error
    between the readout and one_hot(y) (``implied_activation_fn="identity"``), which is the loss
    :func:`task_baseline` uses by default.

    Args:
        batch: ≥ 1. T: ≥ 1.
        generator: CPU torch.Generator.
        n_types: bracket types ≥ 1. max_count: saturation level ≥ 1. n_noise: noise symbols ≥ 0.
        one_hot: return x as one-hot floats. dtype: their float dtype.

    Returns:
        x: (batch, T) int64 tokens in [0, 2·n_types + n_noise) (or one-hot floats);
        y: (batch, T, n_types) int64 counts in [0, max_count].

    Raises:
        ValueError: batch < 1, T < 1, n_types < 1, max_count < 1, n_noise < 0.
    """
    _check_sizes(batch, T)
    if n_types < 1 or max_count < 1 or n_noise < 0:
        raise ValueError(f"need n_types >= 1, max_count >= 1, n_noise >= 0; got {n_types}, {max_count}, {n_noise}")
    n_tokens = 2 * n_types + n_noise
    x = torch.randint(0, n_tokens, (batch, T), generator=generator)
    opening = 2 * torch.arange(n_types)
    xt = x.T.unsqueeze(-1)
    # A step opens or closes at most one type, so one clamp to [0, max_count] implements both the
    # saturation and the floor; time-major storage keeps each step's slice contiguous.
    delta = (xt == opening).to(torch.int64) - (xt == opening + 1).to(torch.int64)
    counts = torch.zeros(batch, n_types, dtype=torch.int64)
    y = torch.empty(T, batch, n_types, dtype=torch.int64)
    for t in range(T):
        counts = (counts + delta[t]).clamp_(0, max_count)
        y[t] = counts
    return _maybe_one_hot(x, n_tokens, one_hot, dtype), y.transpose(0, 1).contiguous()


def parenthesis_count_distribution(T: int, *, n_types: int = 3, max_count: int = 5, n_noise: int = 1) -> Tensor:
    """Marginal law of one type's count y_{t,k} in :func:`parenthesis_task`, t = 1..T.

    The count is a lazy birth-death chain on {0..max_count} started at 0: up with probability
    p = 1/(2·n_types + n_noise) (staying at max_count), down with probability p (staying at 0),
    unchanged otherwise; π_t = e_0 Pᵗ.

    Returns:
        (T, max_count + 1) float64 tensor, row t−1 is π_t.

    Raises:
        ValueError: T < 1 or bad task parameters.
    """
    _check_sizes(1, T)
    if n_types < 1 or max_count < 1 or n_noise < 0:
        raise ValueError(f"need n_types >= 1, max_count >= 1, n_noise >= 0; got {n_types}, {max_count}, {n_noise}")
    p = 1.0 / (2 * n_types + n_noise)
    K = max_count + 1
    P = torch.zeros(K, K, dtype=torch.float64)
    for c in range(K):
        P[c, min(c + 1, max_count)] += p
        P[c, max(c - 1, 0)] += p
        P[c, c] += 1 - 2 * p
    pi = torch.zeros(K, dtype=torch.float64)
    pi[0] = 1
    rows = []
    for _ in range(T):
        pi = pi @ P
        rows.append(pi)
    return torch.stack(rows)


#: name -> generator ``f(batch, T, *, generator=None, **task_kwargs) -> (x, y)``.
TASKS = {
    "adding": addition_problem,
    "copy": copy_task,
    "denoise": denoise_task,
    "parenthesis": parenthesis_task,
}


def task_baseline(name: str, T: int, **task_kwargs) -> float:
    """Loss of the trivial predictor each paper uses as the bar to beat, for sequence length T.

    - ``adding``: MSE of always predicting E[y] = 1, = Var(u_i + u_j) = 2 · 1/12 = 1/6
      (sgornn.md Sec. 3.1, srnn.md, enrnn.md Sec. 5.1: "0.167"). Needs T ≥ 2.
    - ``copy``: cross-entropy per step, averaged over all T + 20 steps, of the predictor that is
      certain of "blank" for the first T + 10 targets (loss 0) and uniform over the 8 symbols for
      the last 10 (loss ln 8 each): 10 ln 8 / (T + 20) (srnn.md, nc_gru.md Sec. 4.4, enrnn.md
      Sec. 5.2). With other ``n_copy``/``n_symbols``: n_copy · ln(n_symbols) / (T + 2·n_copy).
    - ``denoise``: the same argument with 9 data symbols: 10 ln 9 / (T + 20). nc_gru.md gives no
      formula; this is the constant printed by the task code NC-GRU reused (GORU's
      ``denoise_task.py``: ``np.log(9) * 10 / (T + 20)``).
    - ``parenthesis``: nc_gru.md defines no baseline. We use the best predictor that sees t but
      not x: it outputs π_t, the law of the count (:func:`parenthesis_count_distribution`).
      With ``loss="mse"`` (default; the released code's squared error against one_hot(y),
      averaged over the max_count + 1 outputs) its loss is (1/T) Σ_t (1 − ‖π_t‖²)/(max_count+1);
      with ``loss="ce"`` it is the mean entropy (1/T) Σ_t H(π_t) in nats.

    Args:
        name: a key of :data:`TASKS`. T: sequence length parameter of that task.
        task_kwargs: the generator's own keyword arguments that change the baseline
            (``n_copy``, ``n_symbols``, ``n_data``, ``n_types``, ``max_count``, ``n_noise``), plus
            ``loss`` for ``parenthesis``; others are ignored.

    Returns:
        the baseline loss (float).

    Raises:
        ValueError: unknown name, T below the task's minimum, unknown ``loss``.
    """
    if name not in TASKS:
        raise ValueError(f"name must be one of {sorted(TASKS)}, got {name!r}")
    if name == "adding":
        _check_sizes(1, T, 2)
        return ADDITION_BASELINE_MSE
    _check_sizes(1, T)
    if name == "copy":
        n, k = task_kwargs.get("n_copy", 10), task_kwargs.get("n_symbols", 8)
        return n * math.log(k) / (T + 2 * n)
    if name == "denoise":
        n, k = task_kwargs.get("n_data", 10), task_kwargs.get("n_symbols", 9)
        return n * math.log(k) / (T + 2 * n)
    loss = task_kwargs.get("loss", "mse")
    if loss not in ("mse", "ce"):
        raise ValueError(f"loss must be 'mse' or 'ce' for the parenthesis task, got {loss!r}")
    pi = parenthesis_count_distribution(T, **{k: v for k, v in task_kwargs.items()
                                              if k in ("n_types", "max_count", "n_noise")})
    if loss == "mse":
        return ((1 - (pi ** 2).sum(dim=1)) / pi.shape[1]).mean().item()
    return (-(pi * torch.log(pi.clamp_min(1e-300))).sum(dim=1)).mean().item()
