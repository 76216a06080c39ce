"""A note is not a verdict (docs/verdicts.md, "Notes and decisions"): every sentence of a claim's explanation or
notes, and of a statement-index reason, that speaks of an error of the paper ("misprint", "should be", "sign",
"missing", "wrong", "not judged", "typo", ...) is shown by a failing verdict or a failing reading (of its own
claim or of a claim it names), or is marked as a stated decision ("Decision: ...") that the report shows."""

import dataclasses
import re

import pytest

from rnnaudit.bounds import COVERAGE_BY_PAPER, PAPERS, PROFILES, all_claims, check_claim, claim_by_id
from rnnaudit.bounds.core import Finding, Statement

#: The vocabulary of an erratum.
ERRATUM = re.compile(r"\b(misprint\w*|should (?:be|read|have)|signs?|missing|wrong|not judged|typos?|errat\w*|"
                     r"incorrect\w*|slips?|mistakes?|transcri\w*|garbled|overstate\w*|inconsisten\w*|not checked|"
                     r"loses?|not what|polynomial (?:of degree|in [‖|])|do(?:es)? not fix|alone do(?:es)? not|"
                     r"insufficient\w*|short of|miscount\w*|but not for|stated with\b[^.;]*\bbut)\b",
                     re.IGNORECASE)

#: The vocabulary of an error the text admits but leaves unchecked: wrong in a shown claim too, unless decided.
UNCHECKED = re.compile(r"\b(not checked|not judged|no verdict|unchecked|not counted)\b", re.IGNORECASE)

#: An error the text leaves to a reading it does not check.
LEFT_OPEN = re.compile(r"\breadings? (?:is|are|remains?) open\b", re.IGNORECASE)


def admits_unchecked_error(s: str) -> bool:
    """Whether ``s`` says that an error is left unchecked: it names an error and says it is not checked (or judged,
    counted, given a verdict), or leaves it to an open reading. "The counts need data the paper does not give and
    are not checked" names no error."""
    return bool(LEFT_OPEN.search(s) or (UNCHECKED.search(s) and ERRATUM.search(UNCHECKED.sub("", s))))


#: A sentence that names a claim's verdict: "nc_gru.theorem1, which is false", "(enrnn.eq4, misprinted)".
_NAMED_VERDICT = re.compile(r"\b((?:" + "|".join(PAPERS) + r")\.[\w.]*\w)(?:,| is| \()\s*(?:which is )?"
                            r"(false|misprinted)\b")

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
    "spectral_rnn.theorem4", "nc_gru.sec4_3", "echo_state.rho_sufficient", "nc_gru.sec4_lm", "srnn.relu_vanishing",
    "xlstm.stabiliser", "xlstm.normaliser",
}

