"""nc_gru.md, Sec. 4.5–4.7, the arithmetic of the data-set sizes the text states: the character PTB splits add up to
"approximately 6 million characters", WikiText-2's splits to "approximately 2.2 million words", and WikiText-2 "is
almost twice the size of the Penn TreeBank dataset" (word level, Sec. 4.6). The sizes themselves need the data
sets; only their consistency is checked."""

from __future__ import annotations

from fractions import Fraction

import torch

from rnnaudit.bounds.core import Claim, ExactVerdict, Reading
from rnnaudit.bounds.nc_gru.sec4_1 import A_PRINTED
from rnnaudit.bounds.nc_gru.tables import TABLE_CASES

__all__ = ["sec4_data", "DATA_PARTS", "APPROXIMATELY"]

#: "Approximately" read as within 10 % (relative deviation ≤ 1/10).
APPROXIMATELY = Fraction(1, 10)

_PTB_WORDS = 888_000 + 70_000 + 79_000


def _rel(value: Fraction, target: Fraction) -> Fraction:
    return abs(value - target) / target


#: part → the relative deviations of its readings (the most favourable one is used).
DATA_PARTS: dict[str, tuple[Fraction, ...]] = {
    "Sec. 4.5: 5.1 M + 400 k + 450 k characters ≈ 6 million": (_rel(Fraction(5_950_000), Fraction(6_000_000)),),
    "Sec. 4.7: 2 M + 200 k for validation and test ≈ 2.2 million words (200 k each, or together)": (
        _rel(Fraction(2_400_000), Fraction(2_200_000)), _rel(Fraction(2_200_000), Fraction(2_200_000))),
    "Sec. 4.7: WikiText-2 almost twice the size of PTB (2.2 M over 1.037 M words, or 2 M over 888 k training words)": (
        _rel(Fraction(2_200_000, _PTB_WORDS), Fraction(2)), _rel(Fraction(2_000_000, 888_000), Fraction(2))),
}


def _measure(case) -> dict[str, tuple]:
    return {f"{k} (within 10 %)": (torch.tensor(float(min(v)), dtype=torch.float64),
                                   torch.tensor(float(APPROXIMATELY), dtype=torch.float64))
            for k, v in DATA_PARTS.items()}


#: WikiText-2 over PTB in the two readings of 'the size' (totals, training sets).
_TWICE = (Fraction(2_200_000, _PTB_WORDS), Fraction(2_000_000, 888_000))


def _measure_strict(case) -> dict[str, tuple]:
    """The other two parts as printed; 'almost twice' read strictly: the ratio below 2 (measured: the smaller ratio,
    bound 2)."""
    parts = {k: v for k, v in _measure(case).items() if "almost twice" not in k}
    parts["Sec. 4.7: WikiText-2 almost twice the size of PTB, read as at most 2 (smaller of the two ratios)"] = (
        torch.tensor(float(min(_TWICE)), dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64))
    return parts


def _exact() -> ExactVerdict:
    import sympy

    lines, ok = [], True
    for k, v in DATA_PARTS.items():
        best = min(sympy.Rational(x.numerator, x.denominator) for x in v)
        ok &= bool(best <= sympy.Rational(1, 10))
        lines.append(f"{k}: relative deviation {best} ≈ {float(best):.4f}")
    return ExactVerdict("proved" if ok else "violated", "; ".join(lines))


sec4_data = Claim(
    id="nc_gru.sec4_data",
    source="nc_gru.md, Sec. 4.5 (character PTB), 4.6 (word PTB) and 4.7 (WikiText-2), data-set sizes",
    statement="Character PTB: ≈ 6 million characters, split 5.1 M / 400 k / 450 k; WikiText-2: ≈ 2.2 million words, "
              "2 M for training and 200,000 for validation and test; WikiText-2 is almost twice the size of PTB "
              "(888 k / 70 k / 79 k words)",
    assumptions=(A_PRINTED,),
    measure="relative deviation of the sums and ratios from the stated totals, for the most favourable reading",
    bound="1/10 ('approximately', 'almost' read as within 10 %)",
    evaluate=_measure,
    cases=TABLE_CASES,
    explanation="Would mean the stated splits do not add up to the stated totals.",
    notes="Readings: '200,000 for the validation and test sets, respectively' as 200 k each (total 2.4 M, 9.1 % above "
          "2.2 M) or together (2.2 M); 'twice the size of PTB' by totals (2.12) or training sets (2.25). The "
          "most favourable reading is used for the printed form. Read strictly, 'almost twice' (not more than 2) "
          "fails both (2.12, 2.25): the reading below, false. The headline stays 'holds' (the printed form holds "
          "in the reading 'within 10 %'); the report shows both.",
    exact=_exact,
    readings=(Reading(
        "'almost twice' read as at most twice",
        "WikiText-2 is almost twice, i.e. not more than twice, the size of PTB (2.2 M over 1.037 M words, or 2 M over "
        "888 k training words); the other two sums as printed",
        "'almost' in its ordinary sense (nearly but not quite), the sentence's own word; Sec. 4.6 and 4.7 give both "
        "sizes",
        _measure_strict),),
)
