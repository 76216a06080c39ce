"""Every benchmark script refuses bad options with argparse's one-line error and exit status 2, before any
work starts (a run that went ahead would take minutes; these take milliseconds)."""

import pytest

from tests.conftest import load_benchmark

CASES = [
    ("bench_cells", ["--T", "0"]),
    ("bench_check_claims", ["--paper", "nosuch"]),
    ("bench_check_claims", ["--top", "-1"]),
    ("bench_cells", ["--sizes", "128", "-4"]),
    ("bench_cells", ["--device", "tpu"]),
    ("bench_cells", ["--cells", "no-such-cell"]),
    ("bench_diagonal", ["--N", "0"]),
    ("bench_diagonal", ["--general-T", "4", "4"]),
    ("bench_diagonal", ["--T", "10", "--general-T", "4", "20"]),
    ("bench_figures", ["--threads", "0"]),
    ("bench_figures", ["--results", "/nonexistent/results.json"]),
    ("bench_flat_band", ["--T", "1"]),
    ("bench_flat_band", ["--seed", "-1"]),
    ("bench_flat_band", ["--starts", "0"]),
    ("bench_flat_band", ["--T", "5", "--starts", "6"]),
    ("bench_flat_band", ["--cells", "no-such-cell"]),
    ("bench_heatmap", ["--resolution", "1"]),
    ("bench_heatmap", ["--accuracy-T", "301"]),
    ("bench_heatmap", ["--big-method", "exact"]),
    ("bench_jacobian", ["--T", "0"]),
    ("bench_jacobian", ["--rtol", "0"]),
    ("bench_jacobian", ["--rtol", "1e-3", "1.5"]),
    ("bench_jacobian", ["--grid", "--naive-limit", "-1"]),
    ("bench_jacobian", ["--repeats", "abc"]),
    ("bench_jacobian", ["--cells", "no-such-cell"]),
    ("bench_monitor", ["--every", "0"]),
    ("bench_pseudospectra", ["--n", "1"]),
    ("bench_pseudospectra", ["--grid", "0"]),
    ("bench_search", ["--budget", "0"]),
    ("bench_search", ["--seed", "abc"]),
    ("bench_spectral", ["--batch", "0"]),
    ("bench_spectral", ["--sizes", "8"]),
    ("bench_spectral", ["--device", "tpu"]),
    ("bench_wrapped", ["--T", "-3"]),
]


@pytest.mark.parametrize("name,argv", CASES, ids=[f"{n}:{' '.join(a)}" for n, a in CASES])
def test_bad_option_exits_2_with_one_line(name, argv, capsys):
    module = load_benchmark(name)
    with pytest.raises(SystemExit) as exit_info:
        module.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    # argparse's usage lines, then one error line naming the option
    assert ": error: argument --" in err[-1] or ": error: --" in err[-1]
    assert not any("Traceback" in line for line in err)
