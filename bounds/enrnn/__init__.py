"""Claims of enrnn.md (Eigenvalue-Normalized RNN, Helfrich & Ye), one module per statement.

==================================== ===================================================== ==================
claim id                             where in enrnn.md                                     module
==================================== ===================================================== ==================
``enrnn.spectral_norm``              Sec. 2: ρ is bounded by any matrix norm               ``spectral_norm``
``enrnn.transient``                  Sec. 2: transient amplification via the pseudospectrum ``transient``
``enrnn.eq3``                        eq. 1 and 3: the blockwise forward pass is the basic   ``eq3``
                                     RNN with W of eq. 2
``enrnn.eq3_sentence``               Sec. 3, after eq. 3: h^(L)_t from h^(S)_t (index slip) ``eq3_sentence``
``enrnn.decay``                      Sec. 3 after eq. 1: inputs to h^(S) decay at a rate    ``decay``
                                     set by the eigenvalues of W^(S) (false with ReLU gates)
``enrnn.decay.corrected``            the same with ‖W^(S)‖₂ (Theorem 3.1 without its        ``decay``
                                     hypothesis, ReLU and modReLU)
``enrnn.coupling``                   remark after eq. 3: W of eq. 2 is block upper          ``coupling``
                                     triangular, so ρ(W) = max(ρ(W^(L)), ρ(W^(S))) ≤ 1
``enrnn.theorem3.1``                 Theorem 3.1 (proof in Sec. 8.1)                       ``theorem3_1``
``enrnn.theorem3.1.general``         Theorem 3.1's argument for any vanilla RNN with a      ``theorem3_1_general``
                                     1-Lipschitz σ (torch's nn.RNN, every layer; IndRNN)
``enrnn.normalisation``              Sec. 3.1, 4, 5: ρ(W^(S)) = ρ(T)/(ρ(T) + ε) ≤ 1         ``normalisation``
``enrnn.proposition3.2``             Proposition 3.2 as printed (proof in Sec. 8.2)        ``proposition3_2``
``enrnn.proposition3.2.corrected``   the same with the inner factor 1/ρ(T), for ε ≥ 0      ``proposition3_2``
``enrnn.conjugate``                  note after Prop. 3.2, remark after its proof: λ or λ̄  ``conjugate``
``enrnn.eq4``                        eq. 4 with the printed gradient is a descent step     ``eq4``
``enrnn.eq4.corrected``              eq. 4 with the corrected gradient                     ``eq4``
``enrnn.complexity``                 Sec. 3.2: O((n − q)³) ≤ O(BLn²) when n − q ≤ BL       ``complexity``
``enrnn.eq5``                        Sec. 4, eq. 5: eigenvalues "uniformly distributed on   ``eq5``
                                     the complex unit disc" (false: |λ| ~ U[0, 1])
``enrnn.eq5.corrected``              eq. 5's own distribution of γ_j, t_j, |λ| and arg λ    ``eq5``
``enrnn.sec5``                       Sec. 5: the settings used lie on the stated grids      ``sec5``
``enrnn.baselines``                  Sec. 5.1–5.2: baselines and the copying length        ``baselines``
``enrnn.table1``                     Table 1 (and 2, 3) parameter counts, Sec. 5.2–5.4     ``table1``
                                     "≈ k times more parameters"
``enrnn.table1.corrected``           the table with the recomputed counts                  ``table1``
``enrnn.comparisons``                Sec. 5.3–5.4: the sentences comparing Tables 2 and 3  ``comparisons``
``enrnn.proof3.1``                   Sec. 8.1: each step of Theorem 3.1's proof            ``proof3_1``
``enrnn.proof3.2``                   Sec. 8.2: eq. 6–8 and the final display               ``proof3_2``
``enrnn.eq7``                        eq. 7 under Prop. 3.2's hypotheses (a hypothesis gap) ``eq7``
``enrnn.eq7.corrected``              eq. 7 with λ, λ̄ the only dominant eigenvalues         ``eq7``
==================================== ===================================================== ==================

Shared cases (:class:`~rnnaudit.bounds.enrnn.cases.ENRNNCase`, random ENRNN cells, the paper's own numbers,
the assumption that W is block upper triangular): ``cases``; the eigenvalue calculus of Proposition 3.2 and
its gradient cases: ``eigen``.
"""

