"""Claims of Miller & Hardt 2019, "Stable Recurrent Models" (ICLR; arXiv 1805.10369).

================================== ========================================================== ==================
claim id                           where in the paper                                         module
================================== ========================================================== ==================
``miller_hardt2019.rnn_stable``    stability (contractive state map) and the vanilla-RNN      ``stability``
                                   sufficient condition ‖W‖ < 1/L_ρ
``miller_hardt2019.data_dependent`` data-dependent stability, local form, any cell           ``data_dependent``
================================== ========================================================== ==================

What was read: the abstract and introduction (ar5iv, arXiv-vanity, a conference-text rendering and a LaTeX
source of v4, through the search tool's excerpts, which give only each page's beginning). The numbered
definitions, propositions and theorems themselves were not in any excerpt; the statements above are the
issue's paraphrase, checked, and the index says which results remain unread (their constants are not guessed).
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.miller_hardt2019.data_dependent import data_dependent
from rnnaudit.bounds.miller_hardt2019.rnn_stable import rnn_stable

__all__ = ["CLAIMS", "COVERAGE", "rnn_stable", "data_dependent"]

CLAIMS = (rnn_stable, data_dependent)

_NOT_READ = ("its wording and constants could not be read from a primary source here (only the abstract and "
             "introduction were in the available excerpts); not guessed")

COVERAGE = (
    Statement("Definition of stability (a λ-contractive state map, λ < 1)", ("miller_hardt2019.rnn_stable",)),
    Statement("Sufficient condition for the vanilla RNN (‖W‖₂ < 1/L_ρ, ρ L_ρ-Lipschitz)", ("miller_hardt2019.rnn_stable",),
              "the spectral norm, as checked; the paper's own wording was not read"),
    Statement("Sufficient condition for the LSTM",
              reason=_NOT_READ + ". Tried: the search tool's pages corpus with the condition's terms (forget gate, "
                     "‖W_f‖, ‖U_f‖, b_f, 'stable if', ∞-norm contraction) returned only the first page of the "
                     "ar5iv, arXiv-vanity, ICLR-text and LaTeX-source renderings; its code corpus, an exact-string "
                     "search ('LSTM is stable if') and a repository search ('stable-recurrent', 'stable_rnn') "
                     "found no copy of the statement. Re-run for the index: 'Stable recurrent models LSTM stable if "
                     "forget gate ‖W_f‖ condition proposition' returned the same first pages (ar5iv, arXiv-vanity, "
                     "the ICLR text, a LaTeX source of v4)"),
    Statement("Feed-forward approximation of a stable model (inference, truncation at k steps), checked only as "
              "the decay λ^(t−s) of an input's influence, not as a truncation-error bound",
              ("miller_hardt2019.data_dependent",),
              "checked in its local form (an input's influence decays as λ^(t−s)); the paper's printed bound: "
              + _NOT_READ),
    Statement("Equivalence under training by gradient descent (the main theorem)", reason=_NOT_READ),
    Statement("Stable models cannot have exploding gradients",
              reason="the paper's wording not read, so not mapped: the related fact (a growing gradient needs an "
                     "expanding step) is checked for any cell by pascanu2013.exploding.general, a claim of another "
                     "paper, which does not check this paper's wording"),
    Statement("Data-dependent stability of nominally unstable trained models (Sec. on experiments)",
              ("miller_hardt2019.data_dependent",),
              "the measurement on a given model is what the audit reports; the paper's own numbers are empirical "
              "results of its training runs"),
    Statement("Experiments (language modelling, polyphonic music, speech: stable vs unstable models)",
              reason="an empirical result of the paper's training runs"),
)
