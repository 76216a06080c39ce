"""Claims of Pascanu, Mikolov & Bengio 2013, "On the difficulty of training recurrent neural networks" (ICML;
arXiv 1211.5063), cited by spectral_rnn.md and enrnn.md; one module per statement.

=================================== ======================================================== ==============
claim id                            where in the paper                                       module
=================================== ======================================================== ==============
``pascanu2013.gamma``               Sec. 2.1: γ = 1 for tanh, 1/4 for sigmoid                ``gamma``
``pascanu2013.eq5``                 eq. (5) as printed (Wᵀ diag(σ')): false                  ``eq5``
``pascanu2013.eq5.corrected``       eq. (5) with W diag(σ')                                  ``eq5``
``pascanu2013.linear``              Sec. 2.1, linear model: ρ(W_rec) < 1 sufficient for      ``linear``
                                    vanishing as t → ∞, ρ > 1 necessary for exploding
``pascanu2013.vanishing``           Sec. 2.1: λ₁ < 1/γ is sufficient for vanishing           ``vanishing``
                                    (vanilla RNN, torch's nn.RNN every layer, IndRNN)
``pascanu2013.vanishing.general``   the same argument for any cell, η measured on the data   ``vanishing_general``
``pascanu2013.exploding``           Sec. 2.1: λ₁ > 1/γ is necessary for exploding            ``exploding``
``pascanu2013.exploding.general``   the same for any cell                                    ``exploding_general``
=================================== ======================================================== ==============

Which version: the vanishing and exploding claims check the published ICML 2013 version, where λ₁ is the largest
singular value of W_rec. The arXiv preprint's λ₁ = |largest eigenvalue| is recorded as a reading of each; it is
false (W = [[0.5, 3], [0, 0.5]]: ρ = 0.5 < 1/γ but ‖W‖₂ = 3.08, gradients grow for four steps).

What was read: the abstract and introduction (arXiv-vanity rendering, through the search tool), eq. (5) as quoted
in a Q&A thread, and Sec. 2.1's sentence defining λ₁ as quoted from each version in two Q&A threads
(stats.stackexchange 293862: singular value; ai.stackexchange 20378: the arXiv eigenvalue wording); neither
version's own text was readable here. The numbering of the
remaining displays could not be read, so the index below names sections.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.pascanu2013.eq5 import eq5, eq5_corrected
from rnnaudit.bounds.pascanu2013.exploding import exploding
from rnnaudit.bounds.pascanu2013.exploding_general import exploding_general
from rnnaudit.bounds.pascanu2013.gamma import gamma
from rnnaudit.bounds.pascanu2013.linear import linear
from rnnaudit.bounds.pascanu2013.vanishing import vanishing
from rnnaudit.bounds.pascanu2013.vanishing_general import vanishing_general

__all__ = ["CLAIMS", "COVERAGE", "gamma", "eq5", "eq5_corrected", "linear", "vanishing", "vanishing_general", "exploding",
           "exploding_general"]

CLAIMS = (gamma, eq5, eq5_corrected, linear, vanishing, vanishing_general, exploding, exploding_general)

_NOT_READ = ("the statement's wording could not be read from a primary source here (only excerpts were available). "
             "Tried (search tool, pages corpus; re-run for the index): the title with 'ICML 2013 equation (2) x_t = "
             "W_rec σ(x_(t−1)) + W_in u_t + b', 'linear model spectral radius smaller than 1 long term components "
             "vanish t → ∞', 'proceedings.mlr.press v28 pascanu13': only the arXiv-vanity rendering's first page "
             "(which numbers the vanilla model eq. (11)) and the PMLR abstract came back")
_EMPIRICAL = "an empirical result of the paper's training runs (needs its tasks and trained models)"

COVERAGE = (
    Statement("eq. (1)–(2) (the generic recurrent network and its parametrisation)",
              reason="definitions; the vanilla form (eq. (11) in arXiv 1211.5063; the ICML text's numbering was not "
                     "readable here) is the case family of pascanu2013.vanishing"),
    Statement("eq. (3)–(4) (the loss as a sum over time, the gradient as a sum of temporal contributions)",
              reason="definitions of backpropagation through time; the products of step Jacobians they contain are "
                     "what pascanu2013.vanishing measures"),
    Statement("eq. (5) (∂x_i/∂x_(i−1) = W_recᵀ diag(σ'(x_(i−1))))", ("pascanu2013.eq5", "pascanu2013.eq5.corrected")),
    Statement("Sec. 2.1, the linear model: ρ(W_rec) < 1 (spectral radius) sufficient for the long-term components "
              "to vanish as t → ∞, ρ(W_rec) > 1 necessary for them to explode",
              ("pascanu2013.linear",), "the limit t → ∞ checked through a Lyapunov certificate that bounds ‖W^t‖₂ at "
              "every t and goes to 0; the singular-value bound of the nonlinear model is pascanu2013.vanishing"),
    Statement("Sec. 2.1, sufficient condition for vanishing (λ₁ < 1/γ)",
              ("pascanu2013.vanishing", "pascanu2013.vanishing.general"),
              "λ₁ the largest singular value (ICML version); the arXiv preprint's largest eigenvalue is a reading "
              "of pascanu2013.vanishing, false"),
    Statement("Sec. 2.1, necessary condition for exploding (λ₁ > 1/γ), by its contrapositive; the search draws "
              "no case with γλ₁ below 1.1",
              ("pascanu2013.exploding", "pascanu2013.exploding.general"),
              "λ₁ the largest singular value (ICML version); the arXiv preprint's largest eigenvalue is a reading "
              "of pascanu2013.exploding, false. The ratio rule accepts λ₁ = 1/γ, but there ‖∂x_t/∂x_k‖₂ ≤ "
              "(γλ₁)^(t−k) = 1, so no case with equality meets the assumption that a gradient grows: the "
              "strictness follows from the bound, it is not measured"),
    Statement("Sec. 2.1, γ = 1 for tanh and 1/4 for sigmoid", ("pascanu2013.gamma",)),
    Statement("Sec. 2.2 (dynamical systems view: bifurcations, basins of attraction)",
              reason="qualitative; " + _NOT_READ),
    Statement("Sec. 2.3 (geometric interpretation: walls in the error surface)", reason="qualitative; " + _NOT_READ),
    Statement("Sec. 3.2, Algorithm 1 (gradient norm clipping)",
              reason="an algorithm, not a statement; clipping is what rnnaudit's training loop offers"),
    Statement("Sec. 3.3 (the regulariser Ω preserving the norm of the backpropagated error)", reason=_NOT_READ),
    Statement("Sec. 4 (experiments: temporal-order, addition, multiplication tasks; polyphonic music, PTB)",
              reason=_EMPIRICAL),
)