from rnnaudit.bounds.core import Finding, Statement
from rnnaudit.bounds.enrnn.baselines import baselines
from rnnaudit.bounds.enrnn.comparisons import comparisons
from rnnaudit.bounds.enrnn.complexity import complexity
from rnnaudit.bounds.enrnn.conjugate import conjugate
from rnnaudit.bounds.enrnn.coupling import coupling
from rnnaudit.bounds.enrnn.decay import decay, decay_corrected
from rnnaudit.bounds.enrnn.eq3 import eq3
from rnnaudit.bounds.enrnn.eq3_sentence import eq3_sentence
from rnnaudit.bounds.enrnn.eq4 import eq4, eq4_corrected
from rnnaudit.bounds.enrnn.eq5 import eq5, eq5_corrected
from rnnaudit.bounds.enrnn.eq7 import eq7, eq7_corrected
from rnnaudit.bounds.enrnn.normalisation import normalisation
from rnnaudit.bounds.enrnn.proof3_1 import proof3_1
from rnnaudit.bounds.enrnn.proof3_2 import proof3_2
from rnnaudit.bounds.enrnn.proposition3_2 import proposition3_2, proposition3_2_corrected
from rnnaudit.bounds.enrnn.sec5 import sec5
from rnnaudit.bounds.enrnn.spectral_norm import spectral_norm
from rnnaudit.bounds.enrnn.table1 import table1, table1_corrected
from rnnaudit.bounds.enrnn.theorem3_1 import theorem3_1
from rnnaudit.bounds.enrnn.theorem3_1_general import theorem3_1_general
from rnnaudit.bounds.enrnn.transient import transient

__all__ = ["CLAIMS", "COVERAGE", "spectral_norm", "transient", "eq3", "eq3_sentence", "decay", "decay_corrected",
           "coupling", "theorem3_1", "theorem3_1_general", "normalisation", "proposition3_2",
           "proposition3_2_corrected", "conjugate", "eq4",
           "eq4_corrected", "complexity", "eq5", "eq5_corrected", "sec5", "baselines", "table1", "table1_corrected",
           "comparisons", "proof3_1", "proof3_2", "eq7", "eq7_corrected"]

#: The claims in the order the paper states them.
CLAIMS = (spectral_norm, transient, eq3, eq3_sentence, decay, decay_corrected, coupling, theorem3_1, theorem3_1_general,
          normalisation, proposition3_2,
          proposition3_2_corrected, conjugate, eq4, eq4_corrected, complexity, eq5, eq5_corrected, sec5, baselines,
          table1, table1_corrected, comparisons, proof3_1, proof3_2, eq7, eq7_corrected)

_EMPIRICAL = "an empirical result of the paper's training runs (needs its datasets and trained models)"

