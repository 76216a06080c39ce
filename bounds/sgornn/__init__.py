"""Claims of sgornn.md (SGORNN, with FastRNN and VPRNN), one module per statement.

=============================== ============================================== =========================
claim id                        where in sgornn.md                             module
=============================== ============================================== =========================
``sgornn.eq2``                  Sec. 2, eq. 2: φ(Θ) is orthogonal              ``eq2``
``sgornn.eq2.domain``           Sec. 2: dom(φ) = ℝ^{n/2×k} (and .corrected)    ``eq2_domain``
``sgornn.eq3``                  Sec. 2, eq. 3: β ≤ 1 − 2α by clipping          ``eq3``
``sgornn.eq3.clip``             Sec. 2: the clip puts β in (0, 1 − 2α]         ``eq3_clip``
``sgornn.eq3.remarks``          Sec. 2, 2.2, 4: remarks on eq. 3               ``eq3_remarks``
``sgornn.eq4.order``            Sec. 2.1, eq. 4 ⇒ α = O(1/T)                   ``eq4_order``
``sgornn.theorem1``             Theorem 1, eq. 6 (proof A.1, eq. 16–23)        ``theorem1``
``sgornn.theorem2``             Theorem 2, eq. 7–8 (proof A.2, eq. 25–33)      ``theorem2``
``sgornn.corollary1``           Corollary 1, eq. 9 (A.3, eq. 34–36)            ``corollary1``
``sgornn.eq10``                 Sec. 3.1, eq. 10 and the 0.167 baseline        ``eq10``
``sgornn.table1`` … ``table3``  Tables 1–3 and the sentences comparing them    ``table1`` … ``table3``
``sgornn.sec3.model_count``     Sec. 3: "the three RNN models"                 ``sec3_model_count``
``sgornn.eq24``                 A.1, eq. 24 "equivalent" to eq. 6 (.corrected) ``eq24``
``sgornn.eq25``                 A.2, eq. 25–26, 29–30 against autograd         ``eq25``
``sgornn.eq31``                 A.2, eq. 31, ‖X‖₁,₁ ≤ √h‖X‖_F ≤ h‖X‖₂ (.corr.) ``eq31``
``sgornn.hidden_state``         A.2, ‖h_t‖₂ ≤ αT R_W R_x                       ``hidden_state``
``sgornn.eq34``                 A.3, eq. 34, φ is 2⌈log₂h⌉-Lipschitz           ``eq34``
``sgornn.eq36``                 A.3, eq. 35–36, M_φ ≤ k√h ≤ 4√h log₂h          ``eq36``
``sgornn.a4``                   A.4, the implementation's extra permutations   ``a4``
=============================== ============================================== =========================

FastRNN's eq. 4 is also an assumption predicate: :func:`~rnnaudit.bounds.sgornn.eq4.fastrnn_eq4_assumption`.
Shared cases and assumptions: ``cases``; structured constructions and known suprema: ``constructions``;
parameter counts: ``counts``; M_φ of the VPRNN map from its product structure: ``m_phi``.
"""

from rnnaudit.bounds.core import Finding, Statement
from rnnaudit.bounds.sgornn.a4 import a4
from rnnaudit.bounds.sgornn.corollary1 import corollary1
from rnnaudit.bounds.sgornn.eq2 import eq2
from rnnaudit.bounds.sgornn.eq2_domain import eq2_domain, eq2_domain_corrected
from rnnaudit.bounds.sgornn.eq3 import eq3
from rnnaudit.bounds.sgornn.eq3_clip import eq3_clip
from rnnaudit.bounds.sgornn.eq3_remarks import eq3_remarks
from rnnaudit.bounds.sgornn.eq4 import fastrnn_eq4_assumption, fastrnn_eq4_limit
from rnnaudit.bounds.sgornn.eq4_order import eq4_order
from rnnaudit.bounds.sgornn.eq10 import eq10
from rnnaudit.bounds.sgornn.eq24 import eq24, eq24_corrected
from rnnaudit.bounds.sgornn.eq25 import eq25
from rnnaudit.bounds.sgornn.eq31 import eq31, eq31_corrected
from rnnaudit.bounds.sgornn.eq34 import eq34
from rnnaudit.bounds.sgornn.eq36 import eq36
from rnnaudit.bounds.sgornn.hidden_state import hidden_state
from rnnaudit.bounds.sgornn.sec3_model_count import sec3_model_count
from rnnaudit.bounds.sgornn.table1 import table1
from rnnaudit.bounds.sgornn.table2 import table2
from rnnaudit.bounds.sgornn.table3 import table3
from rnnaudit.bounds.sgornn.theorem1 import theorem1
from rnnaudit.bounds.sgornn.theorem2 import theorem2

