"""enrnn.md, Table 1 (hidden sizes N and "# params" of every model; Tables 2 and 3 repeat the TIMIT and PTB
rows) and the sentences of Sec. 5.2–5.4 that compare parameter counts ("≈ 7 / 6 / 8.5 times more"),
recomputed from the architectures the text describes.

Counting convention, the one the paper's own scoRNN and ENRNN rows satisfy: the skew-symmetric A of the
scaled Cayley map counts its q(q − 1)/2 free entries (counting q² would put the scoRNN rows at 29.8K,
39.7K and 290K and the ENRNN rows at 20K, 37K and 270K), T counts p², W^(C) qp, U nm, the biases n, the
readout kn + k. Task sizes: adding m = 2, k = 1; copying m = 10 tokens, k = 9 classes; TIMIT m = k = 129
(Wisdom et al. 2016's STFT, which Sec. 5.3 follows: a 256-sample window at 8 kHz; the LSTM and scoRNN rows
confirm it); character PTB 50 characters, "a linear embedding layer that maps each input character to R^N"
(50N) and, for ENRNN, "a fixed input weight matrix set to identity" (not trainable). LSTM: four gates,
one bias each (TensorFlow). "≈ X" is read as within 5 % of X.

Two entries do not fit: ENRNN on PTB (310/720) has 893,575 parameters, not ≈ 1016K (12 % fewer), and the
Spectral RNN at n = 60 cannot reach ≈ 15K (at most 7,501 however its reflectors are counted); Sec. 5.4's
"≈ 8.5 times more" then reads 9.6. ``.corrected`` is the table with the recomputed values.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.cells import ENRNN, LSTM, ScoRNN, parameter_count
from rnnaudit.tasks.synthetic import COPY_N_CLASSES, COPY_N_TOKENS

__all__ = ["TableCase", "sample_table_case", "table1", "table1_corrected", "enrnn_count", "lstm_count",
           "scornn_count", "urnn_count", "ornn_count", "spectral_rnn_count", "ROWS", "RATIOS", "APPROX_RTOL",
           "recomputed", "COUNT_TOL"]

#: "≈ X" read as |count − X| ≤ 5 % of X: the rows that fit do so within 3 %, and every reading of the two
#: that do not misses by more than 7 %.
APPROX_RTOL = 0.05
#: Integer identities: |difference| ≤ 1/2 ⇔ equal.
COUNT_TOL = 0.5

ADDING, COPYING, TIMIT, PTB = (2, 1), (COPY_N_TOKENS, COPY_N_CLASSES), (129, 129), (50, 50)


def enrnn_count(q: int, p: int, m: int, k: int, *, coupling: bool, input_trainable: bool = True,
                embedding: int = 0) -> int:
    """ENRNN: q(q − 1)/2 (A) + p² (T) + qp (W^(C)) + nm (U, unless fixed) + n (b) + kn + k (readout) + an
    embedding of ``embedding`` scalars."""
    n = q + p
    return (q * (q - 1) // 2 + p * p + (q * p if coupling else 0) + (n * m if input_trainable else 0) + n
            + k * n + k + embedding)


def scornn_count(n: int, m: int, k: int) -> int:
    """scoRNN: n(n − 1)/2 (A) + nm + n (modReLU bias) + kn + k."""
    return n * (n - 1) // 2 + n * m + n + k * n + k


def lstm_count(n: int, m: int, k: int, *, embedding: int = 0, gates: int = 4) -> int:
    """LSTM, one bias per gate: 4(n(m + n) + n) + kn + k (+ embedding); ``gates`` = 3 is a GRU's count (a wrong
    formula for the tests)."""
    return gates * (n * (m + n) + n) + k * n + k + embedding


_lstm_count = lstm_count


def urnn_count(n: int, m: int, k: int, *, trainable_h0: bool = False) -> int:
    """Full-capacity uRNN (Wisdom et al. 2016): n² (unitary W) + 2nm (complex U) + n (modReLU bias) + 2nk + k
    (readout of [Re h; Im h]) (+ 2n for a trainable complex h₀, as in its reference code)."""
    return n * n + 2 * n * m + n + 2 * n * k + k + (2 * n if trainable_h0 else 0)


def ornn_count(n: int, m: int, k: int, reflections: int, *, full_vectors: bool) -> int:
    """oRNN (Mhammedi et al. 2017) with ``reflections`` Householder vectors, full length n each or the compact
    u_j ∈ R^j (Σ_{j=n−r+1}^{n} j), + nm + n + kn + k."""
    r = reflections
    refl = r * n if full_vectors else r * n - r * (r - 1) // 2
    return refl + n * m + n + k * n + k


def spectral_rnn_count(n: int, m: int, k: int, reflectors: int) -> int:
    """Spectral RNN as its reference code stores it: two r×n reflector matrices, n singular-value parameters,
    nm, n bias, kn + k readout (every stored reflector entry counted, the most generous reading)."""
    return 2 * reflectors * n + n + n * m + n + k * n + k


def recomputed(*, lstm_gates: int = 4, spectral_reflectors: int = 60) -> dict[str, int]:
    """The count of every Table 1 row and of the rows Tables 2–3 repeat, by the convention above. The Spectral
    RNN's reflector count r defaults to N = 60 (its largest count, the most generous reading); Sec. 5.1's
    "r size of 16" gives the corrected row. ``lstm_gates`` ≠ 4: a deliberately wrong LSTM formula."""
    lstm_count = partial(_lstm_count, gates=lstm_gates)
    return {
        "adding, ENRNN N = 160 (96/64, W^(C))": enrnn_count(96, 64, *ADDING, coupling=True),
        "adding, LSTM N = 60": lstm_count(60, *ADDING),
        f"adding, Spectral RNN N = 60 ({spectral_reflectors} reflectors)": spectral_rnn_count(
            60, *ADDING, reflectors=spectral_reflectors),
        "adding, scoRNN N = 170": scornn_count(170, *ADDING),
        "adding, oRNN N = 128 (16 reflections)": ornn_count(128, *ADDING, 16, full_vectors=True),
        "adding, Full uRNN N = 120": urnn_count(120, *ADDING),
        "copying, ENRNN N = 192 (172/20, W^(C))": enrnn_count(172, 20, *COPYING, coupling=True),
        "copying, LSTM N = 68": lstm_count(68, *COPYING),
        "copying, LSTM N = 192": lstm_count(192, *COPYING),
        "copying, scoRNN N = 190": scornn_count(190, *COPYING),
        "copying, Full uRNN N = 128": urnn_count(128, *COPYING),
        "TIMIT, ENRNN N = 468 (374/94, no W^(C))": enrnn_count(374, 94, *TIMIT, coupling=False),
        "TIMIT, LSTM N = 158": lstm_count(158, *TIMIT),
        "TIMIT, LSTM N = 468": lstm_count(468, *TIMIT),
        "TIMIT, scoRNN N = 425": scornn_count(425, *TIMIT),
        "PTB, ENRNN N = 1030 (310/720, W^(C), U = I fixed, embedding 50N)": enrnn_count(
            310, 720, 1030, 50, coupling=True, input_trainable=False, embedding=50 * 1030),
        "PTB, LSTM N = 350 (embedding 50N)": lstm_count(350, 350, 50, embedding=50 * 350),
        "PTB, LSTM N = 1030 (embedding 50N)": lstm_count(1030, 1030, 50, embedding=50 * 1030),
    }


#: Table 1's "# params" per row, in the order of :func:`recomputed` (Tables 2 and 3 repeat the TIMIT and PTB rows).
ROWS = (15_000, 15_000, 15_000, 15_000, 2_600, 15_000, 22_000, 22_000, 158_000, 22_000, 22_000, 200_000, 200_000,
        1_200_000, 200_000, 1_016_000, 1_016_000, 8_600_000)
#: The sentences: (where, larger row, smaller row, stated factor).
RATIOS = (("Sec. 5.2: LSTM N = 192 has ≈ 7 times ENRNN's parameters", 8, 6, 7.0),
          ("Sec. 5.3: LSTM N = 468 has ≈ 6 times ENRNN's parameters", 13, 11, 6.0),
          ("Sec. 5.4: LSTM N = 1030 has ≈ 8.5 times ENRNN's parameters", 17, 15, 8.5))
#: The table as the architectures give it: PTB ENRNN 893,575; Spectral RNN with r = 16 reflectors (Sec. 5.1's
#: "r size of 16"), 2,221.
CORRECTED_ROWS = ROWS[:2] + (2_221,) + ROWS[3:15] + (893_575,) + ROWS[16:]
CORRECTED_RATIOS = RATIOS[:2] + (("Sec. 5.4: LSTM N = 1030 has ≈ 9.6 times ENRNN's parameters", 17, 15, 9.6),)


@dataclass
class TableCase:
    """A random ENRNN/LSTM/scoRNN shape to test the count formulas against the cells: q, p ≥ 0 (q + p ≥ 1),
    m ≥ 1 inputs, coupling."""

    q: int
    p: int
    m: int
    coupling: bool

    def size(self) -> tuple[int, int]:
        """(q + p, 1)."""
        return self.q + self.p, 1


def sample_table_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> TableCase:
    """q uniform in [0, h − 1], p = h − q, m in [1, 10], coupling with probability 1/2."""
    q = int(torch.randint(0, h, (), generator=gen))
    return TableCase(q, h - q, int(torch.randint(1, 11, (), generator=gen)), bool(torch.rand((), generator=gen) < 0.5))


def _t(x: float) -> Tensor:
    return torch.tensor(float(x), dtype=torch.float64)


def _measure(c: TableCase, *, rows=ROWS, ratios=RATIOS, lstm_gates: int = 4,
             spectral_reflectors: int = 60) -> dict[str, tuple[Tensor, ...]]:
    """``lstm_gates`` ≠ 4 is a deliberately wrong LSTM formula (the tests use 3, a GRU's count)."""
    n = c.q + c.p
    cell = ENRNN(c.m, c.q, c.p, coupling=c.coupling, dtype=torch.float64)
    counts = recomputed(lstm_gates=lstm_gates, spectral_reflectors=spectral_reflectors)
    parts = {
        "ENRNN formula = cells.ENRNN's trainable scalars": (
            _t(abs(enrnn_count(c.q, c.p, c.m, 0, coupling=c.coupling and c.q > 0 and c.p > 0) - parameter_count(cell))),
            _t(COUNT_TOL), _t(parameter_count(cell))),
        "LSTM formula = cells.LSTM's trainable scalars": (
            _t(abs(lstm_count(n, c.m, 0) - parameter_count(LSTM(c.m, n, dtype=torch.float64)))), _t(COUNT_TOL),
            _t(lstm_count(n, c.m, 0))),
        "scoRNN formula = cells.ScoRNN's trainable scalars": (
            _t(abs(scornn_count(n, c.m, 0) - parameter_count(ScoRNN(c.m, n, dtype=torch.float64)))), _t(COUNT_TOL),
            _t(scornn_count(n, c.m, 0))),
    }
    names = list(counts)
    for name, value, stated in zip(names, counts.values(), rows):
        if "oRNN" in name:  # the compact reading of the reflections, where it is the closer one
            value = min((value, ornn_count(128, *ADDING, 16, full_vectors=False)), key=lambda v: abs(v - stated))
        if "Full uRNN" in name:  # the reference code's trainable h₀, where it is the closer reading
            n_u, (m_u, k_u) = (120, ADDING) if "adding" in name else (128, COPYING)
            value = min((value, urnn_count(n_u, m_u, k_u, trainable_h0=True)), key=lambda v: abs(v - stated))
        parts[f"Table 1, {name}: {value:,} ≈ {stated:,}"] = (_t(abs(value - stated)), _t(APPROX_RTOL * stated),
                                                             _t(stated))
    values = list(counts.values())
    for text, big, small, factor in ratios:
        r = values[big] / values[small]
        parts[f"{text}: {values[big]:,}/{values[small]:,} = {r:.3g}"] = (_t(abs(r - factor)), _t(APPROX_RTOL * factor),
                                                                          _t(factor))
    return parts


def _exact() -> ExactVerdict:
    """The PTB ENRNN row and Sec. 5.4's factor in exact integer and rational arithmetic."""
    q, p, n = sp.Integer(310), sp.Integer(720), sp.Integer(1030)
    enrnn = q * (q - 1) / 2 + p**2 + q * p + n + 50 * n + 50 * n + 50
    lstm = 4 * (n * (n + n) + n) + 50 * n + 50 + 50 * n
    stated = sp.Integer(1_016_000)
    rel = sp.Abs(enrnn - stated) / stated
    factor = lstm / enrnn
    spectral = 2 * 60 * 60 + 60 + 60 * 2 + 60 + 60 + 1
    tol = sp.Rational(1, 20)
    bad = rel > tol or sp.Abs(factor - sp.Rational(17, 2)) > tol * sp.Rational(17, 2) or sp.Abs(
        spectral - 15000) > tol * 15000
    return ExactVerdict("violated" if bad else "proved",
                        f"PTB ENRNN 310/720: q(q−1)/2 + p² + qp + n + 50n (embedding) + 50n + 50 = {enrnn} against "
                        f"≈ 1016K: |Δ|/1,016,000 = {rel} ≈ {float(rel):.4f}; LSTM N = 1030 = {lstm}, ratio "
                        f"{factor} ≈ {float(factor):.3f} against ≈ 8.5; Spectral RNN N = 60 at most {spectral} "
                        f"against ≈ 15,000")


_TABLE_CASES = CaseSpace(case_type=TableCase, sample=sample_table_case,
                         sizes={"quick": [(1, 1), (2, 1), (7, 1), (20, 1)],
                                "full": [(1, 1), (2, 1), (7, 1), (20, 1), (64, 1)]})

A_SHAPE = Assumption("q, p ≥ 0, q + p ≥ 1, m ≥ 1", lambda c: (
    c.q >= 0 and c.p >= 0 and c.q + c.p >= 1 and c.m >= 1, f"q = {c.q}, p = {c.p}, m = {c.m}"))

table1 = Claim(
    id="enrnn.table1",
    source="enrnn.md, Table 1 (N, # params; repeated in Tables 2 and 3) and Sec. 5.2–5.4 (≈ 7, 6, 8.5 times more "
           "parameters)",
    statement="Each hidden state dimension is adjusted to match the number of trainable parameters: Table 1's "
              "'# params' per model and task; LSTM N = 192, 468, 1030 have ≈ 7, 6, 8.5 times ENRNN's parameters",
    assumptions=(A_SHAPE,),
    measure="parameter counts recomputed from each architecture (module docstring); the formulas cross-checked "
            "against cells.ENRNN, cells.LSTM, cells.ScoRNN at random shapes",
    bound="≈ X read as within APPROX_RTOL = 5 % of X; formulas equal to the cells' counts",
    evaluate=_measure,
    cases=_TABLE_CASES,
    explanation="PTB ENRNN (310/720 with W^(C), identity input, 50N embedding, 50-way readout) has 47,895 + 518,400 "
                "+ 223,200 + 1,030 + 51,500 + 51,550 = 893,575 trainable parameters, 12 % below the ≈ 1016K Tables "
                "1 and 3 give (the LSTM N = 350 it is matched with has 1,016,450); q(q − 1)/2 → q² would still "
                "give only 941,780. The Spectral RNN at N = 60 (m = 2, k = 1) has at most 2·60·60 + 60 + 120 + 60 "
                "+ 61 = 7,501 parameters even if all N² entries of both reflector sets counted (2,221 with the 16 "
                "reflectors of Sec. 5.1; 1,981 by spectral_rnn.md's count), not ≈ 15K. With 893,575, Sec. 5.4's "
                "'≈ 8.5 times' is 8,594,370/893,575 = 9.6. See enrnn.table1.corrected.",
    notes="oRNN: full-length reflection vectors (2,561 ≈ 2.6K; the compact Σ_j j reading gives 2,441); Full uRNN: "
          "the closer of with/without a trainable complex h₀. Rows from other papers in Table 3 (GRU, EURNN, GORU, "
          "oRNN 512, nnRNN 1024) are not recomputed: their sizes come from those papers' setups (reflection counts, "
          "nnRNN's parameterisation), which enrnn.md does not give.",
    exact=_exact,
)

table1_corrected = Claim(
    id="enrnn.table1.corrected",
    source="enrnn.md, Table 1 and Sec. 5.4 with the recomputed PTB ENRNN and Spectral RNN counts (rnnaudit)",
    statement="Table 1 with PTB ENRNN ≈ 894K and Spectral RNN N = 60 ≈ 2.2K; Sec. 5.4: LSTM N = 1030 has ≈ 9.6 "
              "times ENRNN's parameters",
    assumptions=(A_SHAPE,),
    measure=table1.measure,
    bound=table1.bound,
    evaluate=lambda c: _measure(c, rows=CORRECTED_ROWS, ratios=CORRECTED_RATIOS, spectral_reflectors=16),
    cases=_TABLE_CASES,
    explanation="Would mean a count formula disagrees with the cells or another row does not fit.",
    notes="Matching the LSTM N = 350's 1,016,450 parameters with this architecture would need a different split: "
          "q(q − 1)/2 + p² + qp + 103,580 = 1,016,000 at q + p = 1030 has q ≈ 156, p ≈ 874.",
)
