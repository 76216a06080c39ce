"""A results.json document as a full ``rnnaudit check`` of the five papers writes it, built from the
real claim records (their statements, assumptions and explanations, with the papers' notation), with
verdicts and ratios like those of the quick profile and every optional field, so that the report
tests see what a researcher sees without running the checks."""

import pytest
from PIL import Image

FAILING = ("false", "misprinted")

#: verdicts and worst ratios of the quick profile (README), for the claims that are not "holds"; the misprinted
#: ones carry a reading that holds and one that fails (READINGS)
VERDICTS = {
    "nc_gru.theorem1": ("false", "inf"), "spectral_rnn.eq13": ("false", 3.8e10),
    "enrnn.proposition3.2": ("false", 1.1e10), "srnn.eq9": ("false", 4.1e9),
    "srnn.eq11": ("false", 1342.0), "spectral_rnn.param_count": ("false", 1312.0),
    "srnn.eq10": ("false", 368.0), "sgornn.eq31": ("false", 8.0), "srnn.gamblers_ruin": ("misprinted", 7.7),
    "spectral_rnn.table1": ("false", 5.3), "nc_gru.corollary2": ("misprinted", 4.0),
    "nc_gru.corollary3": ("false", 2.7), "enrnn.eq5": ("false", 2.35),
    "spectral_rnn.theorem5": ("vacuous", 1.0), "sgornn.theorem1": ("inconclusive", 0.33),
}


READINGS = [{"name": "T as the game's duration", "statement": "E[steps until absorption at 0 or T + 1] = T",
             "support": "Sec. 3: the gambler's-ruin setting", "verdict": "holds", "worst_ratio": 0.61, "n_cases": 27,
             "exact": None},
            {"name": "a reading that fails", "statement": "E[steps | vanish] = T", "support": "Sec. 3, literal",
             "verdict": "false", "worst_ratio": 7.7, "n_cases": 27, "exact": None}]


def synthetic_document(out_dir, *, optional: bool = True) -> dict:
    """The document, with a small PNG figure written into ``out_dir``; ``optional=False`` leaves out
    the fields a document of an older version lacks (coverage, explanation, exact, ...)."""
    from rnnaudit.bounds import all_claims

    Image.new("RGB", (64, 48), (30, 120, 200)).save(out_dir / "fig.png")
    claims = []
    for i, claim in enumerate(all_claims()):
        verdict, ratio = VERDICTS.get(claim.id, ("holds", round(0.1 + 0.9 * (i % 7) / 6, 4)))
        if not optional and verdict in FAILING:  # format_version 1 had one word for both
            verdict = "violated"
        by_T = {"1": ratio} if "param_count" in claim.id or "table1" in claim.id else {"10": ratio, "100": ratio}
        entry = {"id": claim.id, "paper": claim.paper, "source": claim.source, "statement": claim.statement,
                 "assumptions": [a.name for a in claim.assumptions], "verdict": verdict, "worst_ratio": ratio,
                 "n_cases": 27, "median_ratio": 0.1,
                 "counterexample": f"counterexamples/{claim.id}.pt" if verdict in (*FAILING, "violated") else None,
                 "notes": (claim.explanation + " " if verdict in (*FAILING, "violated") else "") + claim.notes,
                 "measure": claim.measure, "bound": claim.bound, "worst_parts": {"eq. 7": ratio},
                 "tightness": {"by_T": by_T, "by_h": {"8": ratio}}}
        if optional:
            entry["explanation"] = claim.explanation
            entry["readings"] = READINGS if verdict == "misprinted" else []
            if claim.id == "sgornn.eq31":
                entry.update(worst_counterexample="counterexamples/sgornn.eq31.worst.pt", relative_error=2.5e-15,
                             exact={"verdict": "violated", "detail": "‖X‖_{1,1} = h‖X‖_F at X = 11ᵀ"}, supremum=None)
            if claim.id == "srnn.table1":
                entry.update(applies=False, reason="a timing claim: not a statement about one model's parameters")
            if claim.id == "sgornn.eq3":
                entry.update(exact={"verdict": "proved", "detail": "β ≤ 1 − 2α by the clipping rule"}, supremum=1.0)
        claims.append(entry)
    doc = {"rnnaudit_version": "0.1.0", "created": "2026-01-01T00:00:00+00:00", "device": "cpu",
           "dtype": "float64", "seed": 0, "profile": "quick", "papers_without_claims": [],
           "figures": [{"caption": "A figure with ‖∂h_t/∂h_s‖₂", "path": "fig.png"}], "claims": claims}
    if optional:
        doc["format_version"] = 2
        doc["coverage"] = [
            {"paper": "sgornn", "label": "Theorem 1", "status": "checked", "claims": ["sgornn.theorem1"], "reason": ""},
            {"paper": "sgornn", "label": "Lemma 1 (h_{t−1} bound)", "status": "not checked", "claims": [],
             "reason": "a statement about training dynamics, not a bound on U^(S)"},
            {"paper": "enrnn", "label": "Proposition 3.2", "status": "checked",
             "claims": ["enrnn.proposition3.2", "enrnn.proposition3.2.corrected"], "reason": ""},
        ]
    return doc


@pytest.fixture
def full_document(tmp_path):
    return synthetic_document(tmp_path), tmp_path
