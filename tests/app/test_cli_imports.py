"""The command line imports a heavy dependency only in the command that needs it: the parser, ``rnnaudit --help``
and an argument error import neither torch nor matplotlib nor scipy, and ``spectrum`` does not import
scipy.optimize, which only the Kreiss and pseudospectral-abscissa searches use. Checked in a fresh interpreter,
where nothing else has imported them yet (no timing is asserted: what is imported is what costs)."""

import json
import os
import subprocess
import sys

HEAVY = ("torch", "matplotlib", "scipy")

SCRIPT = r"""
import json, sys
HEAVY = {heavy!r}

def loaded():
    return sorted({{m.split(".")[0] for m in sys.modules}} & set(HEAVY))

def status(argv):
    from rnnaudit import cli
    try:
        return cli.main(argv)
    except SystemExit as exc:
        return exc.code

import rnnaudit.cli.parser
seen = {{"parser": loaded()}}
seen["help"] = (status(["--help"]), loaded())
seen["bad argument"] = (status(["spectrum", "sgornn", "--no-such-flag"]), loaded())
seen["spectrum"] = (status(["spectrum", "sgornn", "--hidden", "8", "--out", "s.png"]), loaded(),
                    "scipy.optimize" in sys.modules)
print(json.dumps(seen))
"""


def test_the_parser_help_and_argument_errors_import_no_heavy_dependency_and_spectrum_no_optimiser(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(heavy=HEAVY)], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["parser"] == []
    assert seen["help"] == [0, []]
    assert seen["bad argument"] == [2, []]
    status, heavy, optimiser = seen["spectrum"]
    # the control: the figure command does import what it needs, so the snapshots above can see an import
    assert status == 0 and heavy == sorted(HEAVY) and (tmp_path / "s.png").is_file()
    assert optimiser is False