__all__ = ["CLAIMS", "COVERAGE", "eq2", "eq2_domain", "eq2_domain_corrected", "eq3", "eq3_clip", "eq3_remarks",
           "eq4_order", "theorem1", "theorem2", "corollary1", "eq10", "table1", "sec3_model_count", "table2", "table3",
           "eq24", "eq24_corrected", "eq25", "eq31", "eq31_corrected", "hidden_state", "eq34", "eq36", "a4",
           "fastrnn_eq4_assumption", "fastrnn_eq4_limit"]

#: The claims in the order the paper states them.
CLAIMS = (eq2, eq2_domain, eq2_domain_corrected, eq3, eq3_clip, eq3_remarks, eq4_order, theorem1, theorem2,
          corollary1, eq10, table1, sec3_model_count, table2, table3, eq24, eq24_corrected, eq25, eq31,
          eq31_corrected, hidden_state, eq34, eq36, a4)

_TRAINING = "a result of the paper's training runs (needs its data, code and compute), not recomputable from the text"

#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    Statement("Abstract, quantitative sentences", ("sgornn.table2", "sgornn.table3"),
              "'improves upon the accuracy of FastRNN, VPRNN, and LSTM using far fewer parameters' (Table 2) and "
              "'comparable performance to LSTM using far less parameters' (Table 3); the addition-problem and "
              "overfitting sentences are " + _TRAINING),
    Statement("Sec. 1, second paragraph", ("sgornn.theorem1", "sgornn.eq4.order"),
              "FastRNN's gap 'scales with the product of the length of the sequences ... and the non-residual "
              "scalar gate' (O(αT)), with its constraint eq. 4"),
    Statement("Sec. 1, fourth–fifth paragraphs", ("sgornn.theorem1", "sgornn.theorem2", "sgornn.table1"),
              "a gap 'with similar growth to that of FastRNN', no exponentially exploding gradients, 'far fewer "
              "parameters than FastRNN'"),
    Statement("eq. (1)", (), "a definition (the SGORNN recurrence h_t = ασ(Wx_t + φ(Θ)h_{t−1} + b) + βh_{t−1}, "
                            "α, β ∈ (0, 1) by sigmoids, h_0 = 0); implemented by rnnaudit.cells.SGORNN and tested "
                            "in tests/cells/test_sgornn.py"),
    Statement("eq. (2)", ("sgornn.eq2", "sgornn.eq2.domain", "sgornn.eq2.domain.corrected"),
              "φ(Θ) = R_1Q_1⋯R_kQ_k is orthogonal; its stated domain ℝ^{n/2×k} should be ℝ^{h/2×k} "
              "(sgornn.eq2.domain, misprinted)",
              finding=Finding("misprinted", "sgornn.eq2.domain",
                              "dom(φ) = ℝ^{n/2×k} for ℝ^{h/2×k}: n, the input size, where the rotations act on h")),
    Statement("eq. (3)", ("sgornn.eq3",)),
    Statement("Sec. 2, paragraph after eq. (3)", ("sgornn.eq3.remarks", "sgornn.eq3", "sgornn.eq3.clip"),
              "FastRNN's β = 1 − α > 1 − 2α; 'β + 2α ≈ β + α' (both readings); β clipped into (0, 1 − 2α], which "
              "needs α < 1/2",
              finding=Finding("false", "sgornn.eq3.clip",
                              "clipping β to 1 − 2α keeps β in (0, 1 − 2α] only while α < 1/2, which nothing "
                              "enforces")),
    Statement("eq. (4)", ("sgornn.eq4.order",),
              "FastRNN's constraint, quoted from Kusupati et al. (2019) with D left undefined, is a hypothesis "
              "(the audit's predicate fastrnn_eq4_assumption); its consequence 'α = O(1/T)' is checked"),
    Statement("Sec. 2.1, second paragraph", (),
              "qualitative: why eq. 4 is hard to enforce (dependence on T and R_U); no quantity beyond eq. 3–4"),
    Statement("eq. (5)", (), "a definition (the class F_T: ReLU, no bias, ‖W‖_F ≤ R_W, Θ ∈ dom φ, fixed α, β with "
                            "β ≤ 1 − 2α); every case of the Theorem 1–2 claims is a member"),
    Statement("Theorem 1", ("sgornn.theorem1", "sgornn.eq24", "sgornn.eq24.corrected")),
    Statement("eq. (6)", ("sgornn.theorem1", "sgornn.eq24", "sgornn.eq24.corrected"),
              "the Rademacher term through eq. 22–23 (theorem1); the confidence term and the combination with "
              "eq. 13 (eq24); the probability over the draw of S from any distribution is eq. 13's, quoted"),
    Statement("Sec. 2.1, paragraph after Theorem 1", ("sgornn.theorem1",),
              "the bound is independent of U and Θ (the probe takes the sup over Θ) and eq. 3 does not involve T"),
    Statement("Sec. 2.2, first paragraph", ("sgornn.eq3.remarks",),
              "β ≤ 1 − α is a weaker constraint than eq. 3"),
    Statement("Theorem 2", ("sgornn.theorem2", "sgornn.hidden_state", "sgornn.eq25", "sgornn.eq31",
                            "sgornn.eq31.corrected")),
    Statement("eq. (7)", ("sgornn.theorem2",), "known supremum (T − 1)/(2√2T) at h = 2"),
    Statement("eq. (8)", ("sgornn.theorem2",), "known supremum 1/√h"),
    Statement("Corollary 1", ("sgornn.corollary1", "sgornn.eq36", "sgornn.eq34")),
    Statement("eq. (9)", ("sgornn.corollary1",)),
    Statement("Sec. 2.2, last paragraph", ("sgornn.theorem2",),
              "the bounds grow polynomially in T (no exponential explosion); the comparison with Arjovsky et al. "
              "is qualitative"),
    Statement("Sec. 3.1, first–second paragraphs", ("sgornn.eq10",),
              "the addition problem's inputs and marker positions, and the baseline MSE 'approximately 0.167'"),
    Statement("eq. (10)", ("sgornn.eq10",)),
    Statement("Sec. 3.1, third–fourth paragraphs", ("sgornn.table1",),
              "h = 128 and 'k = 14 ... the maximum number allowed' (2⌈log₂128⌉); the optimiser, learning rates and "
              "batch sizes are the protocol of the training runs"),
    Statement("Sec. 3.1, fifth paragraph and Figures 1–3", (),
              "'all three models were able to converge' at T = 500 counts the models of Fig. 1, whose content is not "
              "in the text (see sgornn.sec3.model_count's notes); the convergence and exploding-gradient "
              "observations are " + _TRAINING),
    Statement("Table 1", ("sgornn.table1", "sgornn.sec3.model_count"),
              "rows VPRNN, SGORNN, FastRNN, LSTM: the parameter counts; the 'Max Sequence Length' and 'Exploding "
              "Gradients' columns are " + _TRAINING),
    Statement("Sec. 3.2, first paragraph", ("sgornn.table2",),
              "64 LSTM units 'to roughly match' FastRNN's count, k = 14; the data set's sizes (7,352/2,947 "
              "instances of length 128) need the HAR data set"),
    Statement("Sec. 3.2, second paragraph", ("sgornn.table2", "sgornn.sec3.model_count"),
              "highest mean accuracy, lowest standard deviation, far fewer parameters, 'the three models'",
              finding=Finding("misprinted", "sgornn.sec3.model_count",
                              "'the three models' where the tables and the paragraph's own list have four")),
    Statement("Table 2", ("sgornn.table2", "sgornn.sec3.model_count"),
              "rows VPRNN, SGORNN, FastRNN, LSTM: the parameter counts and the comparisons of the printed "
              "accuracies; the accuracies themselves are " + _TRAINING),
    Statement("Sec. 3.2, overfitting paragraphs and Figure 4", (),
              "train/test gaps read from Fig. 4's curves: " + _TRAINING),
    Statement("Sec. 3.3, first paragraph", (), "the Penn Treebank's token counts need the data set"),
    Statement("Sec. 3.3, second paragraph", ("sgornn.table3",),
              "h = 256, k = 16, embedding width h; 'outperforms both of its predecessor models', 'comparable "
              "performance to LSTM', 'a small fraction of the number of parameters'"),
    Statement("Table 3", ("sgornn.table3",),
              "rows VPRNN, SGORNN, FastRNN, LSTM: cell parameter counts and the comparisons of the printed "
              "perplexities; the perplexities themselves are " + _TRAINING),
    Statement("Sec. 4, first–second paragraphs", ("sgornn.theorem2", "sgornn.eq3.remarks"),
              "gradients 'O((αT)²) in the worst case' (attained by U = I, see theorem2's notes); the gradient "
              "constraint is weaker than eq. 3"),
    Statement("Sec. 4, third paragraph", ("sgornn.table1", "sgornn.table2", "sgornn.table3"),
              "'less than 1,500 parameters', highest HAR-2 accuracy, better perplexity than VPRNN and FastRNN; "
              "'the smallest number of parameters ... in the literature' is a literature survey"),
    Statement("eq. (11)", (), "a definition (the loss class L∘F)"),
    Statement("eq. (12)", (), "a definition (the empirical Rademacher complexity R_m)"),
    Statement("eq. (13)", (), "a quoted theorem (Bartlett & Mendelson, 2002; Mohri et al., Thm. 3.3), stated "
                             "correctly for losses in [0, B_L]: a probability over the draw of S from an "
                             "arbitrary distribution, not searchable"),
    Statement("eq. (14)", ("sgornn.theorem1", "sgornn.eq24"), "eq. 6 restated"),
    Statement("eq. (15)", (), "a quoted lemma (Ledoux–Talagrand contraction, as in Mohri & Medina 2014: per-sample "
                             "1-Lipschitz maps, no absolute value), true in that form; theorem1 measures its "
                             "right side R_m(v∘F_T) directly"),
    Statement("eq. (16)–(19)", ("sgornn.theorem1",),
              "the probe computes eq. 16 through eq. 19's closed form (equality in eq. 18–19 at the best v)"),
    Statement("eq. (20)", ("sgornn.theorem1",),
              "the vector-valued contraction step is checked through its consequence eq. 22 only: a lower "
              "estimate of the left side cannot be set against the right side's own supremum R_m(F_{T−1}); at "
              "T = 1 (R_m(F_0) = 0) the probe's sub-class attains the class's supremum"),
    Statement("eq. (21)–(23)", ("sgornn.theorem1",)),
    Statement("eq. (24)", ("sgornn.eq24", "sgornn.eq24.corrected")),
    Statement("eq. (25)–(26)", ("sgornn.eq25",)),
    Statement("eq. (27)–(28)", ("sgornn.theorem2",), "eq. 7–8 restated"),
    Statement("eq. (29)–(30)", ("sgornn.eq25",)),
    Statement("eq. (31)", ("sgornn.eq31", "sgornn.eq31.corrected")),
    Statement("App. A.2, bound of eq. (25), checked in the nuclear norm (which bounds the spectral norm)",
              ("sgornn.eq31.corrected", "sgornn.theorem2"),
              "‖∂L/∂U‖ ≤ α‖∇L‖Σ_t‖h_{t−1}‖ through (α + β)^{T−t} ≤ 1 (the nuclear-norm form is checked)"),
    Statement("App. A.2, hidden-state bound", ("sgornn.hidden_state",)),
    Statement("eq. (32)", ("sgornn.theorem2",),
              "|∂L/∂(h_T)_j| ≤ |v_j|: the cases take σ_y = identity and |∂L/∂ŷ| = 1, its equality case"),
    Statement("eq. (33)", ("sgornn.theorem2", "sgornn.eq31.corrected")),
    Statement("App. A.2, eq. (8) as its proof concludes it (the proof's norm chain is not measured)",
              ("sgornn.theorem2",),
              "‖X‖_max ≤ ‖X‖_F ≤ √h‖X‖₂ for the h × n matrix ∂L/∂W is valid (rank ≤ h); eq. 8's supremum 1/√h "
              "shows the √h is never needed"),
    Statement("eq. (34)", ("sgornn.eq34",)),
    Statement("eq. (35)–(36)", ("sgornn.eq36",), "with 'k ≤ 4 log₂h for h ≥ 2'"),
    Statement("App. A.4", ("sgornn.a4",), "with footnote 2 (the public code's extra permutations)"),
)
