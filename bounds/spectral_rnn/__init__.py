"""Claims of spectral_rnn.md (Spectral-RNN, Zhang, Lei & Dhillon 2018), one module per statement.

Claims (paper order; module in parentheses; ``.corrected`` forms sit in their original's module):

- ``spectral_rnn.eq1``: Sec. 3 eq. 1 and after, eq. 8, Algorithm 2 (``eq1``)
- ``spectral_rnn.theorem1``: Theorem 1 (App. A.1 Proposition 1, A.2): M_1 = O(n) (``theorem1``)
- ``spectral_rnn.theorem2``: Theorem 2 (App. A.3): M_{1,1} reaches all of ℝ^{n×n} (``theorem2``)
- ``spectral_rnn.dimensions``: Sec. 3–5 dimension counts, reflector-count equivalences (``dimensions``)
- ``spectral_rnn.theorem3``: Theorem 3 (App. A.4, eq. 18–21): O(n) ⊆ M_{k1,k2} (``theorem3``)
- ``spectral_rnn.theorem3_construction``: App. A.4, eq. 18–21 as printed: the zero range drops H_1(a_1)
  (``theorem3_construction``)
- ``spectral_rnn.eq7``: Sec. 4, eq. 6–7: singular values in [σ* − r, σ* + r] (``eq7``)
- ``spectral_rnn.param_count`` (+ ``.corrected``): Sec. 4 parameter count, Tables 2 and 4 (``param_count``)
- ``spectral_rnn.eq13``: Sec. 4.1 eq. 12–13 (``eq13``)
- ``spectral_rnn.sec42``: Sec. 4.2, the flop sentences before Table 1 (``sec42``)
- ``spectral_rnn.table1`` (+ ``.corrected``): Sec. 4.2, Table 1: flop counts (``table1``)
- ``spectral_rnn.lemma1``: Lemma 1 (Sec. 5), as Theorem 4's proof uses it (``lemma1``)
- ``spectral_rnn.theorem4``: Theorem 4 with Lemma 1 (Sec. 5, App. A.5): M^{m,n} (``theorem4``)
- ``spectral_rnn.assumption1`` (+ ``.corrected``): Sec. 6, Assumption 1(b), ReLU/tanh/sigmoid (``assumption1``)
- ``spectral_rnn.theorem5``: Theorem 5, Corollary 1 (Sec. 6, App. A.6) (``theorem5``)
- ``spectral_rnn.addition_baseline``: Sec. 7.1, the addition task's baseline 0.167 (``addition_baseline``)
- ``spectral_rnn.copy_baseline``: Sec. 7.1, the copy task's baseline samples 7 of the 8 symbols (``copy_baseline``)
- ``spectral_rnn.table2``: Sec. 7.2, Table 2 (``table2``)
- ``spectral_rnn.table3``: Sec. 7.3, Table 3 and its sentences (``table3``)
- ``spectral_rnn.proposition1`` (+ ``.corrected``): App. A.1, Proposition 1 (``proposition1``)
- ``spectral_rnn.lemma3``: Lemma 3 (App. A.6): eq. 22 (both readings), eq. 25 (``lemma3``)
- ``spectral_rnn.eq24``: App. A.6, eq. 23–24 (``eq24``)
- ``spectral_rnn.eq26``: App. A.6, eq. 26 and the union bound after it (``eq26``)
- ``spectral_rnn.theorem5_step`` (+ ``.corrected``): App. A.6, "Plugging into Lemma 3" (``theorem5_step``)
- ``spectral_rnn.theorem5_cover`` (+ ``.corrected``): App. A.6, the cover of β̃ (``theorem5_cover``)
- ``spectral_rnn.algorithm1`` (+ ``.corrected``): App. B, Algorithm 1, Hgrad's argument (``algorithm1``)
- ``spectral_rnn.algorithm3`` (+ ``.corrected``): App. B, Algorithm 3 (α from h̄) (``algorithm3``)
- ``spectral_rnn.table4``: App. C.1 depth rule, Table 4 depths and bold marks (``table4``)

Expressivity theorems are checked constructively: the Householder vectors the proofs promise are
computed (Proposition 1 for Theorem 1, with the SVD for Theorems 2 and 4, eq. 18/20 for Theorem 3),
the matrix is rebuilt by ``torch.linalg.householder_product`` (``cells.spectral.reflector_product``)
and by the reflector recurrence of Algorithm 1 (``cells.spectral.householder_forward``), and the
measured quantity is the reconstruction error against a rounding-error tolerance (identity parts
carry ‖truth‖, so the report shows relative errors). Counts (Sec. 4, Table 1, Sec. 4.2, Sec. 3/5
dimensions) also get exact sympy verdicts.

Shared: ``cases`` (case classes, samplers, Assumption 1, eq. 17's states), ``reflectors``
(Proposition 1 and the SVD reflectors, rebuilding, the reconstruction tolerance), ``flops``
(the dispatch-level flop counter behind Table 1) and ``symbolic`` (sympy sums over reflector chains).
"""

