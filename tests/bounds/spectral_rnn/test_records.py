"""Every spectral_rnn.md claim record names its source, statement, assumptions and what breaks; the index
covers every claim."""

from rnnaudit.bounds.spectral_rnn import CLAIMS, COVERAGE

#: The claim ids in the order the paper states them.
IDS = ["spectral_rnn.eq1", "spectral_rnn.theorem1", "spectral_rnn.theorem2", "spectral_rnn.dimensions",
       "spectral_rnn.theorem3", "spectral_rnn.theorem3_construction", "spectral_rnn.eq7",
       "spectral_rnn.param_count", "spectral_rnn.param_count.corrected",
       "spectral_rnn.eq13", "spectral_rnn.sec42", "spectral_rnn.table1",
       "spectral_rnn.table1.corrected",
       "spectral_rnn.lemma1", "spectral_rnn.theorem4", "spectral_rnn.assumption1",
       "spectral_rnn.assumption1.corrected",
       "spectral_rnn.theorem5", "spectral_rnn.addition_baseline", "spectral_rnn.copy_baseline", "spectral_rnn.table2",
       "spectral_rnn.table3", "spectral_rnn.proposition1", "spectral_rnn.proposition1.corrected", "spectral_rnn.lemma3",
       "spectral_rnn.eq24", "spectral_rnn.eq26", "spectral_rnn.theorem5_step", "spectral_rnn.theorem5_step.corrected",
       "spectral_rnn.theorem5_cover", "spectral_rnn.theorem5_cover.corrected", "spectral_rnn.algorithm1",
       "spectral_rnn.algorithm1.corrected", "spectral_rnn.algorithm3", "spectral_rnn.algorithm3.corrected",
       "spectral_rnn.table4"]


def test_claim_ids_in_paper_order_with_sources_and_assumptions():
    assert [c.id for c in CLAIMS] == IDS
    for c in CLAIMS:
        assert c.paper == "spectral_rnn" and c.source.startswith("spectral_rnn.md")
        assert c.statement and c.assumptions and c.explanation and c.measure and c.bound


def test_every_corrected_claim_sits_beside_its_original():
    ids = [c.id for c in CLAIMS]
    for i, cid in enumerate(ids):
        if cid.endswith(".corrected"):
            assert ids[i - 1] == cid.removesuffix(".corrected")


def test_the_index_has_a_reason_for_every_unchecked_statement():
    unchecked = [s for s in COVERAGE if not s.claims]
    assert len(COVERAGE) >= 60 and unchecked and all(s.reason for s in unchecked)
