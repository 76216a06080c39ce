"""Claims of srnn.md (Shuffling RNN, Rotman & Wolf), one module per statement (the id names the module: ``srnn.x``
and ``srnn.x.corrected`` live in ``x.py``), in paper order:

- Sec. 2: ``eq2`` (+ corrected), the vanilla RNN gradient of eq. 2 and its where-clause.
- Sec. 3: ``shift_wlog``, 'WLOG the permutation can be the shift' (read as a relabeling: the single cycles);
  ``eq4``; ``hidden_gradient`` (+ corrected), 'no exponential growth or decay' of ∂h_T/∂h_t; ``eq7``; ``eq9``
  (+ corrected), eq. 8–9; ``sigma_prime``, |σ'| ≤ 1; ``eq10``, ``eq11`` (+ corrected); ``no_explosion``, 'it cannot
  explode'; ``relu_vanishing``, 'vanish iff some z_{t'} < 0' (per neuron along its shifted path);
  ``relu_nonnegative``, 'previous states can only increase h_t'; ``table1`` (every operation counted) and
  ``table1_count`` (+ corrected, matrix products counted), Table 1 and 'Time complexity'; ``gamblers_ruin`` and
  ``gamblers_ruin_horizon`` (+ corrected), the Gambler's-ruin estimate in two readings of T.
- Sec. 4: ``memcopy_baseline``, ``adding_baseline``, ``sequence_lengths``, ``param_counts`` (50k, gating, Table 4),
  ``table2``, ``table3`` (the comparison sentences recomputed from the printed tables).

Shared cases (the SRNN sequence of eq. 8–11) and the Jacobians they measure: ``cases``; small sequences in exact
arithmetic for the ``exact=`` verdicts: ``symbolic``.
"""

from rnnaudit.bounds.core import Finding, Statement
from rnnaudit.bounds.srnn.adding_baseline import adding_baseline
from rnnaudit.bounds.srnn.eq2 import eq2, eq2_corrected
from rnnaudit.bounds.srnn.eq4 import eq4
from rnnaudit.bounds.srnn.eq7 import eq7
from rnnaudit.bounds.srnn.eq9 import eq9, eq9_corrected
from rnnaudit.bounds.srnn.eq10 import eq10, eq10_corrected
from rnnaudit.bounds.srnn.eq11 import eq11, eq11_corrected
from rnnaudit.bounds.srnn.gamblers_ruin import gamblers_ruin, gamblers_ruin_corrected
from rnnaudit.bounds.srnn.gamblers_ruin_horizon import gamblers_ruin_horizon, gamblers_ruin_horizon_corrected
from rnnaudit.bounds.srnn.hidden_gradient import hidden_gradient, hidden_gradient_corrected
from rnnaudit.bounds.srnn.memcopy_baseline import memcopy_baseline
from rnnaudit.bounds.srnn.no_explosion import no_explosion
from rnnaudit.bounds.srnn.param_counts import param_counts
from rnnaudit.bounds.srnn.relu_nonnegative import relu_nonnegative
from rnnaudit.bounds.srnn.relu_vanishing import relu_vanishing
from rnnaudit.bounds.srnn.sequence_lengths import sequence_lengths
from rnnaudit.bounds.srnn.shift_wlog import shift_wlog
from rnnaudit.bounds.srnn.sigma_prime import sigma_prime
from rnnaudit.bounds.srnn.table1 import table1
from rnnaudit.bounds.srnn.table1_count import table1_count, table1_count_corrected
from rnnaudit.bounds.srnn.table2 import table2
from rnnaudit.bounds.srnn.table3 import table3

