"""Every nc_gru.md claim record names its source, statement, assumptions and what breaks."""

from rnnaudit.bounds.nc_gru import CLAIMS


def test_all_nc_gru_claims_have_ids_sources_and_assumptions():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    assert set(ids) == {"nc_gru.theorem1", "nc_gru.theorem1.corrected", "nc_gru.corollary1",
                        "nc_gru.corollary1.corrected", "nc_gru.corollary2", "nc_gru.corollary2.corrected",
                        "nc_gru.corollary3", "nc_gru.corollary3.corrected", "nc_gru.eq18", "nc_gru.eq18.corrected",
                        "nc_gru.eq5"}
    for c in CLAIMS:
        assert c.paper == "nc_gru" and c.source.startswith("nc_gru.md")
        assert c.statement and c.assumptions and c.explanation
