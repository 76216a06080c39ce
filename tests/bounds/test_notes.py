"""A note is not a verdict (docs/verdicts.md, "Notes and decisions"): every sentence of a claim's explanation or
notes, and of a statement-index reason, that speaks of an error of the paper ("misprint", "should be", "sign",
"missing", "wrong", "not judged", "typo", ...) is shown by a failing verdict or a failing reading (of its own
claim or of a claim it names), or is marked as a stated decision ("Decision: ...") that the report shows."""

import dataclasses
import re

import pytest

from rnnaudit.bounds import COVERAGE_BY_PAPER, PAPERS, PROFILES, all_claims, check_claim, claim_by_id
from rnnaudit.bounds.core import Statement

#: The vocabulary of an erratum.
ERRATUM = re.compile(r"\b(misprint\w*|should (?:be|read|have)|signs?|missing|wrong|not judged|typos?|errat\w*|"
                     r"incorrect\w*|slips?|mistakes?|transcri\w*|garbled|overstate\w*|inconsisten\w*|not checked)\b",
                     re.IGNORECASE)

#: The marker of a stated decision (a sentence, or the rest of a text after it).
DECISION = "Decision:"

#: Every claim whose check shows a failing verdict (false, misprinted) or a failing reading, as the quick profile
#: with seed 0 finds it (test_every_listed_claim_shows_a_failure, slow, keeps the list true).
SHOWN = {
    "enrnn.baselines", "enrnn.conjugate", "enrnn.decay", "enrnn.eq3_sentence", "enrnn.eq4",
    "enrnn.eq5", "enrnn.eq7", "enrnn.normalisation", "enrnn.proof3.2", "enrnn.proposition3.2", "enrnn.sec5",
    "enrnn.table1", "nc_gru.corollary2", "nc_gru.corollary3", "nc_gru.eq37", "nc_gru.eq47", "nc_gru.eq7",
    "nc_gru.param_match", "nc_gru.sec2_1", "nc_gru.sec2_2", "nc_gru.sec3_3", "nc_gru.sec3_3_best", "nc_gru.sec4_1",
    "nc_gru.sec4_2", "nc_gru.sec4_data", "nc_gru.theorem1", "pascanu2013.eq5", "pascanu2013.exploding",
    "pascanu2013.vanishing", "sgornn.eq2.domain", "sgornn.eq24", "sgornn.eq3.clip", "sgornn.eq31",
    "sgornn.sec3.model_count", "spectral_rnn.algorithm1", "spectral_rnn.algorithm3", "spectral_rnn.assumption1",
    "spectral_rnn.copy_baseline", "spectral_rnn.param_count", "spectral_rnn.proposition1", "spectral_rnn.table1",
    "spectral_rnn.table4", "spectral_rnn.theorem3_construction", "spectral_rnn.theorem5_cover",
    "spectral_rnn.theorem5_step", "srnn.eq10", "srnn.eq11", "srnn.eq2", "srnn.eq9", "srnn.gamblers_ruin",
    "srnn.gamblers_ruin_horizon", "srnn.hidden_gradient", "srnn.shift_wlog", "srnn.table1_count",
    "spectral_rnn.theorem4", "nc_gru.sec4_3", "echo_state.rho_sufficient",
}

_ID = re.compile(r"\b(?:" + "|".join(PAPERS) + r")\.[\w.]*\w")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a full stop or semicolon followed by a capital, a quote or a parenthesis)."""
    return [s for s in re.split(r"(?<=[.;])\s+(?=[A-Z'‘(])", text) if s.strip()]


def unshown(owner_ids: set[str], text: str, *, hypothetical_ok: bool = False, shown: set[str] = SHOWN) -> list[str]:
    """The sentences of ``text`` that use the vocabulary of an erratum but are neither shown (their owner's claims, or
    a claim id they name, in ``shown``) nor decisions. Everything after a "Decision:" marker counts as the decision.
    ``hypothetical_ok``: a sentence that begins with "Would" (an explanation of what a violation would mean) is
    not about the paper."""
    if owner_ids & shown:
        return []
    out = []
    for s in sentences(text.split(DECISION, 1)[0]):
        if not ERRATUM.search(s) or (hypothetical_ok and s.startswith("Would")):
            continue
        if set(_ID.findall(s)) & shown:
            continue
        out.append(s)
    return out


def erratum_sentences_not_shown(claims=None, coverage=None, shown: set[str] = SHOWN) -> list[str]:
    """One line per unshown sentence, over ``claims`` (default: all) and ``coverage`` (paper → statement entries;
    default: every paper's index)."""
    claims = all_claims() if claims is None else claims
    coverage = COVERAGE_BY_PAPER if coverage is None else coverage
    out = []
    for c in claims:
        for s in unshown({c.id}, c.explanation, hypothetical_ok=True, shown=shown) + unshown({c.id}, c.notes,
                                                                                           shown=shown):
            out.append(f"{c.id}: {s}")
    for paper, entries in coverage.items():
        for e in entries:
            owners = set(e.claims) | ({e.finding.claim} if e.finding is not None else set())
            for s in unshown(owners if e.finding is None else owners | shown, e.reason, shown=shown):
                out.append(f"{paper}, {e.label}: {s}")
    return out


def test_no_erratum_lives_in_notes_alone():
    assert erratum_sentences_not_shown() == []


def test_an_erratum_in_the_notes_of_a_holding_claim_is_reported():
    """The negative control: a holding claim whose notes call a sign wrong, and an index entry that calls its
    statement a misprint, are reported; the same words marked as a decision, or naming a failing claim, are not."""
    holding = claim_by_id("pascanu2013.gamma")
    bad = dataclasses.replace(holding, notes="The printed sign of the bias is wrong.")
    assert erratum_sentences_not_shown([bad], {}) == ["pascanu2013.gamma: The printed sign of the bias is wrong."]
    decided = dataclasses.replace(holding, notes="Decision: the sign of the bias is wrong only in notation.")
    assert erratum_sentences_not_shown([decided], {}) == []
    named = dataclasses.replace(holding, notes="The sign is wrong, as pascanu2013.eq5 shows.")
    assert erratum_sentences_not_shown([named], {}) == []
    entry = Statement("eq. (9)", ("pascanu2013.gamma",), "a misprint: σ for σ'")
    assert erratum_sentences_not_shown([], {"pascanu2013": (entry,)}) != []
    assert erratum_sentences_not_shown([bad], {}, shown=SHOWN | {"pascanu2013.gamma"}) == []


def test_every_listed_claim_is_registered():
    ids = {c.id for c in all_claims()}
    assert SHOWN <= ids, SHOWN - ids


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", sorted(SHOWN))
def test_every_listed_claim_shows_a_failure(claim_id):
    result = check_claim(claim_by_id(claim_id), PROFILES["quick"], seed=0)
    assert result.fails or any(r.verdict == "false" for r in result.readings), (claim_id, result.verdict)
