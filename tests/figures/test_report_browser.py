"""report.html opened in headless Chromium: the screenshot shows the claims table and a figure.
Skipped, with a message, where Chromium is not installed; .ci/run installs it."""

import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (apt-get install chromium)")

# flags for a closed network, as root, without a display
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def test_report_html_screenshot_shows_table_and_figures(report_dir, tmp_path):
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                    "--window-size=1200,2600", (report_dir / "report.html").as_uri()],
                   check=True, timeout=120, capture_output=True)
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert pixels.shape[:2] == (2600, 1200)
    # the table: its #bbb cell borders make long horizontal runs of one grey near the top
    grey = (np.abs(pixels - 187).max(axis=2) < 12)
    border_rows = np.flatnonzero(grey[:900].mean(axis=1) > 0.3)
    assert len(border_rows) >= 5, "no table borders in the top of the page"
    # a figure: the heatmap's viridis colours are strongly saturated, text and borders are not
    saturation = pixels.max(axis=2) - pixels.min(axis=2)
    assert (saturation[border_rows.max():] > 80).mean() > 0.02, "no saturated figure pixels below the table"