from rnnaudit.bounds.core import Finding, Statement
from rnnaudit.bounds.spectral_rnn.addition_baseline import addition_baseline
from rnnaudit.bounds.spectral_rnn.copy_baseline import copy_baseline
from rnnaudit.bounds.spectral_rnn.algorithm1 import algorithm1, algorithm1_corrected
from rnnaudit.bounds.spectral_rnn.algorithm3 import algorithm3, algorithm3_corrected
from rnnaudit.bounds.spectral_rnn.assumption1 import assumption1, assumption1_corrected
from rnnaudit.bounds.spectral_rnn.dimensions import dimensions
from rnnaudit.bounds.spectral_rnn.eq1 import eq1
from rnnaudit.bounds.spectral_rnn.eq7 import eq7
from rnnaudit.bounds.spectral_rnn.eq13 import eq13
from rnnaudit.bounds.spectral_rnn.eq24 import eq24
from rnnaudit.bounds.spectral_rnn.eq26 import eq26
from rnnaudit.bounds.spectral_rnn.lemma1 import lemma1
from rnnaudit.bounds.spectral_rnn.lemma3 import lemma3
from rnnaudit.bounds.spectral_rnn.param_count import param_count, param_count_corrected
from rnnaudit.bounds.spectral_rnn.proposition1 import proposition1, proposition1_corrected
from rnnaudit.bounds.spectral_rnn.sec42 import sec42
from rnnaudit.bounds.spectral_rnn.table1 import table1, table1_corrected
from rnnaudit.bounds.spectral_rnn.table2 import table2
from rnnaudit.bounds.spectral_rnn.table3 import table3
from rnnaudit.bounds.spectral_rnn.table4 import table4
from rnnaudit.bounds.spectral_rnn.theorem1 import theorem1
from rnnaudit.bounds.spectral_rnn.theorem2 import theorem2
from rnnaudit.bounds.spectral_rnn.theorem3 import theorem3
from rnnaudit.bounds.spectral_rnn.theorem3_construction import theorem3_construction
from rnnaudit.bounds.spectral_rnn.theorem4 import theorem4
from rnnaudit.bounds.spectral_rnn.theorem5 import theorem5
from rnnaudit.bounds.spectral_rnn.theorem5_cover import theorem5_cover, theorem5_cover_corrected
from rnnaudit.bounds.spectral_rnn.theorem5_step import theorem5_step, theorem5_step_corrected

__all__ = ["CLAIMS", "COVERAGE"]

#: The claims in the order the paper states them.
CLAIMS = (eq1, theorem1, theorem2, dimensions, theorem3, theorem3_construction, eq7, param_count,
          param_count_corrected, eq13, sec42, table1, table1_corrected, lemma1, theorem4, assumption1,
          assumption1_corrected, theorem5, addition_baseline, copy_baseline, table2, table3, proposition1,
          proposition1_corrected, lemma3, eq24, eq26, theorem5_step, theorem5_step_corrected, theorem5_cover,
          theorem5_cover_corrected, algorithm1, algorithm1_corrected, algorithm3, algorithm3_corrected, table4)

_P = "spectral_rnn."


def _s(label: str, *claims: str, reason: str = "", finding: Finding | None = None) -> Statement:
    return Statement(label, tuple(_P + c for c in claims), reason, finding)


