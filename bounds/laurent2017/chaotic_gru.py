"""laurent2017 (arXiv 1612.06212): a GRU can be chaotic with zero input; rnnaudit's example and its top Lyapunov
exponent (see :mod:`rnnaudit.bounds.laurent2017.chaos` for the recipe and the estimator)."""

from __future__ import annotations

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.laurent2017.chaos import (
                                               BOUND,
                                               CHAOS_ASSUMPTIONS,
                                               MEASURE,
                                               RECIPES,
                                               SOURCE,
                                               chaos_cases,
                                               measure_chaos,
)

__all__ = ["chaotic_gru"]

chaotic_gru = Claim(
    id="laurent2017.chaotic_gru",
    source=SOURCE,
    statement="There is a GRU whose zero-input dynamics are chaotic",
    assumptions=CHAOS_ASSUMPTIONS,
    measure=MEASURE,
    bound=BOUND,
    evaluate=measure_chaos,
    cases=chaos_cases("gru"),
    explanation="The exhibited network would not be chaotic (λ₁ within 3 SE of 0 or negative).",
    notes=f"Holds: the exhibited GRU (recipe {RECIPES['gru']}: units, seed, gain) has λ₁ > 0 by many "
          "standard errors (docs/classic-papers.md gives the numbers). Its recurrent gains are far above what torch's "
          "initialisation draws; chaos in trained models is a matter of measurement, not of this statement.",
)