__all__ = ["CLAIMS", "COVERAGE", "eq2", "eq2_corrected", "shift_wlog", "eq4", "hidden_gradient",
           "hidden_gradient_corrected", "eq7", "eq9", "eq9_corrected", "sigma_prime", "eq10", "eq10_corrected", "eq11",
           "eq11_corrected", "no_explosion", "relu_vanishing", "relu_nonnegative", "table1", "gamblers_ruin",
           "gamblers_ruin_corrected", "gamblers_ruin_horizon", "gamblers_ruin_horizon_corrected", "table1_count",
           "table1_count_corrected", "memcopy_baseline", "adding_baseline", "sequence_lengths", "param_counts",
           "table2", "table3"]

#: The claims in the order the paper states them (Table 1 is printed inside the Gambler's-ruin paragraph, before
#: the estimate; the 'Time complexity' paragraph that explains it follows the estimate).
CLAIMS = (eq2, eq2_corrected, shift_wlog, eq4, hidden_gradient, hidden_gradient_corrected, eq7, eq9, eq9_corrected,
          sigma_prime, eq10, eq10_corrected, eq11, eq11_corrected, no_explosion, relu_vanishing, relu_nonnegative,
          table1, gamblers_ruin, gamblers_ruin_corrected, gamblers_ruin_horizon, gamblers_ruin_horizon_corrected,
          table1_count, table1_count_corrected, memcopy_baseline, adding_baseline, sequence_lengths, param_counts,
          table2, table3)

_TRAINING = "an empirical result of training runs (needs the paper's trained models and data)"

