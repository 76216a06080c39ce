"""nc_gru.md, Sec. 4.1 (Parenthesis task), the Results paragraph against Table 1: both NC-GRU models beat the four
baselines (holds), and "the NC-GRU(Ur, Uc) model performs better than the NC-GRU(Uc)" (false at T = 200)."""

from __future__ import annotations

from rnnaudit.bounds.core import Assumption, Claim
from rnnaudit.bounds.nc_gru.tables import (
                                           BASELINES,
                                           NC_UC,
                                           NC_URUC,
                                           TABLE_CASES,
                                           Comparison,
                                           comparison_parts,
                                           exact_comparisons,
)

__all__ = ["sec4_1", "sec4_1_corrected", "SEC4_1", "SEC4_1_CORRECTED", "A_PRINTED"]

#: The assumption of every claim about printed numbers: the values are the paper's own, as printed.
A_PRINTED = Assumption("the tables' values as printed (means over 3 seeds)", lambda c: (True, "Tables 1–9"))

_BOTH = tuple(Comparison(f"both NC-GRU beat LSTM, GRU, scoRNN, GORU: {m}, Table 1, {T}", "Table 1", T, m, BASELINES)
              for T in ("T = 100", "T = 200") for m in (NC_UC, NC_URUC))

#: The paragraph's comparisons as printed.
SEC4_1 = _BOTH + tuple(
    Comparison(f"NC-GRU(Ur, Uc) performs better than NC-GRU(Uc): Table 1, {T}", "Table 1", T, NC_URUC, (NC_UC,))
    for T in ("T = 100", "T = 200"))

#: What Table 1 supports: the two NC-GRU models trade places between T = 100 and T = 200.
SEC4_1_CORRECTED = _BOTH + (
    Comparison("NC-GRU(Ur, Uc) better than NC-GRU(Uc) at T = 100", "Table 1", "T = 100", NC_URUC, (NC_UC,)),
    Comparison("NC-GRU(Uc) better than NC-GRU(Ur, Uc) at T = 200", "Table 1", "T = 200", NC_UC, (NC_URUC,)))

sec4_1 = Claim(
    id="nc_gru.sec4_1",
    source="nc_gru.md, Sec. 4.1 (Parenthesis task), Results paragraph, with Table 1",
    statement="Both NC-GRU models outperform GRU, LSTM, scoRNN and GORU; 'On this task, the NC-GRU(Ur, Uc) model "
              "performs better than the NC-GRU(Uc); however, both perform better than the rest'",
    assumptions=(A_PRINTED,),
    measure="Table 1's minimum loss (×10⁻³) of the model said to be better, at T = 100 and T = 200",
    bound="the smallest loss among the models it is said to beat, same column",
    evaluate=lambda c: comparison_parts(SEC4_1),
    cases=TABLE_CASES,
    explanation="Table 1 at T = 200: NC-GRU(Ur, Uc) 0.221 ± 0.003 against NC-GRU(Uc) 0.217 ± 0.003 (ratio 1.018): "
                "the single-orthogonal model is better there; the sentence holds only at T = 100 (0.188 against "
                "0.267). See nc_gru.sec4_1.corrected.",
    notes="Reading: 'performs better' = smaller mean minimum loss in Table 1 (the table the paragraph cites), at "
          "each sequence length it reports; 'significant gap' is not tested (three seeds, no test statistic). The "
          "reversal "
          "at T = 200 is within about one standard deviation (0.221 ± 0.003 against 0.217 ± 0.003): what Table 1 "
          "supports is 'better at T = 100, tied at T = 200'. No reading is offered: 'performs better' cannot be read "
          "as 'is not worse beyond the printed standard deviations', so the sentence is false, not misprinted "
          "(docs/verdicts.md).",
    exact=lambda: exact_comparisons(SEC4_1),
)

sec4_1_corrected = Claim(
    id="nc_gru.sec4_1.corrected",
    source="nc_gru.md, Sec. 4.1 with Table 1, corrected by rnnaudit",
    statement="Both NC-GRU models beat the four baselines at T = 100 and 200; NC-GRU(Ur, Uc) is better than "
              "NC-GRU(Uc) at T = 100 and worse at T = 200",
    assumptions=(A_PRINTED,),
    measure="as nc_gru.sec4_1",
    bound="as nc_gru.sec4_1",
    evaluate=lambda c: comparison_parts(SEC4_1_CORRECTED),
    cases=TABLE_CASES,
    explanation="Would mean Table 1's values were read wrongly.",
    exact=lambda: exact_comparisons(SEC4_1_CORRECTED),
)
