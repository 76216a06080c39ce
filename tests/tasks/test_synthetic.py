"""Synthetic tasks (analysis/tasks.py): layouts, statistics and the baselines the papers quote.

Statistical checks use a fixed seed, so they are deterministic; their tolerances are 5 standard
errors of the estimate, so a correct generator would fail them with probability < 1e-6 for an
arbitrary seed, while a wrong constant (e.g. a variance of 1/12 or a mean of 1/2) is off by far
more than that.
"""

import math

import pytest
import torch
import torch.nn.functional as F

from rnnaudit.tasks.synthetic import (ADDITION_BASELINE_MSE, COPY_N_CLASSES, COPY_N_TOKENS, DENOISE_N_CLASSES,
                                      DENOISE_N_TOKENS, PARENTHESIS_TOKENS, TASKS, addition_problem, copy_task,
                                      denoise_task, parenthesis_count_distribution, parenthesis_task, task_baseline)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _previous_addition_problem(batch, T, generator):
    """The generator as it was before the variants were added (kept as a regression reference)."""
    u = torch.rand(batch, T, generator=generator, dtype=torch.float64)
    c = torch.zeros(batch, T, dtype=torch.float64)
    half = max(T // 2, 1)
    rows = torch.arange(batch)
    c[rows, torch.randint(0, half, (batch,), generator=generator)] = 1
    if T > 1:
        c[rows, half + torch.randint(0, T - half, (batch,), generator=generator)] = 1
    return torch.stack([u, c], dim=-1), (u * c).sum(dim=1)


# ------------------------------------------------------------------------------------------ adding

@pytest.mark.parametrize("T", [1, 2, 7, 50])
def test_addition_default_stream_unchanged(T):
    """bounds/ and figures/ draw their inputs from addition_problem's default; the variants must not
    change that stream (same seed -> bit-identical x and y)."""
    x, y = addition_problem(16, T, generator=gen(3))
    x_ref, y_ref = _previous_addition_problem(16, T, gen(3))
    assert torch.equal(x, x_ref) and torch.equal(y, y_ref)
    assert x.dtype == y.dtype == torch.float64


@pytest.mark.parametrize("T", [2, 9, 64])
def test_sgornn_eq10_two_markers_one_per_half_and_target_sum(T):
    """sgornn.md Sec. 3.1: c has exactly two ones, i in [1, T/2], j in (T/2, T]; y = Σ u_t c_t (eq. 10)."""
    x, y = addition_problem(500, T, generator=gen(1))
    assert x.shape == (500, T, 2) and y.shape == (500,)
    u, c = x[..., 0], x[..., 1]
    assert torch.all((u >= 0) & (u < 1))
    assert torch.all(c.sum(dim=1) == 2)
    half = T // 2
    assert torch.all(c[:, :half].sum(dim=1) == 1) and torch.all(c[:, half:].sum(dim=1) == 1)
    torch.testing.assert_close(y, (u * c).sum(dim=1), rtol=0, atol=0)


def test_addition_target_mean_one_variance_one_sixth():
    """sgornn.md Sec. 3.1 / srnn.md / enrnn.md: predicting the mean y = 1 gives MSE ≈ 0.167 = 1/6.

    y = u_i + u_j with u ~ U[0, 1]: E y = 1, Var y = 2/12. For z = y − 1 (triangular on [−1, 1]),
    E z⁴ = 1/15, so Var z² = 1/15 − 1/36 = 7/180; tolerances are 5 standard errors over B samples.
    """
    B = 200_000
    _, y = addition_problem(B, 8, generator=gen(2))
    z = y - 1
    assert abs(z.mean().item()) < 5 * math.sqrt((1 / 6) / B)
    mse = (z ** 2).mean().item()
    assert abs(mse - ADDITION_BASELINE_MSE) < 5 * math.sqrt((7 / 180) / B)
    assert task_baseline("adding", 8) == ADDITION_BASELINE_MSE == 1 / 6


def test_adding_enrnn_variant_half_open_ranges():
    """enrnn.md Sec. 5.1: first marker in [1, T/2), second in [T/2, T), read 0-based as
    [0, ⌊T/2⌋) and [⌈T/2⌉, T); for odd T the middle step is never marked. For even T the two
    readings agree, and the generator then reproduces the default stream exactly."""
    T = 9
    x, _ = addition_problem(2000, T, generator=gen(4), variant="enrnn")
    c = x[..., 1]
    assert torch.all(c[:, T // 2] == 0)
    assert torch.all(c[:, : T // 2].sum(dim=1) == 1) and torch.all(c[:, (T + 1) // 2:].sum(dim=1) == 1)
    assert c[:, (T + 1) // 2:].sum(dim=0).min() > 0  # every allowed slot of the second half is used
    x_e, y_e = addition_problem(32, 10, generator=gen(5), variant="enrnn")
    x_s, y_s = addition_problem(32, 10, generator=gen(5))
    assert torch.equal(x_e, x_s) and torch.equal(y_e, y_s)


def test_adding_nc_gru_variant_swaps_channels():
    """nc_gru.md Sec. 4.3: markers in the first dimension, values in the second."""
    x_n, y_n = addition_problem(16, 12, generator=gen(6), variant="nc_gru")
    x_s, y_s = addition_problem(16, 12, generator=gen(6))
    assert torch.equal(x_n, x_s.flip(-1)) and torch.equal(y_n, y_s)


# -------------------------------------------------------------------------------------------- copy

@pytest.mark.parametrize("T", [1, 5, 40])
def test_copy_layout_srnn_memcopy(T):
    """srnn.md Sec. 4: 10 symbols from {1..8}, T − 1 blanks, the delimiter, 10 blanks (length T + 20);
    the target is T + 10 blanks followed by the 10 symbols."""
    x, y = copy_task(64, T, generator=gen(7))
    assert x.shape == y.shape == (64, T + 20) and x.dtype == y.dtype == torch.int64
    s = x[:, :10]
    assert torch.all((s >= 1) & (s <= 8))
    assert torch.all(x[:, 10: 9 + T] == 0) and torch.all(x[:, 9 + T] == 9) and torch.all(x[:, T + 10:] == 0)
    assert torch.all(y[:, : T + 10] == 0) and torch.equal(y[:, T + 10:], s)
    assert x.max() < COPY_N_TOKENS and y.max() < COPY_N_CLASSES
    xo, yo = copy_task(64, T, generator=gen(7), one_hot=True, dtype=torch.float64)
    assert xo.shape == (64, T + 20, COPY_N_TOKENS) and xo.dtype == torch.float64
    assert torch.equal(xo.argmax(-1), x) and torch.equal(yo, y)


def _baseline_log_probs(L, n_tail, n_classes, tail_classes):
    """Log-probabilities of the memoryless predictor: certain of class 0, then uniform on tail_classes."""
    p = torch.zeros(L, n_classes, dtype=torch.float64)
    p[: L - n_tail, 0] = 1
    p[L - n_tail:, tail_classes] = 1 / len(tail_classes)
    return p.log()


@pytest.mark.parametrize("T", [1, 100, 1000])
def test_copy_baseline_is_10_ln8_over_T_plus_20(T):
    """srnn.md / nc_gru.md Sec. 4.4 / enrnn.md Sec. 5.2: baseline cross-entropy 10 ln 8 / (T + 20),
    the per-step mean loss of predicting blanks and then a uniform guess over the 8 symbols. The
    predictor's loss on generated data equals the formula exactly (up to float64 rounding)."""
    x, y = copy_task(32, T, generator=gen(8))
    logp = _baseline_log_probs(T + 20, 10, COPY_N_CLASSES, list(range(1, 9))).expand(32, -1, -1)
    ce = F.nll_loss(logp.reshape(-1, COPY_N_CLASSES), y.reshape(-1)).item()
    assert ce == pytest.approx(10 * math.log(8) / (T + 20), rel=1e-12)
    assert task_baseline("copy", T) == pytest.approx(10 * math.log(8) / (T + 20), rel=1e-15)


def test_copy_baseline_matches_nc_gru_table4_lstm_rows():
    """nc_gru.md Table 4 (loss ×10⁻²): the LSTM never leaves the baseline, 2.039 ± 0.001 at T = 1000
    and 1.030 ± 0.001 at T = 2000; 10 ln 8/(T + 20) = 2.0386 and 1.0294 (×10⁻²) agree within the
    table's last digit (±0.001)."""
    assert abs(100 * task_baseline("copy", 1000) - 2.039) <= 0.001
    assert abs(100 * task_baseline("copy", 2000) - 1.030) <= 0.001


# ----------------------------------------------------------------------------------------- denoise

@pytest.mark.parametrize("T", [1, 3, 60])
def test_denoise_layout_nc_gru_sec42(T):
    """nc_gru.md Sec. 4.2: 10 data points from {1..9} at distinct random positions among the first
    T + 9 steps, noise 0 elsewhere, then the marker 10 and 10 noise steps; the target is 0 until the
    marker has passed and then the data points in input order."""
    x, y = denoise_task(256, T, generator=gen(9))
    assert x.shape == y.shape == (256, T + 20) and x.dtype == y.dtype == torch.int64
    head = x[:, : T + 9]
    assert torch.all((head >= 0) & (head <= 9))
    assert torch.all((head > 0).sum(dim=1) == 10)  # distinct positions: no data point is lost
    assert torch.all(x[:, T + 9] == 10) and torch.all(x[:, T + 10:] == 0)
    assert torch.all(y[:, : T + 10] == 0)
    assert torch.equal(head[head > 0].reshape(256, 10), y[:, T + 10:])  # row-major keeps input order
    assert x.max() < DENOISE_N_TOKENS and y.max() < DENOISE_N_CLASSES


def test_denoise_positions_uniform():
    """Each of the T + 9 slots holds a data point with probability 10/(T + 9); 5 binomial standard
    errors per slot."""
    B, T = 20_000, 21
    x, _ = denoise_task(B, T, generator=gen(10))
    freq = (x[:, : T + 9] > 0).double().mean(dim=0)
    p = 10 / (T + 9)
    assert torch.all((freq - p).abs() < 5 * math.sqrt(p * (1 - p) / B))


@pytest.mark.parametrize("T", [1, 200, 400])
def test_denoise_baseline_is_10_ln9_over_T_plus_20(T):
    """The baseline of the denoise code NC-GRU reused: 10 ln 9 / (T + 20), the loss of a predictor
    certain of 0 for T + 10 steps and uniform over the 9 symbols for the last 10."""
    _, y = denoise_task(16, T, generator=gen(11))
    logp = _baseline_log_probs(T + 20, 10, DENOISE_N_CLASSES, list(range(1, 10))).expand(16, -1, -1)
    ce = F.nll_loss(logp.reshape(-1, DENOISE_N_CLASSES), y.reshape(-1)).item()
    assert ce == pytest.approx(10 * math.log(9) / (T + 20), rel=1e-12)
    assert task_baseline("denoise", T) == pytest.approx(ce, rel=1e-12)


# ------------------------------------------------------------------------------------- parenthesis

def test_parenthesis_targets_match_reference_counter():
    """y_{t,k} is the saturating count of unmatched type-k openings (nc_gru.md Sec. 4.1), checked
    against a plain Python counter over the token string."""
    x, y = parenthesis_task(40, 60, generator=gen(12))
    assert x.shape == (40, 60) and y.shape == (40, 60, 3) and x.dtype == y.dtype == torch.int64
    assert x.max() < len(PARENTHESIS_TOKENS)
    for b in range(40):
        counts = {k: 0 for k in range(3)}
        for t, tok in enumerate(x[b].tolist()):
            ch = PARENTHESIS_TOKENS[tok]
            for k, pair in enumerate(("()", "[]", "{}")):
                if ch == pair[0]:
                    counts[k] = min(5, counts[k] + 1)
                elif ch == pair[1]:
                    counts[k] = max(0, counts[k] - 1)
            assert y[b, t].tolist() == [counts[0], counts[1], counts[2]]


def test_parenthesis_count_law_matches_markov_chain():
    """The law π_t of each count is e_0 Pᵗ for the lazy birth-death chain with up/down probability
    1/7; empirical class frequencies over B·3 counts agree within 5 binomial standard errors."""
    B, T = 20_000, 30
    _, y = parenthesis_task(B, T, generator=gen(13))
    pi = parenthesis_count_distribution(T)
    assert pi.shape == (T, 6)
    torch.testing.assert_close(pi.sum(dim=1), torch.ones(T, dtype=torch.float64), rtol=0, atol=1e-12)
    n = B * 3
    freq = torch.stack([torch.bincount(y[:, t].reshape(-1), minlength=6) for t in range(T)]).double() / n
    assert torch.all((freq - pi).abs() <= 5 * torch.sqrt(pi * (1 - pi) / n) + 1e-12)


def test_parenthesis_baseline_is_loss_of_time_only_predictor():
    """task_baseline('parenthesis') is the mean squared error (over the 6 count outputs, as NC-GRU's
    code averages it) of predicting π_t, and the entropy of π_t for loss='ce'. Compared with the
    empirical losses on B sequences: 5 standard errors of the per-sequence mean loss."""
    B, T = 4000, 50
    _, y = parenthesis_task(B, T, generator=gen(14))
    pi = parenthesis_count_distribution(T)
    target = F.one_hot(y, 6).double()
    per_seq = ((pi[None, :, None, :] - target) ** 2).mean(dim=(1, 2, 3))
    se = per_seq.std().item() / math.sqrt(B)
    assert abs(per_seq.mean().item() - task_baseline("parenthesis", T)) < 5 * se
    # Gather log π_t at the observed count (counts with π_t = 0 never occur, so no 0·log 0 terms).
    nll = -pi.log()[torch.arange(T)[None, :, None], y].mean(dim=(1, 2))
    se = nll.std().item() / math.sqrt(B)
    assert abs(nll.mean().item() - task_baseline("parenthesis", T, loss="ce")) < 5 * se


# ---------------------------------------------------------------------------------------- registry

@pytest.mark.parametrize("name", sorted(TASKS))
def test_registry_seed_determinism(name):
    """Every task is a pure function of its generator's seed."""
    a = TASKS[name](8, 12, generator=gen(15))
    b = TASKS[name](8, 12, generator=gen(15))
    c = TASKS[name](8, 12, generator=gen(16))
    assert all(torch.equal(u, v) for u, v in zip(a, b))
    assert not all(torch.equal(u, v) for u, v in zip(a, c))
    assert task_baseline(name, 12) > 0


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="batch"):
        copy_task(0, 5)
    with pytest.raises(ValueError, match="T must"):
        denoise_task(2, 0)
    with pytest.raises(ValueError, match="T must"):
        addition_problem(2, 1, variant="enrnn")
    with pytest.raises(ValueError, match="variant"):
        addition_problem(2, 4, variant="arjovsky")
    with pytest.raises(ValueError, match="max_count"):
        parenthesis_task(2, 4, max_count=0)
    with pytest.raises(ValueError, match="name"):
        task_baseline("mnist", 10)
    with pytest.raises(ValueError, match="T must"):
        task_baseline("adding", 1)
    with pytest.raises(ValueError, match="loss"):
        task_baseline("parenthesis", 10, loss="hinge")