#: The paper's statement index, in paper order: each labelled statement and the claims that check it
#: (or why none can).
COVERAGE = (
    Statement("Abstract (an input to the short-term state dissipates in time; highly competitive)",
              ("enrnn.decay", "enrnn.decay.corrected", "enrnn.normalisation"),
              "'dissipates' is Sec. 3's decay sentence (enrnn.decay); 'highly competitive' is " + _EMPIRICAL,
              finding=Finding("false", "enrnn.normalisation",
                              "with Sec. 5's ε = 0 the short-term recurrence has ρ(W^(S)) = 1 exactly: a non-"
                              "decaying mode")),
    Statement("Sec. 1, third paragraph (an orthogonal RNN retains all input information)",
              reason="qualitative: no quantity is stated (‖Wx‖ = ‖x‖ for orthogonal W is the definition)"),
    Statement("Sec. 1, fifth paragraph (spectral radius below 1 by normalisation; a descent algorithm that "
              "maintains it)", ("enrnn.normalisation", "enrnn.eq4"),
              finding=Finding("false", "enrnn.normalisation",
                              "'spectral radius below 1' fails at Sec. 5's ε = 0, where ρ(W^(S)) = 1 exactly")),
    Statement("Sec. 2, first paragraph (the basic RNN h_t = σ(Ux_t + Wh_{t−1} + b), y_t = Vh_t + c)",
              reason="a definition (the basic RNN; enrnn.eq3 checks eq. 1 and 3 against it)"),
    Statement("Sec. 2, second paragraph (spectral radius of W below one: gradients vanish; above one: they explode, "
              "checked only as the growth of the linear part's powers)",
              ("enrnn.decay", "enrnn.spectral_norm"),
              "the vanishing half is checked on the network of eq. 3 (enrnn.decay: it holds for the linear part, "
              "‖W^τ‖₂ ≤ κρ^τ, not for the gated network); the exploding half only through ρ ≤ ‖·‖ "
              "(enrnn.spectral_norm: ρ^τ ≤ ‖W^τ‖₂, the linear part's growth), not on the gated network",
              finding=Finding("false", "enrnn.decay",
                              "ρ(W) < 1 does not make the gated network's gradients vanish (growth ×4.4 per two "
                              "steps at ρ = 0.63)")),
    Statement("Sec. 2, fourth paragraph (ρ bounded by any matrix norm; spectral-norm normalisation; eigenvalues, "
              "not singular values, govern the dynamics)", ("enrnn.spectral_norm", "enrnn.decay"),
              "'eigenvalues, not singular values' is refuted for ReLU networks by enrnn.decay: two W^(S) with the "
              "same eigenvalues behave oppositely, and ‖W^(S)‖₂ governs the gated Jacobians",
              finding=Finding("false", "enrnn.decay",
                              "'eigenvalues, not singular values, govern the dynamics' fails for the ReLU network")),
    Statement("Sec. 2, fifth paragraph (transient amplification by the pseudospectrum, decay by the spectrum)",
              ("enrnn.transient", "enrnn.decay")),
    Statement("eq. (1)", ("enrnn.eq3",)),
    Statement("Sec. 3, paragraph after eq. (1) (decay at a rate set by the eigenvalues of W^(S))",
              ("enrnn.decay", "enrnn.decay.corrected")),
    Statement("eq. (2) and the remark after eq. (3) (eigenvalues of W are those of its blocks)", ("enrnn.coupling",)),
    Statement("eq. (3)", ("enrnn.eq3",)),
    Statement("Sec. 3, paragraph after eq. (3) (h^(L)_t is determined from x_t, h^(S)_t and h^(L)_t)",
              ("enrnn.eq3_sentence", "enrnn.eq3"),
              "eq. 3 uses h^(S)_{t−1}, h^(L)_{t−1}; the sentence's h_t is an index slip (enrnn.eq3_sentence)",
              finding=Finding("misprinted", "enrnn.eq3_sentence", "h^(S)_t for h^(S)_{t−1}: as printed the long-term "
                                                                   "state would take the same step's short-term "
                                                                   "state")),
    Statement("Sec. 3, paragraph before Theorem 3.1 (assume ‖W^(S)‖₂ < 1 in the 2-norm)",
              ("enrnn.decay", "enrnn.decay.corrected"), "the paragraph's other remark, that some norm has "
                                "‖W^(S)‖ < 1 when ρ(W^(S)) < 1, is standard and not checked; the ReLU gates are not "
                                "contractions in that norm, so only the 2-norm assumption carries over (enrnn.decay, "
                                "enrnn.decay.corrected)"),
    Statement("Theorem 3.1", ("enrnn.theorem3.1", "enrnn.decay.corrected", "enrnn.theorem3.1.general")),
    Statement("Sec. 3, remark after Theorem 3.1 (the bounds go to zero as τ grows)",
              ("enrnn.theorem3.1", "enrnn.decay", "enrnn.normalisation"),
              "true under ‖W^(S)‖₂ < 1, which ρ(W^(S)) < 1 does not give (enrnn.decay) and ε = 0 forbids "
              "(enrnn.normalisation)",
              finding=Finding("false", "enrnn.normalisation",
                              "the bounds need ‖W^(S)‖₂ < 1, impossible at Sec. 5's ε = 0 (ρ(W^(S)) = 1 ≤ ‖W^(S)‖₂)")),
    Statement("Sec. 3.1, W^(S) = T/(ρ(T) + ε) (eigenvalues of modulus less than one)", ("enrnn.normalisation",),
              finding=Finding("false", "enrnn.normalisation",
                              "'eigenvalues with modulus less than one' fails at Sec. 5's ε = 0: ρ(W^(S)) = 1 "
                              "exactly")),
    Statement("Proposition 3.2", ("enrnn.proposition3.2", "enrnn.proposition3.2.corrected")),
    Statement("Sec. 3.1, note after Proposition 3.2 (λ or λ̄ give the same derivative)", ("enrnn.conjugate",)),
    Statement("Sec. 3.1, note after Proposition 3.2 (eq. 7 fails only where a multiple eigenvalue divides by 0; "
              "rare; never occurred), checked at a simple λ that shares the modulus ρ",
              ("enrnn.eq7", "enrnn.eq7.corrected"),
              "the formula fails whenever another eigenvalue shares the modulus ρ, simple or not (enrnn.eq7), "
              "a case the remark does not mention; 'measure zero' is standard; 'never occurred in our experiments' "
              "is " + _EMPIRICAL + ". Decision: 'division by 0' holds for a defective λ (v*u = 0) but not for a "
              "semisimple multiple one, where u, v can be chosen with v*u = 1 and ρ is still not differentiable; "
              "this gets no verdict of its own because the remark's conclusion (eq. 7 cannot be used there) is "
              "right in both cases, only its stated cause differs",
              finding=Finding("false", "enrnn.eq7",
                              "the formula also fails for a simple λ when another eigenvalue shares the modulus ρ, "
                              "a case the note does not mention")),
    Statement("eq. (4)", ("enrnn.eq4", "enrnn.eq4.corrected")),
    Statement("Sec. 3.1, paragraph after eq. (4) (the naive step may not decrease L; eq. 4's does)",
              ("enrnn.eq4", "enrnn.eq4.corrected"),
              "the naive step's possible failure is an existence remark, confirmed by a case in "
              "tests/bounds/enrnn/test_eq4.py"),
    Statement("Sec. 3.2 (Schur O((n − q)³) against O(BLn²); power method O((n − q)²))", ("enrnn.complexity",)),
    Statement("eq. (5)", ("enrnn.eq5", "enrnn.eq5.corrected")),
    Statement("Sec. 4, second paragraph (W^(S) = T until ρ(T) > 1, then eq. 4 for good)",
              ("enrnn.normalisation", "enrnn.coupling")),
    Statement("Sec. 4, third paragraph (modReLU)", reason="a definition (σ_modReLU(z) = z/|z| σ_ReLU(|z| + b))"),
    Statement("Sec. 5, first paragraph (ε = 0 in Proposition 3.2; the tuning grids)",
              ("enrnn.sec5", "enrnn.normalisation", "enrnn.proposition3.2"),
              "ε = 0 is outside Proposition 3.2's ε > 0 and makes ρ(W^(S)) = 1 exactly (enrnn.normalisation)",
              finding=Finding("false", "enrnn.normalisation",
                              "ε = 0 contradicts Sec. 1, 3 and 3.1's spectral radius less than 1 and the abstract's"
                              " decay: ρ(W^(S)) = 1 exactly")),
    Statement("Sec. 5.1 (adding baseline 0.167; sizes and settings)", ("enrnn.baselines", "enrnn.sec5")),
    Statement("Sec. 5.1, last sentences; Sec. 5.2, Figure 2; Sec. 6.1–6.2, Figures 4–7 (convergence, gradient "
              "heat maps, state sizes)", reason=_EMPIRICAL),
    Statement("Sec. 5.2 (copying layout, length T + 20, baseline; ≈ 7 times more parameters)",
              ("enrnn.baselines", "enrnn.table1", "enrnn.sec5")),
    Statement("Table 1", ("enrnn.table1", "enrnn.table1.corrected", "enrnn.sec5"),
              "every row's # params (oRNN, uRNN, Spectral RNN, scoRNN, LSTM, ENRNN) and the optimizer column"),
    Statement("Sec. 5.3 (TIMIT; ≈ 6 times more parameters; comparisons; PESQ and STOI ranges)",
              ("enrnn.table1", "enrnn.comparisons"), "the data set sizes are facts of TIMIT, not checkable"),
    Statement("Table 2", ("enrnn.table1", "enrnn.comparisons"),
              "# params recomputed; the MSE and perceptual scores are " + _EMPIRICAL),
    Statement("Sec. 5.4 (character PTB; ≈ 8.5 times more parameters; ENRNN outperforms)",
              ("enrnn.table1", "enrnn.table1.corrected", "enrnn.comparisons", "enrnn.complexity")),
    Statement("Table 3", ("enrnn.table1", "enrnn.table1.corrected", "enrnn.comparisons"),
              "ENRNN and LSTM rows recomputed; the GRU, EURNN, GORU, oRNN and nnRNN rows come from other papers' "
              "setups not given here; BPC values are " + _EMPIRICAL),
    Statement("Sec. 6.1–6.2 (block sizes 24/16 of 40; 64/96 of 160)", ("enrnn.sec5",)),
    Statement("Sec. 7 (conclusion)", reason="a summary of the claims above"),
    Statement("Sec. 8.1 (proof of Theorem 3.1)", ("enrnn.proof3.1",)),
    Statement("eq. (6)", ("enrnn.proof3.2",)),
    Statement("eq. (7)", ("enrnn.proof3.2", "enrnn.eq7", "enrnn.eq7.corrected")),
    Statement("eq. (8)", ("enrnn.proof3.2",)),
    Statement("Sec. 8.2, final display of the proof", ("enrnn.proof3.2",)),
    Statement("Sec. 8.2, remark after the proof (λ̄ with ū, v̄ gives S̄ and the same C)", ("enrnn.conjugate",)),
)
