"""Claims of the echo state property's classic conditions: Jaeger 2001 (GMD Report 148, sufficient σ_max(W) < 1,
necessary ρ(W) < 1 for zero input) and Yildiz, Jaeger & Kiebel 2012 ("Re-visiting the echo state property",
Neural Networks 35).

============================ ============================================================== ==============
claim id                     statement                                                      module
============================ ============================================================== ==============
``echo_state.sufficient``    σ_max(W) < 1 ⇒ ESP (tanh; relu, torch's nn.RNN every layer,    ``sufficient``
                             IndRNN by extension)
``echo_state.necessary``     zero input: ρ(W) > 1 ⇒ no ESP (the zero state is unstable)     ``necessary``
============================ ============================================================== ==============

What was read: neither Jaeger's report nor Yildiz et al.'s article was available to the search tool; the
statements are the issue's paraphrase of the standard conditions, checked here.
"""

from rnnaudit.bounds.core import Statement
from rnnaudit.bounds.echo_state.necessary import necessary
from rnnaudit.bounds.echo_state.sufficient import sufficient

__all__ = ["CLAIMS", "COVERAGE", "sufficient", "necessary"]

CLAIMS = (sufficient, necessary)

_NOT_READ = "the primary source's wording and constructions could not be read here; not guessed"

COVERAGE = (
    Statement("Jaeger 2001, definition of the echo state property", ("echo_state.sufficient",),
              "checked through the convergence of two trajectories of the same input"),
    Statement("Jaeger 2001, sufficient condition σ_max(W) < 1", ("echo_state.sufficient",)),
    Statement("Jaeger 2001, necessary condition ρ(W) < 1 (zero input)", ("echo_state.necessary",)),
    Statement("Jaeger 2001, the recipe: scale a random W to ρ(W) slightly below 1",
              reason="a design recipe; that ρ(W) < 1 alone does not give the ESP is Yildiz et al.'s point"),
    Statement("Yildiz, Jaeger & Kiebel 2012, ρ(W) < 1 is not sufficient for the ESP", reason=_NOT_READ),
    Statement("Yildiz, Jaeger & Kiebel 2012, the sufficient condition through a diagonal scaling "
              "(σ_max(D W D⁻¹) < 1)", reason=_NOT_READ),
    Statement("Yildiz, Jaeger & Kiebel 2012, the recipe for reservoirs with the ESP (non-negative W)",
              reason=_NOT_READ),
)