_ID = re.compile(r"\b(?:" + "|".join(PAPERS) + r")\.[\w.]*\w")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a full stop or semicolon followed by a capital, a quote or a parenthesis)."""
    return [s for s in re.split(r"(?<=[.;])\s+(?=[A-Z'‘(])", text) if s.strip()]


def _verdicts_named() -> dict[str, str]:
    """Each claim's failing headline verdict as the tests pin it: ``misprinted`` (tests/bounds/test_readings.py) or
    the verdict of a finding that names it (test_coverage checks those against the claims)."""
    from tests.bounds.test_readings import MISPRINTED
    out = {e.finding.claim: e.finding.verdict for entries in COVERAGE_BY_PAPER.values() for e in entries
           if e.finding is not None}
    out.update(dict.fromkeys(MISPRINTED, "misprinted"))
    return out


def misnamed_verdicts(s: str, verdicts: dict[str, str]) -> list[str]:
    """The claims ``s`` names with a verdict ("X, which is false") other than the one the tests pin for X."""
    return [cid for cid, said in _NAMED_VERDICT.findall(s) if cid in verdicts and verdicts[cid] != said]


def unshown(owner_ids: set[str], text: str, *, hypothetical_ok: bool = False, shown: set[str] = SHOWN,
            verdicts: dict[str, str] | None = None, names_required: bool = False) -> list[str]:
    """The sentences of ``text`` that use the vocabulary of an erratum but are neither shown nor decisions.
    Everything after a "Decision:" marker counts as the decision. Per sentence:

    - a sentence that names a failing claim by id (in ``shown``) is shown by it;
    - else, when ``names_required`` is false, a sentence of a claim in ``shown`` is shown by its owner, unless it
      admits an error left unchecked ("not checked", "another reading is open", ...): that needs a decision;
    - a sentence that names a claim with a verdict other than the claim's (``verdicts``) is reported anyway.

    ``names_required``: an index reason that records a finding, whose sentences must each name the claim that shows
    them (the finding's claim covers only its summary). ``hypothetical_ok``: a sentence that begins with "Would"
    (an explanation of what a violation would mean) is not about the paper."""
    verdicts = {} if verdicts is None else verdicts
    out = []
    for s in sentences(text.split(DECISION, 1)[0]):
        if misnamed_verdicts(s, verdicts):
            out.append(s)
            continue
        if not ERRATUM.search(s) or (hypothetical_ok and s.startswith("Would")):
            continue
        if set(_ID.findall(s)) & shown:
            continue
        if not names_required and owner_ids & shown and not admits_unchecked_error(s):
            continue
        out.append(s)
    return out


def erratum_sentences_not_shown(claims=None, coverage=None, shown: set[str] = SHOWN,
                                verdicts: dict[str, str] | None = None) -> list[str]:
    """One line per unshown sentence, over ``claims`` (default: all) and ``coverage`` (paper → statement entries;
    default: every paper's index). ``verdicts``: claim id → its failing verdict (default: as the tests pin them)."""
    claims = all_claims() if claims is None else claims
    coverage = COVERAGE_BY_PAPER if coverage is None else coverage
    verdicts = _verdicts_named() if verdicts is None else verdicts
    out = []
    for c in claims:
        for s in (unshown({c.id}, c.explanation, hypothetical_ok=True, shown=shown, verdicts=verdicts)
                  + unshown({c.id}, c.notes, shown=shown, verdicts=verdicts)):
            out.append(f"{c.id}: {s}")
    for paper, entries in coverage.items():
        for e in entries:
            owners = set(e.claims) | ({e.finding.claim} if e.finding is not None else set())
            for s in unshown(owners, e.reason, shown=shown, verdicts=verdicts,
                             names_required=e.finding is not None):
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


def test_an_error_beside_a_shown_one_is_reported_sentence_by_sentence():
    """The negative controls of the per-sentence rules, on sentences an independent referee found in earlier notes:
    a shown claim's sentence that leaves an error to an open reading or calls it 'not checked'; an index reason with
    a finding whose other sentence names a different error; a claim named with a verdict it does not have; and the
    vocabulary of a loss, a miscount or an insufficient justification. Each passes once it is a decision."""
    shown = claim_by_id("sgornn.sec3.model_count")
    open_reading = dataclasses.replace(shown, notes="Not checked, because another reading is open: the captions of "
                                                    "Fig. 1 say 'the three models'.")
    slip = dataclasses.replace(shown, notes="The printed rule gives depth 1: an inequality slip, not checked as the "
                                            "statement.")
    assert len(erratum_sentences_not_shown([open_reading, slip], {})) == 2
    assert erratum_sentences_not_shown([dataclasses.replace(shown, notes="Decision: " + slip.notes)], {}) == []
    # a shown claim's erratum that its verdict shows passes
    assert erratum_sentences_not_shown([dataclasses.replace(shown, notes="The captions miscount the models.")],
                                       {}) == []
    holding = claim_by_id("pascanu2013.gamma")
    misnamed = dataclasses.replace(holding, notes="Its α, β are those of nc_gru.theorem1, which is false.")
    assert erratum_sentences_not_shown([misnamed], {}, verdicts={"nc_gru.theorem1": "misprinted"}) != []
    assert erratum_sentences_not_shown([misnamed], {}, verdicts={"nc_gru.theorem1": "false"}) == []
    for words in ("NC-GRU(Ur, Uc) alone loses to GRU on the adding task.",
                  "The rate is that of the products, which the eigenvalues alone do not fix.",
                  "G(w) is a polynomial of degree 2T − 2 in ‖W‖ (exponential in T).",
                  "He initialisation alone does not give unit variance.",
                  "The bound stops one column short of what the proof uses.",
                  "Eq. 18 is stated with the exact inverse, but line 7 multiplies by the stored one."):
        assert erratum_sentences_not_shown([dataclasses.replace(holding, notes=words)], {}) != [], words
    finding = Finding("false", "enrnn.eq7", "the formula also fails for a simple λ")
    entry = Statement("note after Proposition 3.2", ("enrnn.eq7",),
                      "the formula fails for a simple λ (enrnn.eq7); 'division by 0' holds for a defective λ but not "
                      "for a semisimple one", finding)
    assert len(erratum_sentences_not_shown([], {"enrnn": (entry,)})) == 1
    decided = dataclasses.replace(entry, reason=entry.reason.replace("; 'division", ". Decision: 'division"))
    assert erratum_sentences_not_shown([], {"enrnn": (decided,)}) == []