#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    _s("Sec. 1, third contribution (gap bounded through the (T − 1)-th power of ‖W‖, the printed 't-th')", "theorem5",
       reason="Theorem 5's √G(w) carries max{‖W‖^{T−1}, 1}: the (T − 1)-th power, checked as G(w)'s form"),
    _s("eq. (1)", "eq1", reason="read as I_k − 2uuᵀ/‖u‖² (eq. 8, Algorithm 2). Decision: the markdown copy's "
                                "'I_{k−2}uuᵀ' is not counted as the paper's error: it is the conversion's (the "
                                "subscript swallowed '− 2'), and the paper's eq. 8 and Algorithm 2 print the "
                                "reflector; the projector reading is spectral_rnn.eq1's power test"),
    _s("Sec. 3, after eq. (1) (H symmetric, H² = I, eigenvalues 1 and −1, stored as u)", "eq1"),
    _s("eq. (2) (M_k, a product of reflectors, is orthogonal)", "theorem1",
       reason="a definition; its image ⊆ O(n) is what spectral_rnn.theorem1 checks"),
    _s("Theorem 1", "theorem1"),
    _s("eq. (3)", reason="a definition (the SVD parametrisation M_{k1,k2}); its image is Theorems 2–3's subject"),
    _s("Theorem 2", "theorem2"),
    _s("Sec. 3, after Theorem 2 (n² + 2n inputs, n² dimensions)", "dimensions"),
    _s("Theorem 3", "theorem3"),
    _s("Sec. 3, after Theorem 3 ((n − k1 + 1) + (n − k2 + 1) ≥ n, O(n) = M_{k1,k2}(…, 1))", "dimensions", "theorem3"),
    _s("eq. (4)", reason="a definition (the RNN update h^(t) = φ(W h^(t−1) + M x^(t) + b))"),
    _s("eq. (5)", reason="a definition (the readout ŷ^(t) = Y h^(t))"),
    _s("eq. (6)", "eq7", reason="W = H_n … H_{k1} diag(σ) H_{k2} … H_n: its singular values |σ_i|"),
    _s("eq. (7)", "eq7"),
    _s("Sec. 4, first paragraph (m1 = m2 = n as expressive as RNN; m1 + m2 ≥ n, σ = 1 covers O(n))", "theorem2",
       "theorem3", "dimensions", reason="true with σ free (eq. 3); with eq. 7's σ ∈ [σ* − r, σ* + r] the reachable "
                                        "W have singular values in that interval (spectral_rnn.eq7)"),
    _s("Sec. 4, parameter counts of RNN and Spectral-RNN (m1 = m2 = n: (n_y + n_i + n + 3)n)", "param_count",
       "param_count.corrected"),
    _s("Sec. 4 and Sec. 8, 'no more memory' (checked as 2n more parameters), 'same time and space complexity "
       "as RNN'", "param_count",
       "table1.corrected", reason="counts: 2n more parameters at m1 = m2 = n; FP/BP O(n(m1 + m2)) ≤ O(n²), the "
                                  "vanilla order"),
    _s("eq. (8)", "eq1"),
    _s("Sec. 4.1, 'Wh costs O((m1 + m2)n) flops'", "table1", "table1.corrected"),
    _s("eq. (9)–(11)", reason="definitions (∂L/∂u_k, ∂L/∂v_k, ∂L/∂Σ, ∂L/∂Σ̂, ∂L/∂h^(t−1) as Jacobian-transpose "
                              "products)"),
    _s("eq. (12)", "eq13"),
    _s("eq. (13)", "eq13"),
    _s("Sec. 4.2, flop sentences (6k, 3n + 10k; 4k, 3n + 8k; α reuse saves 2k)", "sec42"),
    _s("Table 1", "table1", "table1.corrected"),
    _s("eq. (14)", "theorem4", reason="the reduced SVD W = UΣV_Lᵀ, used in Theorem 4's construction"),
    _s("eq. (15)", reason="a definition (M^{m,n}_{k1,k2}). Decision: its first factor, printed H^n_m, is read H^m_m "
                             "(the only typable one for an m × m factor) without a verdict of its own; the "
                             "statement built on it, Theorem 4, carries its own sign slip (spectral_rnn.theorem4, "
                             "misprinted)"),
    _s("Lemma 1", "lemma1", "theorem4"),
    _s("Theorem 4", "theorem4"),
    _s("Sec. 5, after Theorem 4 (2 min(m, n) reflectors, mn input dimensions)", "dimensions", "theorem4"),
    _s("eq. (16)", reason="a definition (the MLP layer); the displayed W^(t) parametrisation is Theorem 4's map "
                          "with m = n_t < n = n_{t−1}"),
    _s("eq. (17)", reason="a definition (the RNN of Sec. 6 with the bias absorbed in M, h^(0) = 0)"),
    _s("Definition 1", reason="a definition (the margin loss). Decision: that it calls f_w(x)[y] a probability while "
                              "the proof bounds raw outputs Y h^(T) (which spectral_rnn.theorem5 uses) gets no "
                              "verdict: the margin loss is defined for any real scores, so no statement turns on it"),
    _s("Assumption 1", "assumption1", "assumption1.corrected"),
    _s("Assumption 1.1 (Assumption 1(a) as App. A.6 cites it)", "eq24", "lemma3",
       reason="a hypothesis: the predicate ‖x^(t)‖ ≤ B of every RNN claim"),
    _s("Assumption 1.2 (Assumption 1(b) as App. A.6 cites it)", "assumption1", "eq24"),
    _s("Sec. 6, 'ReLU, tanh and sigmoid all satisfy Assumption 1(b)'", "assumption1", "assumption1.corrected"),
    _s("Theorem 5", "theorem5"),
    _s("Sec. 6, 'the generalization gap grows exponentially with ‖W‖'",
       reason="not mapped: spectral_rnn.theorem5 is vacuous and does not measure the gap's growth. Decision: the "
              "sentence's 'exponentially with ‖W‖' is a wording error of the paper (G(w) is a polynomial of degree "
              "2T − 2 in ‖W‖, exponential in T, as theorem5 computes it) that gets no verdict: it motivates Theorem "
              "5 and bounds nothing, and no statement's truth turns on it"),
    _s("Corollary 1", "theorem5"),
    _s("Sec. 6, last paragraph (norms → 0: constant output, gap 0)",
       reason="a qualitative remark: with W, M, Y = 0 the output is 0, L̂_γ = L_0 = 1 and the gap is 0; no bound"),
    _s("Sec. 7.1, addition-task baseline 0.167", "addition_baseline"),
    _s("Sec. 7.1, copy-task baseline", "copy_baseline",
       reason="no number is printed; the baseline samples {a_1, …, a_7} while x_{1:10} is drawn from {a_0, …, a_7}",
       finding=Finding("misprinted", "spectral_rnn.copy_baseline", "the 'memoryless' baseline samples 7 symbols where the "
                                                              "digits to copy are drawn from 8: it never outputs a_0")),
    _s("Sec. 7 and App. C, experimental results (Figures 1–6, 'outperforms', L ∼ 35, L ∼ 70, overfitting)",
       reason="empirical results of training runs on the paper's data sets"),
    _s("Sec. 7.2, MNIST split 60000/10000", reason="needs the paper's dataset"),
    _s("Table 2", "table2", "param_count"),
    _s("Sec. 7.2, 'highest 97.7% … 128 hidden dimensions and 6k parameters'", "table2"),
    _s("Sec. 7.3, PTB sizes (929k / 73k / 82k words, 10k vocabulary)", reason="needs the paper's dataset"),
    _s("Table 3", "table3", reason="the comparisons are checked; the ≈ counts need m1, m2 and embedding sizes the "
                                   "paper does not give"),
    _s("Sec. 7.3, 'better than LSTM with about half the parameters', 'lower test, higher training perplexity'",
       "table3"),
    _s("Proposition 1", "proposition1", "proposition1.corrected"),
    _s("App. A.2, proof of Theorem 1 (R orthogonal, triangular, positive diagonal ⇒ R = I)", "theorem1"),
    _s("eq. (18)–(21)", "theorem3_construction", "theorem3",
       reason="the constructions of Theorem 3's proof: as printed the zero range drops H_1(a_1) "
              "(spectral_rnn.theorem3_construction); started one index later they rebuild A (spectral_rnn.theorem3)",
       finding=Finding("misprinted", "spectral_rnn.theorem3_construction",
                       "the zero range 'v_t = 0, t = k2 + k1 − 2, …' starts one index early and overwrites a_1")),
    _s("Lemma 2", reason="a cited PAC-Bayes lemma (Neyshabur et al. 2017): a probability over training sets, which no "
                         "finite check decides; not mapped, since theorem5 and theorem5_step.corrected check only the "
                         "hypothesis the proof needs at its σ, not the lemma"),
    _s("Lemma 3", "lemma3"),
    _s("eq. (22)", "lemma3"),
    _s("eq. (23)", "eq24"),
    _s("eq. (24)", "eq24"),
    _s("eq. (25)", "lemma3"),
    _s("eq. (26)", "eq26"),
    _s("App. A.6, 'Plugging into Lemma 3' (Lemma 3's hypotheses for the proof's u)", "theorem5_step",
       "theorem5_step.corrected"),
    _s("App. A.6, choice of σ and '≤ γ/4'", "theorem5_step.corrected", "theorem5"),
    _s("eq. (27)", "theorem5"),
    _s("App. A.6, last paragraph (trivial ranges of β, the grid of β̃)", "theorem5_cover", "theorem5_cover.corrected"),
    _s("Algorithm 1", "algorithm1", "algorithm1.corrected"),
    _s("Algorithm 2", "eq1"),
    _s("Algorithm 3", "algorithm3", "algorithm3.corrected"),
    _s("App. C.1, n_h = 32, m = 16 reflectors (m1 = m2 = 8)", "param_count", "param_count.corrected"),
    _s("App. C.1, depth rule t n_i = L and 'fewer parameters than LSTM'", "table4"),
    _s("Table 4", "table4", "param_count", "param_count.corrected"),
)
