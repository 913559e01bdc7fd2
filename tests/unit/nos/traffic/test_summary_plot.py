"""The result document as tables (rich) and as a PNG (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from nos.traffic.plot import draw
from nos.traffic.summary import MAX_QUEUE_ROWS, render
from tests.unit.nos.traffic.documents import sample_document


def text_of(doc) -> str:
    console = Console(record=True, width=200, color_system=None)
    render(doc, console)
    return console.export_text()


def test_summary_shows_every_section() -> None:
    text = text_of(sample_document())
    assert "sample: 4/4 flows finished, 4 MB delivered in 400 us simulated" in text
    assert "DSCP 26: TC1 Q1 PG0 lossy" in text
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│ incast")]
    assert rows == [["incast", "DSCP 26: TC3 Q3 PG3 lossless", "4/4", "0 B", "0 B", "12"],
                    ["incast", "40 us", "81 us", "82 us", "82 us", "390 Gb/s"]]
    assert "│ ring (allreduce) │" in text
    ring = next(line for line in text.splitlines() if "│ ring " in line and "58.1%" in line)
    assert "120 us, 118 us" in ring
    assert "PFC pause" in text and "Ethernet4" in text and "30 us" in text
    queue = next(line for line in text.splitlines() if line.startswith("│ Ethernet0 │") and "700 kB" in line)
    assert [cell.strip() for cell in queue.split("│")[1:-1]] == ["Ethernet0", "3", "4.1 MB", "3", "12", "700 kB"]
    assert "ingress_lossless_pool" in text and "0.48%" in text
    assert "PFC watchdog" in text and "storm" in text
    assert "warning: ring: 2 flows did not finish" in text


def test_summary_leaves_out_empty_sections() -> None:
    doc = sample_document(pauses=False, allreduce=False)
    doc["watchdog"], doc["warnings"] = [], []
    text = text_of(doc)
    for absent in ("AllReduce", "PFC pause", "PFC watchdog", "warning"):
        assert absent not in text


def test_summary_caps_the_queue_rows() -> None:
    doc = sample_document()
    row = doc["ports"]["Ethernet0"]["queues"]["3"]
    doc["ports"] = {f"Ethernet{4 * i}": {**doc["ports"]["Ethernet0"], "queues": {"3": dict(row, max_bytes=i + 1)}}
                    for i in range(MAX_QUEUE_ROWS + 5)}
    assert "... and 5 more queues" in text_of(doc)


def test_plot_writes_a_png(tmp_path: Path) -> None:
    out = draw(sample_document(), tmp_path / "run.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_plot_of_an_empty_series(tmp_path: Path) -> None:
    doc = sample_document()
    doc["series"] = {"t_s": [], "queue_bytes_total": [], "queue_bytes": [], "tx_bps": [], "pause": []}
    assert draw(doc, tmp_path / "empty.png").read_bytes()[:4] == b"\x89PNG"
