"""Claims of nc_gru.md (GRU gradient analysis, NC-GRU, Neumann-Cayley update), one module per statement.

=================================== ====================================================== ===================
claim id                            where in nc_gru.md                                     module
=================================== ====================================================== ===================
``nc_gru.sec2_1`` (+ ``.corrected``) Sec. 2.1: u_t = 1 'forget gate open, input closed'     ``sec2_1``
``nc_gru.eq2``                      Sec. 2.2, eq. 2: Cayley map, det W = (−1)^ρ, I + A       ``eq2``
``nc_gru.sec2_2``                   Sec. 2.2: D avoids an eigenvalue −1 of skew A (false)    ``sec2_2``
``nc_gru.scaling_d``                Sec. 2.2 (Kahan): a suitable D bounds A by 1             ``scaling_d``
``nc_gru.eq4``                      Sec. 2.2, eq. 3–6: orthogonality to machine precision    ``eq4``
``nc_gru.eq5``                      Sec. 2.2, eq. 5–6: the scaled Cayley gradient Vᵀ − V     ``eq5``
``nc_gru.eq7`` (+ ``.corrected``)   Sec. 3.1, eq. 7: gradients through h_T only              ``eq7``
``nc_gru.theorem1`` (+ ``.corr.``)  Theorem 1, eq. 8–12 (SM 7, eq. 23–45)                    ``theorem1``
``nc_gru.theorem1_torch``           Theorem 1's argument in torch.nn.GRU's form              ``theorem1_torch``
``nc_gru.theorem1_torch.layers``    the same for every layer of a stacked torch GRU          ``theorem1_torch_layers``
``nc_gru.theorem1_lstm``            Theorem 1's argument for torch.nn.LSTM, every layer      ``theorem1_lstm``
``nc_gru.corollary1`` (+ ``.c.``)   Corollary 1, eq. 13 (SM 7, eq. 46–58)                    ``corollary1``
``nc_gru.corollary2`` (+ ``.c.``)   Corollary 2, eq. 14–15 (SM 7, eq. 59–64), two readings   ``corollary2``
``nc_gru.eq18`` (+ ``.corrected``)  Sec. 3.2, eq. 16–18 and Algorithm 1                      ``eq18``
``nc_gru.alg1_skew``                Sec. 3.2: opt_A keeps A skew                             ``alg1_skew``
``nc_gru.sec3_3_best``              Sec. 3.3: best with orthogonal Uc and Ur (Tables 1–4, 8–9) ``sec3_3_best``
``nc_gru.sec3_3`` (+ ``.c.``)       Sec. 3.3: 'significant improvements over GORU'           ``sec3_3``
``nc_gru.corollary3`` (+ ``.c.``)   Corollary 3, eq. 21–22 (SM 7, eq. 65–68), two readings   ``corollary3``
``nc_gru.param_match`` (+ ``.c.``)  Sec. 4: 'parameter-matching architecture'                ``param_match``
``nc_gru.sec4_1`` (+ ``.c.``)       Sec. 4.1 Results, Table 1                                ``sec4_1``
``nc_gru.sec4_2`` (+ ``.c.``)       Sec. 4.2 Results, Tables 2 and 8                         ``sec4_2``
``nc_gru.sec4_3`` (+ ``.c.``)       Sec. 4.3 Results, Table 3                                ``sec4_3``
``nc_gru.copy_baseline``            Sec. 4.4: length T + 20, baseline 10 log 8/(T + 20)      ``copy_baseline``
``nc_gru.sec4_4``                   Sec. 4.4 Results, Tables 4 and 9                         ``sec4_4``
``nc_gru.sec4_data``                Sec. 4.5–4.7: data-set sizes                             ``sec4_data``
``nc_gru.sec4_lm``                  Sec. 4.5–4.7 Results (Tables 5–7), the abstract          ``sec4_lm``
``nc_gru.sec5_3``                   Sec. 5.3: the Neumann condition, recorded in ‖·‖₂           ``sec5_3``
``nc_gru.eq36``                     SM 7, eq. 29, 32, 36, 40: the proof's Jacobians          ``eq36``
``nc_gru.eq37`` (+ ``.corrected``)  SM 7, eq. 30, 33, 37–38 (+ 41): the proof's inequalities ``eq37``
``nc_gru.eq47`` (+ ``.corrected``)  SM 7, the premise of eq. 47–52: 0 ≤ [c_t]_i             ``eq47``
=================================== ====================================================== ===================

Shared GRU cases, samplers and assumptions of the gate claims: ``cases``; their case families, structured starts and
the corollaries' ε → 0 limit: ``spaces``; the printed tables and the comparison machinery of the results sentences:
``tables``.
"""

