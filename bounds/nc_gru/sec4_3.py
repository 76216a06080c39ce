"""nc_gru.md, Sec. 4.3 (Adding problem), the Results paragraph against Table 3: NC-GRU(Uc) is the best model
(holds); NC-GRU(Ur, Uc) "produced comparable or marginally better results than others" (false at T = 400)."""

from __future__ import annotations

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.nc_gru.sec4_1 import A_PRINTED
from rnnaudit.bounds.nc_gru.tables import (BASELINES, NC_UC, NC_URUC, TABLE_CASES, Comparison, comparison_parts,
                                           exact_comparisons)

__all__ = ["sec4_3", "sec4_3_corrected", "SEC4_3", "SEC4_3_CORRECTED", "COMPARABLE"]

#: "Comparable" read generously: a loss at most this factor above the best of the others.
COMPARABLE = 2.0

_BEST = tuple(Comparison(f"NC-GRU(Uc) shows the best performance of all compared models: Table 3, {T}", "Table 3", T,
                         NC_UC, BASELINES + (NC_URUC,)) for T in ("T = 200", "T = 400"))

#: The paragraph's comparisons as printed ("comparable or marginally better" read as within a factor 2).
SEC4_3 = _BEST + tuple(
    Comparison(f"NC-GRU(Ur, Uc) comparable or marginally better than the others (loss ≤ {COMPARABLE:g} × the best of "
               f"LSTM, GRU, scoRNN, GORU): Table 3, {T}", "Table 3", T, NC_URUC, BASELINES, COMPARABLE)
    for T in ("T = 200", "T = 400"))

#: What Table 3 supports for NC-GRU(Ur, Uc): better than LSTM and scoRNN at both lengths, within 2× of the best at
#: T = 200 only.
SEC4_3_CORRECTED = _BEST + tuple(
    Comparison(f"NC-GRU(Ur, Uc) better than LSTM and scoRNN: Table 3, {T}", "Table 3", T, NC_URUC, ("LSTM", "scoRNN"))
    for T in ("T = 200", "T = 400")) + (
    Comparison(f"NC-GRU(Ur, Uc) within {COMPARABLE:g} × the best baseline: Table 3, T = 200", "Table 3", "T = 200",
               NC_URUC, BASELINES, COMPARABLE),
    Comparison("GRU and GORU better than NC-GRU(Ur, Uc): Table 3, T = 400 (GRU)", "Table 3", "T = 400", "GRU",
               (NC_URUC,)),
    Comparison("GRU and GORU better than NC-GRU(Ur, Uc): Table 3, T = 400 (GORU)", "Table 3", "T = 400", "GORU",
               (NC_URUC,)))

sec4_3 = Claim(
    id="nc_gru.sec4_3",
    source="nc_gru.md, Sec. 4.3 (Adding problem), Results paragraph, with Table 3",
    statement="'our NC-GRU(Uc) model ... showed the best performance out of all the compared models, including our "
              "NC-GRU(Ur, Uc) model which produced comparable or marginally better results than others'",
    assumptions=(A_PRINTED,),
    measure="Table 3's minimum validation loss (×10⁻⁵) of the model said to be better",
    bound="the smallest loss among the models compared with, times 2 for 'comparable'",
    evaluate=lambda c: comparison_parts(SEC4_3),
    cases=TABLE_CASES,
    explanation="At T = 400 NC-GRU(Ur, Uc) has loss 5.412 against GRU's 2.1927539 and GORU's 2.927: 2.47 times the "
                "best baseline, neither comparable (even read as within a factor 2) nor marginally better. At T = 200 "
                "it is within 1.30 of GRU (4.086 against 3.137). See nc_gru.sec4_3.corrected.",
    notes="Reading: 'comparable or marginally better than others' = a loss at most twice the best of LSTM, GRU, scoRNN "
          "and GORU (the disjunction's weaker side, read generously; 'marginally better' implies it). The verdict "
          "would change only under a factor above 2.47.",
    exact=lambda: exact_comparisons(SEC4_3),
)

sec4_3_corrected = Claim(
    id="nc_gru.sec4_3.corrected",
    source="nc_gru.md, Sec. 4.3 with Table 3, corrected by rnnaudit",
    statement="NC-GRU(Uc) is the best model at T = 200 and 400; NC-GRU(Ur, Uc) beats LSTM and scoRNN at both, is "
              "within "
              "2× of the best baseline at T = 200, and is beaten by GRU and GORU at T = 400",
    assumptions=(A_PRINTED,),
    measure="as nc_gru.sec4_3",
    bound="as nc_gru.sec4_3",
    evaluate=lambda c: comparison_parts(SEC4_3_CORRECTED),
    cases=TABLE_CASES,
    explanation="Would mean Table 3 was read wrongly.",
    exact=lambda: exact_comparisons(SEC4_3_CORRECTED),
)