#: The paper's statement index, in paper order: each labelled statement and the claims that check it (or why none can).
COVERAGE = (
    Statement("Abstract: 'does not suffer from vanishing nor exploding gradients'",
              ("srnn.hidden_gradient", "srnn.hidden_gradient.corrected", "srnn.no_explosion", "srnn.relu_vanishing"),
              "read as Sec. 3's analysis: no explosion holds; no vanishing fails for tanh (σ' < 1: geometric decay) "
              "and holds for ReLU (every experiment's σ) while a path survives; ReLU's vanishing is per path",
              finding=Finding("misprinted", "srnn.hidden_gradient",
                              "for tanh the gradient decays geometrically; only with ReLU (every experiment's σ) "
                              "does it neither grow nor decay while a path survives")),
    Statement("Sec. 1, third paragraph: the first input is processed T times, the last once", ("srnn.eq2.corrected",),
              "the T cell applications of eq. 1: ∂h_T/∂h_1 is a product of T − 1 factors σ'(z_i) W_1"),
    Statement("Sec. 1, fourth paragraph: the shift 'is not prone to the gradient explosion or to its vanishing'",
              ("srnn.eq4", "srnn.hidden_gradient", "srnn.hidden_gradient.corrected")),
    Statement("eq. (1)", (), "a definition (the vanilla RNN h_t = σ(W_1 h_{t−1} + W_2 x_t), used by srnn.eq2)"),
    Statement("eq. (2)", ("srnn.eq2", "srnn.eq2.corrected")),
    Statement("Sec. 2, after eq. (2): exponential growth or decay 'depending on the maximal eigenvalue of W_1'", (),
              "a 'may' statement with no condition to check. Decision: no verdict, since the sentence says only that "
              "growth or decay 'may' occur 'depending on' the eigenvalue, with no inequality or quantifier a case "
              "could violate; precisely, ‖W_1^k‖^{1/k} → ρ(W_1) (Gelfand), while with the σ'(z_i) factors the rate "
              "is that of the products, which W_1's eigenvalues alone do not fix; the checkable form of that error "
              "(ρ < 1 of the recurrent matrix does not make a gated network's gradients vanish) is enrnn.decay's "
              "false verdict, on that paper's network"),
    Statement("Sec. 2, third paragraph: gated units use gradient clipping, having no mechanism against explosion", (),
              "a description of practice in the cited works, not a quantitative statement"),
    Statement("eq. (3)", (), "a definition (the SRNN recurrence h_t = σ(W_p h_{t−1} + b(x_t)))"),
    Statement("Sec. 3, after eq. (3): 'Without loss of generality, the permutation can be chosen as the shift'",
              ("srnn.shift_wlog",),
              "read as a relabeling of the hidden units: holds for the single d_h-cycles; for other permutations the "
              "relabeling argument does not apply, and no function separating them from the shift in that direction "
              "is known (notes)"),
    Statement("eq. (4)", ("srnn.eq4",)),
    Statement("eq. (5)", (), "a definition (network b = f_r ⊙ sigmoid(W_s x + b_s), as cells.SRNN builds it)"),
    Statement("eq. (6)", (), "a definition (the readout p_t = s(h_t); the text calls the output o_t)"),
    Statement("Sec. 3, Analysis of gradient dynamics, first paragraph: no exponential growth or decay; no clipping",
              ("srnn.eq4", "srnn.hidden_gradient", "srnn.hidden_gradient.corrected"),
              "'no clipping needed' rests on the no-growth half, which holds"),
    Statement("Sec. 3, second paragraph: 'the weights of network b do not appear with powers greater than one'",
              ("srnn.eq9.corrected",),
              "qualitative; the corrected closed form has ∂b(x_i)/∂b_k once per term and only the fixed W_p repeated"),
    Statement("eq. (7)", ("srnn.eq7",)),
    Statement("eq. (8)", ("srnn.eq9", "srnn.eq9.corrected")),
    Statement("eq. (9)", ("srnn.eq9", "srnn.eq9.corrected")),
    Statement("Sec. 3, after eq. (9): 'the only terms that may influence the gradients' growth or decay are σ'(z_t)'",
              ("srnn.hidden_gradient.corrected",)),
    Statement("Sec. 3, before eq. (10): '|σ'(z_t)| is bounded by 1' for the sigmoid, tanh and ReLU",
              ("srnn.sigma_prime",)),
    Statement("eq. (10)", ("srnn.eq10", "srnn.eq10.corrected")),
    Statement("eq. (11)", ("srnn.eq11", "srnn.eq11.corrected")),
    Statement("Sec. 3, after eq. (11): 'it cannot explode'", ("srnn.no_explosion", "srnn.eq11.corrected")),
    Statement("Sec. 3: 'For the ReLU activation function, the gradients in Eq. 9 vanish if and only if …'",
              ("srnn.relu_vanishing",), "read per neuron along its shifted path (holds); other readings in the notes"),
    Statement("Sec. 3: 'previous hidden states can only increase h_t'", ("srnn.relu_nonnegative",)),
    Statement("Sec. 3: 'b(x_t) approximately follow a normal distribution N(0, 1) [6]'", (),
              "depends on the inputs, the initialisation and training, none of which the paper gives. Decision: the "
              "gate in (0, 1) makes E[b²] < E[f_r²], so He initialisation of f_r alone does not give unit variance, "
              "but this gets no verdict, since the sentence claims only an approximate distribution, cited to [6], "
              "for inputs and a training state the paper does not give; the insufficient justification changes no "
              "statement rnnaudit checks (no bound assumes N(0, 1))"),
    Statement("Sec. 3, Gambler's Ruin", ("srnn.gamblers_ruin", "srnn.gamblers_ruin.corrected",
                                         "srnn.gamblers_ruin_horizon", "srnn.gamblers_ruin_horizon.corrected"),
              "two readings of T: the ruin game's barrier T + 1, and the sequence length"),
    Statement("Table 1", ("srnn.table1", "srnn.table1_count", "srnn.table1_count.corrected"),
              "SRNN and vanilla RNN rows recomputed (eq. 1, eq. 3–5); the GRU, LSTM, uRNN and NRU rows need "
              "architectures the paper only cites"),
    Statement("Sec. 3, Time complexity: the permutation in O(d_h), b the costliest part and parallel over t",
              ("srnn.table1", "srnn.table1_count.corrected"),
              "Decision: the parallel evaluation of b over the T inputs gets no verdict: a statement about hardware"),
    Statement("Sec. 3, Time complexity: 'our method is the only one that is linear in d_h'",
              ("srnn.table1_count", "srnn.table1_count.corrected", "srnn.table1")),
    Statement("Sec. 4, Copying Memory: length T + 20, baseline cross-entropy 10 ln 8/(T + 20)",
              ("srnn.memcopy_baseline",)),
    Statement("Sec. 4, Copying Memory: results (Fig. 2)", (), _TRAINING),
    Statement("Sec. 4, Adding Problem: baseline MSE 0.167", ("srnn.adding_baseline",)),
    Statement("Sec. 4, Adding Problem: results (Fig. 3)", (), _TRAINING),
    Statement("Sec. 4, pMNIST: a 784-dimensional vector fed one entry at a time", ("srnn.sequence_lengths",)),
    Statement("Sec. 4, pMNIST: 'the order of 165k parameters, except for SRNN that had 50k'", ("srnn.param_counts",),
              "SRNN's count recomputed (48,266); the other models' sizes are not given, so 165k is not checkable"),
    Statement("Table 2", ("srnn.table2",), "the accuracies are " + _TRAINING + "; their comparison is checked"),
    Statement("Sec. 4, pMNIST: 'SRNN is more effective than all other methods'; the bigger pMNIST 'advantage'",
              ("srnn.table2",)),
    Statement("Sec. 4, pMNIST ablation: gating's 'effect on the number of parameters is negligible'",
              ("srnn.param_counts",)),
    Statement("Sec. 4, pMNIST ablation: accuracy stable across configurations; gating helps (Fig. 4(a))", (),
              _TRAINING),
    Statement("Sec. 4, the bigger pMNIST: an image 'four times larger'", (),
              "states no length: 56 × 56 = 3136 steps if the area is quadrupled, 12544 if the side is"),
    Statement("Sec. 4, TIMIT: 3640 / 192 / 400 utterances", (), "needs the TIMIT corpus"),
    Statement("Table 3", ("srnn.table3",),
              "the MSEs are " + _TRAINING + "; the comparison sentence is checked comparing each method's best entry"),
    Statement("Sec. 4, TIMIT: 'outperforms almost all of the baseline methods … The only method that outperforms SRNN "
              "is NRU'", ("srnn.table3",),
              "each method's best entry, the paragraph's own comparison; row-by-row facts in the notes, no verdict"),
    Statement("Sec. 4, TIMIT: NRU has 'an order of magnitude more parameters'; > 10× SRNN's at d_h = 2048", (),
              "needs NRU's configuration and TIMIT's input width, which the paper does not give"),
    Statement("Sec. 4, TIMIT: 8 hidden neurons slightly worse than 32; depth matters little (Fig. 4(b))", (),
              _TRAINING),
    Statement("Sec. 4, Capacity: 8 × 8 or 16 × 16 patches, 64 or 256 steps", ("srnn.sequence_lengths",)),
    Statement("Sec. 4, Capacity: models 'of the order of 15K parameters'; fitting results (Fig. 7, 8)", (),
              "the configurations are not given; the fits are " + _TRAINING),
    Statement("Table 4", ("srnn.param_counts",),
              "SRNN's count from the caption (4,833 ≈ 5k) and 'the only method with fewer parameters … is uRNN' "
              "against the vanilla RNN, LSTM and GRU; the runtimes are measurements on the authors' machine. Decision: the "
              "markdown copy of the table is garbled by the conversion, not counted as the paper's error"),
    Statement("Sec. 4, Runtime: 'our method is much more efficient than the other methods', checked as the growth "
              "of its operation count", ("srnn.table1",),
              "the operation counts are checked (srnn.table1 with the elementwise work, srnn.table1_count); Table 4's "
              "own runtimes are measurements on the authors' machine"),
    Statement("Sec. 5: 'does not suffer from vanishing and exploding gradients', 'lower complexity'",
              ("srnn.hidden_gradient", "srnn.no_explosion", "srnn.table1_count")),
)