from rnnaudit.bounds.core import Finding, Statement
from rnnaudit.bounds.nc_gru.alg1_skew import alg1_skew
from rnnaudit.bounds.nc_gru.copy_baseline import copy_baseline
from rnnaudit.bounds.nc_gru.corollary1 import corollary1, corollary1_corrected
from rnnaudit.bounds.nc_gru.corollary2 import corollary2, corollary2_corrected
from rnnaudit.bounds.nc_gru.corollary3 import corollary3, corollary3_corrected
from rnnaudit.bounds.nc_gru.eq2 import eq2
from rnnaudit.bounds.nc_gru.eq4 import eq4
from rnnaudit.bounds.nc_gru.eq5 import eq5
from rnnaudit.bounds.nc_gru.eq7 import eq7, eq7_corrected
from rnnaudit.bounds.nc_gru.eq18 import eq18, eq18_corrected
from rnnaudit.bounds.nc_gru.eq36 import eq36
from rnnaudit.bounds.nc_gru.eq37 import eq37, eq37_corrected
from rnnaudit.bounds.nc_gru.eq47 import eq47, eq47_corrected
from rnnaudit.bounds.nc_gru.param_match import param_match, param_match_corrected
from rnnaudit.bounds.nc_gru.scaling_d import scaling_d
from rnnaudit.bounds.nc_gru.sec2_1 import sec2_1, sec2_1_corrected
from rnnaudit.bounds.nc_gru.sec2_2 import sec2_2
from rnnaudit.bounds.nc_gru.sec3_3 import sec3_3, sec3_3_corrected
from rnnaudit.bounds.nc_gru.sec3_3_best import sec3_3_best
from rnnaudit.bounds.nc_gru.sec4_1 import sec4_1, sec4_1_corrected
from rnnaudit.bounds.nc_gru.sec4_2 import sec4_2, sec4_2_corrected
from rnnaudit.bounds.nc_gru.sec4_3 import sec4_3, sec4_3_corrected
from rnnaudit.bounds.nc_gru.sec4_4 import sec4_4
from rnnaudit.bounds.nc_gru.sec4_data import sec4_data
from rnnaudit.bounds.nc_gru.sec4_lm import sec4_lm
from rnnaudit.bounds.nc_gru.sec5_3 import sec5_3
from rnnaudit.bounds.nc_gru.theorem1 import theorem1, theorem1_corrected
from rnnaudit.bounds.nc_gru.theorem1_lstm import theorem1_lstm
from rnnaudit.bounds.nc_gru.theorem1_torch import theorem1_torch
from rnnaudit.bounds.nc_gru.theorem1_torch_layers import theorem1_torch_layers

#: The claims in the order the paper states them (SM 7's proof steps last, where the supplement puts them).
CLAIMS = (sec2_1, sec2_1_corrected, eq2, sec2_2, scaling_d, eq4, eq5, eq7, eq7_corrected, theorem1, theorem1_corrected,
          theorem1_torch, theorem1_torch_layers, theorem1_lstm,
          corollary1, corollary1_corrected, corollary2, corollary2_corrected, eq18, eq18_corrected, alg1_skew,
          sec3_3_best, sec3_3, sec3_3_corrected, corollary3, corollary3_corrected, param_match, param_match_corrected,
          sec4_1, sec4_1_corrected, sec4_2, sec4_2_corrected, sec4_3, sec4_3_corrected, copy_baseline, sec4_4,
          sec4_data, sec4_lm, sec5_3, eq36, eq37, eq37_corrected, eq47, eq47_corrected)

__all__ = ["CLAIMS", "COVERAGE", "sec2_1", "sec2_1_corrected", "eq2", "sec2_2", "sec3_3_best", "scaling_d", "eq4",
           "eq5", "eq7", "eq7_corrected", "theorem1", "theorem1_corrected", "theorem1_torch", "theorem1_torch_layers",
           "theorem1_lstm", "corollary1", "corollary1_corrected", "corollary2",
           "corollary2_corrected", "eq18", "eq18_corrected", "alg1_skew", "sec3_3", "sec3_3_corrected", "corollary3",
           "corollary3_corrected", "param_match", "param_match_corrected", "sec4_1", "sec4_1_corrected", "sec4_2",
           "sec4_2_corrected", "sec4_3", "sec4_3_corrected", "copy_baseline", "sec4_4", "sec4_data", "sec4_lm",
           "sec5_3", "eq36", "eq37", "eq37_corrected", "eq47", "eq47_corrected"]

