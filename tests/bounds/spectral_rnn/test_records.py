"""Every spectral_rnn.md claim record names its source, statement, assumptions and what breaks."""

from rnnaudit.bounds.spectral_rnn import CLAIMS

#: The claim ids in the order the paper states them.
IDS = ["spectral_rnn.theorem1", "spectral_rnn.theorem2", "spectral_rnn.theorem3", "spectral_rnn.eq7",
       "spectral_rnn.param_count", "spectral_rnn.param_count.corrected", "spectral_rnn.eq13",
       "spectral_rnn.eq13.corrected", "spectral_rnn.table1", "spectral_rnn.table1.corrected", "spectral_rnn.theorem4",
       "spectral_rnn.theorem5", "spectral_rnn.lemma3", "spectral_rnn.eq24"]


def test_claim_ids_in_paper_order_with_sources_and_assumptions():
    assert [c.id for c in CLAIMS] == IDS
    for c in CLAIMS:
        assert c.paper == "spectral_rnn" and c.source.startswith("spectral_rnn.md")
        assert c.statement and c.assumptions and c.explanation and c.measure and c.bound