_TABLE_REASON = ("results of the paper's training runs (need its code, data and runs); the text's comparisons of these "
                 "values are checked by {}")
_DEFINITION = "a definition ({})"

#: The paper's statement index, in paper order: each labelled statement and the claims that check it (or why none
#: can). Every numbered equation (1)–(68), the theorem, the corollaries, Algorithm 1, Tables 1–9 and the quantitative
#: sentences of the abstract, Sec. 1–6 and SM 7–8.
COVERAGE = (
    Statement("Abstract, 'NC-GRU significantly outperforms GRU and several other RNNs'",
              ("nc_gru.sec4_lm", "nc_gru.sec3_3")),
    Statement("Sec. 1, fourth paragraph, the Neumann series 'decreases computation time'", (),
              "a timing on the authors' V100 (Figure 6); not reproducible from the text. In flops the order-2 update "
              "of Algorithm 1 line 7 costs ≈ 6h³ (three h×h products) against ≈ 2h³ for an LU inverse, so any gain "
              "is the hardware's, not the arithmetic's"),
    Statement("eq. (1)", (), _DEFINITION.format("the GRU cell of Cho et al. with the reset gate applied to h_(t−1) "
                                                "before U_c, h_0 = 0; implemented by rnnaudit.cells.GRU and used by "
                                                "every gate claim")),
    Statement("Sec. 2.1, second paragraph (gate semantics of u_t)", ("nc_gru.sec2_1", "nc_gru.sec2_1.corrected")),
    Statement("eq. (2)", ("nc_gru.eq2",)),
    Statement("Sec. 2.2, paragraph after eq. (2) (D, Kahan 2006, bounded A)",
              ("nc_gru.sec2_2", "nc_gru.eq2", "nc_gru.scaling_d"),
              "the invertibility sentence is false (nc_gru.sec2_2; I + A is invertible for every skew A, nc_gru.eq2, "
              "proved exactly); the boundedness sentence holds (nc_gru.scaling_d)",
              finding=Finding("false", "nc_gru.sec2_2", "a real skew A has no eigenvalue −1 and I + A is never "
                                                         "singular (σ_min(I + A) ≥ 1), so there is nothing for D to "
                                                         "avoid")),
    Statement("eq. (3)–(4)", ("nc_gru.eq4",)),
    Statement("eq. (5)", ("nc_gru.eq5",)),
    Statement("eq. (6)", ("nc_gru.eq5",)),
    Statement("Sec. 2.2, paragraph after eq. (6) (orthogonality 'maintained to the machine's precision')",
              ("nc_gru.eq4",)),
    Statement("eq. (7)", ("nc_gru.eq7", "nc_gru.eq7.corrected")),
    Statement("Theorem 1", ("nc_gru.theorem1", "nc_gru.theorem1.corrected", "nc_gru.theorem1_torch",
                            "nc_gru.theorem1_torch.layers", "nc_gru.theorem1_lstm")),
    Statement("eq. (8)–(12)", ("nc_gru.theorem1", "nc_gru.theorem1.corrected")),
    Statement("Corollary 1", ("nc_gru.corollary1", "nc_gru.corollary1.corrected")),
    Statement("eq. (13)", ("nc_gru.corollary1", "nc_gru.corollary1.corrected")),
    Statement("Sec. 3.1, remark after Corollary 1 ('These bounds may be pessimistic')", ("nc_gru.corollary1",),
              "a motivation; in the worst case the bounds are attained (δ_u = 1/4 at u = 1/2, ratio 1)"),
    Statement("Corollary 2", ("nc_gru.corollary2", "nc_gru.corollary2.corrected")),
    Statement("eq. (14)–(15)", ("nc_gru.corollary2", "nc_gru.corollary2.corrected"),
              "'≲' checked in the uniform reading (≤ y(1 + ε) for every weight) and the asymptotic one (ε → 0 for "
              "fixed weights), as separate parts"),
    Statement("eq. (16)–(18)", ("nc_gru.eq18", "nc_gru.eq18.corrected")),
    Statement("Sec. 3.2, paragraph after eq. (18) (condition 'for some operator norm', orders 1–2, error "
              "O(((I + A)^(-1)δA)³), resets)", ("nc_gru.eq18", "nc_gru.eq18.corrected", "nc_gru.sec5_3"),
              "'the model performs slightly better when using second-order approximation' is a training result "
              "and not checkable"),
    Statement("Algorithm 1", ("nc_gru.eq18.corrected", "nc_gru.eq5", "nc_gru.alg1_skew")),
    Statement("Sec. 3.2, paragraph after Algorithm 1 (A and its gradient stay skew under opt_A)",
              ("nc_gru.alg1_skew",)),
    Statement("eq. (19)", (), _DEFINITION.format("the NC-GRU cell, U_r and U_c from Algorithm 1; implemented by "
                                                 "rnnaudit.cells.NCGRU, whose parameter count nc_gru.param_match "
                                                 "checks")),
    Statement("eq. (20)", (), _DEFINITION.format("modReLU, sgn(x)·ReLU(|x| + b); it jumps at x = 0 when b > 0, where "
                                                 "the Jacobians of eq. 36 and Corollary 3 do not exist")),
    Statement("Sec. 3.3, 'the best performance is achieved using orthogonality in Uc and Ur'", ("nc_gru.sec3_3_best",),
              "checked against Tables 1–4 and 8–9, which print both variants (Sec. 5.2's Figure 7 prints no numbers)",
              finding=Finding("false", "nc_gru.sec3_3_best", "NC-GRU(Uc) beats NC-GRU(Ur, Uc) in 7 of the 10 "
                                                              "columns that print both")),
    Statement("Sec. 3.3, GORU paragraph ('significant improvements over GORU')",
              ("nc_gru.sec3_3", "nc_gru.sec3_3.corrected")),
    Statement("Corollary 3", ("nc_gru.corollary3", "nc_gru.corollary3.corrected")),
    Statement("eq. (21)–(22)", ("nc_gru.corollary3", "nc_gru.corollary3.corrected"),
              "uniform and asymptotic readings of '≲' as separate parts"),
    Statement("Sec. 3.3, paragraph after Corollary 3 ('bounded by a constant independent of any model parameters')",
              ("nc_gru.corollary3", "nc_gru.corollary3.corrected"),
              "uniformly in the weights false: the constant depends on ‖U_u‖₂ and, through modReLU, on the state; in "
              "the limit ε → 0 at fixed weights (the reading nc_gru.corollary3 carries) it is 2",
              finding=Finding("misprinted", "nc_gru.corollary3",
                              "uniformly in the weights the constant depends on ‖U_u‖₂ and the state; only its "
                              "limit ε → 0 at fixed weights is 2")),
    Statement("Sec. 4, first paragraph ('approximately equal numbers of trainable parameters')",
              ("nc_gru.param_match", "nc_gru.param_match.corrected")),
    Statement("Sec. 4.1–4.5, Implementation Details (hidden sizes)", ("nc_gru.param_match",)),
    Statement("Sec. 4.1, Results paragraph", ("nc_gru.sec4_1", "nc_gru.sec4_1.corrected")),
    Statement("Table 1", (), _TABLE_REASON.format("nc_gru.sec4_1, nc_gru.sec3_3 and nc_gru.sec4_lm")),
    Statement("Sec. 4.2, Results paragraph", ("nc_gru.sec4_2", "nc_gru.sec4_2.corrected")),
    Statement("Table 2", (), _TABLE_REASON.format("nc_gru.sec4_2, nc_gru.sec3_3 and nc_gru.sec4_lm")),
    Statement("Sec. 4.3, Results paragraph", ("nc_gru.sec4_3", "nc_gru.sec4_3.corrected")),
    Statement("Table 3", (), _TABLE_REASON.format("nc_gru.sec4_3, nc_gru.sec3_3 and nc_gru.sec4_lm")),
    Statement("Sec. 4.4, task description (length T + 20, baseline 10 log(8)/(T + 20))", ("nc_gru.copy_baseline",)),
    Statement("Sec. 4.4, Results paragraph", ("nc_gru.sec4_4",)),
    Statement("Table 4", (), _TABLE_REASON.format("nc_gru.sec4_4, nc_gru.sec3_3 and nc_gru.sec4_lm; its LSTM row "
                                                  "equals the memoryless baseline (nc_gru.copy_baseline)")),
    Statement("Sec. 4.5, data set ('approximately 6 million characters')", ("nc_gru.sec4_data",)),
    Statement("Sec. 4.5, Results sentence", ("nc_gru.sec4_lm",)),
    Statement("Table 5", (), _TABLE_REASON.format("nc_gru.sec4_lm")),
    Statement("Sec. 4.6, data set (888 k / 70 k / 79 k words)", ("nc_gru.sec4_data",),
              "the sizes themselves need the data set; they enter the 'almost twice' comparison of Sec. 4.7"),
    Statement("Sec. 4.6, Results sentence", ("nc_gru.sec4_lm",)),
    Statement("Table 6", (), _TABLE_REASON.format("nc_gru.sec4_lm")),
    Statement("Sec. 4.7, data set ('almost twice the size of the Penn TreeBank', ≈ 2.2 million words)",
              ("nc_gru.sec4_data",)),
    Statement("Sec. 4.7, Results sentences", ("nc_gru.sec4_lm",)),
    Statement("Table 7", (), _TABLE_REASON.format("nc_gru.sec4_lm")),
    Statement("Sec. 5.1 (Neumann orders 1–3 against least squares, Figures 5–6)", (),
              "training curves and V100 timings, no numbers printed; not reproducible from the text"),
    Statement("Sec. 5.2 (orthogonal U_r, U_u, U_c ablation, Figure 7)", (),
              "training curves, no numbers printed"),
    Statement("Sec. 5.3, 'the necessary condition' ‖(I + A^(k−1))^{-1}δA^(k)‖ < 1, recorded in ‖·‖₂: checked as "
              "sufficient (it bounds the spectral radius), not as necessary", ("nc_gru.sec5_3",),
              "Decision: 'necessary' is a wording error for ‖·‖₂ (a sufficient condition called necessary), with "
              "no verdict of its own: see nc_gru.sec5_3's notes"),
    Statement("Sec. 5.3, 'well below one' during training (Figure 8)", (),
              "values recorded during the authors' run; rnnaudit's trainer records the same quantity as "
              "neumann_condition, and the audit judges it on a run"),
    Statement("Sec. 6, 'outperforming GRU, LSTM, ..., scoRNN, and GORU models on different tasks'",
              ("nc_gru.sec4_lm", "nc_gru.sec3_3", "nc_gru.sec4_4")),
    Statement("eq. (23)–(27)", ("nc_gru.theorem1", "nc_gru.theorem1.corrected"), "Theorem 1 restated in SM 7"),
    Statement("eq. (28)", (), _DEFINITION.format("r_t, as in eq. 1")),
    Statement("eq. (29)", ("nc_gru.eq36",)),
    Statement("eq. (30)", ("nc_gru.eq37", "nc_gru.eq37.corrected")),
    Statement("eq. (31)", ("nc_gru.corollary1",), "defines δ_r; the sentence after it ('bounded by 1/4') is checked"),
    Statement("eq. (32)", ("nc_gru.eq36",)),
    Statement("eq. (33)", ("nc_gru.eq37", "nc_gru.eq37.corrected")),
    Statement("eq. (34)", ("nc_gru.corollary1",), "defines δ_u; its bound 1/4 is Corollary 1's"),
    Statement("eq. (35)", (), _DEFINITION.format("c_t, as in eq. 1")),
    Statement("eq. (36)", ("nc_gru.eq36",)),
    Statement("eq. (37)–(38)", ("nc_gru.eq37", "nc_gru.eq37.corrected")),
    Statement("eq. (39)", (), _DEFINITION.format("h_t, as in eq. 1")),
    Statement("eq. (40)", ("nc_gru.eq36",)),
    Statement("eq. (41)", ("nc_gru.theorem1", "nc_gru.eq37.corrected"),
              "as printed (signed maxima) it fails with Theorem 1 (nc_gru.theorem1); with |·| it holds",
              finding=Finding("misprinted", "nc_gru.theorem1",
                              "signed maxima max_i [h]_i where the step bounds ‖diag(h)‖₂ = max_i |h_i|")),
    Statement("eq. (42)–(45)", ("nc_gru.theorem1", "nc_gru.theorem1.corrected")),
    Statement("eq. (46)", ("nc_gru.corollary1", "nc_gru.corollary1.corrected")),
    Statement("eq. (47)–(52)", ("nc_gru.eq47", "nc_gru.eq47.corrected", "nc_gru.corollary1")),
    Statement("eq. (53)–(58)", ("nc_gru.corollary1", "nc_gru.corollary1.corrected")),
    Statement("eq. (59)–(64)", ("nc_gru.corollary2", "nc_gru.corollary2.corrected")),
    Statement("eq. (65)–(68)", ("nc_gru.corollary3", "nc_gru.corollary3.corrected")),
    Statement("Table 8", (), _TABLE_REASON.format("nc_gru.sec4_2 and nc_gru.sec3_3")),
    Statement("Table 9", (), _TABLE_REASON.format("nc_gru.sec4_4 and nc_gru.sec3_3")),
)
