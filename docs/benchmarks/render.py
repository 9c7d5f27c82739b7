#!/usr/bin/env python3
"""Render the benchmark results in docs/benchmarks/*.json as SVG and PNG charts.

Standard library only (no matplotlib), Python 3.11 or newer. The PNGs are
converted from the SVGs by an external program: ``rsvg-convert`` (Debian and
Ubuntu package ``librsvg2-bin``; Fedora ``librsvg2-tools``; Homebrew
``librsvg``). Without it the SVGs are still written, and the script says that
it skipped the PNGs and how to get them.

Run from the repository root (or from anywhere; paths are resolved relative
to this script's own folder):

    python3 docs/benchmarks/render.py              # SVGs, and PNGs if rsvg-convert is found
    python3 docs/benchmarks/render.py --no-png     # SVGs only
    python3 docs/benchmarks/render.py --require-png   # exit 1 when PNGs cannot be made

Environment: ``RSVG_CONVERT`` names the converter when it is not on the PATH.

Charts written next to the JSON files:

* ``codec-cpu.svg``: grouped horizontal bars, one group per codec case, with
  ParityFS on JDK 17 (``codec-cpu.json`` "metrics"), ParityFS on JDK 25
  (``codec-cpu-jdk25.json`` "metrics", when that file exists), ISA-L's own C
  loop over the same buffers in the JDK 25 run (its "isal_c_metrics", Reed-
  Solomon cases only) and Hadoop (``codec-cpu.json`` "hadoop_metrics"), plus
  tick marks for the goal of each case and for the ISA-L reference numbers of
  ../shared/CONTEXT.md.
* ``metadata.svg`` from ``metadata.json``: operations per second of ParityFS
  (ZooKeeper) and HDFS side by side, one group per operation and thread count,
  on a log scale (the listing as entries listed per second).
* ``client.svg`` from ``client.json``: checkpoint MB/s and small-file rates of
  ParityFS, RawLocalFileSystem and HDFS side by side (log scale).
* ``<name>-ratios.svg`` for every other result file ``<name>.json``: one
  horizontal bar per entry of its "ratios" object, with a line at 1.0.

Every chart ``X.svg`` also gets ``X.png`` beside it: the SVG rasterised at
twice its size (1800 pixels wide), on white. The PNGs are what to link where
SVG is not shown (some viewers, e-mail, slides).

The output depends only on the JSON files, so re-running it on unchanged
results gives byte-identical SVGs; the PNGs are byte-identical too for one
version of rsvg-convert and one set of installed fonts (the text is drawn
with the first of Helvetica, Arial, DejaVu Sans, Liberation Sans that
fontconfig finds).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

HERE = Path(__file__).resolve().parent

WIDTH = 900
FONT = "Helvetica, Arial, 'DejaVu Sans', 'Liberation Sans', sans-serif"
TEXT = "#222222"
MUTED = "#555555"
GRID = "#dddddd"
BAND = "#f5f6f8"

CODEC_TITLE = "CPU parity codec, one core, 1 MiB blocks, data from DRAM"
# RS 10+4 encode: issue 19's goal (ISA-L speed); the others from the codec's first issue.
CODEC_GOALS = {"xor15_1": 20, "pq14_2": 17, "rs10_4_encode": 12, "rs10_4_decode2": 10}
ISAL_GBPS = {"xor15_1": 22, "pq14_2": 19, "rs10_4_encode": 16, "rs10_4_decode2": 26}
GOAL_COLOUR = "#d62728"
ISAL_COLOUR = "#222222"

BAR_H = 14          # height of one bar
BAR_GAP = 3         # space between the bars of one group
GROUP_GAP = 16      # space between groups
VALUE_FONT = 11
LABEL_FONT = 12


# ---------------------------------------------------------------- helpers

def text_width(text: str, size: float) -> float:
    """Rough rendered width of ``text`` in a sans-serif font of ``size`` px."""
    return len(text) * size * 0.58


def fmt(value: float) -> str:
    """Three significant digits, never in scientific notation."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    digits = max(0, 2 - math.floor(math.log10(abs(value))))
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def attrs(**kw: object) -> str:
    """XML attributes from keyword arguments (``font_size`` -> ``font-size``)."""
    return " ".join(f"{k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}"
                    for k, v in kw.items() if v is not None)


def svg_text(x: float, y: float, text: str, size: float = LABEL_FONT,
             anchor: str = "start", colour: str = TEXT, weight: str | None = None,
             halo: bool = False) -> str:
    """One line of text; ``y`` is the vertical centre of the line."""
    extra = dict(stroke="#ffffff", stroke_width=3, paint_order="stroke",
                 stroke_linejoin="round") if halo else {}
    style = attrs(x=f"{x:.1f}", y=f"{y:.1f}", dy="0.35em", font_size=size,
                  text_anchor=anchor, fill=colour, font_weight=weight, **extra)
    return f"<text {style}>{escape(text)}</text>"


def svg_line(x1: float, y1: float, x2: float, y2: float, colour: str,
             width: float = 1, dash: str | None = None) -> str:
    style = attrs(x1=f"{x1:.1f}", y1=f"{y1:.1f}", x2=f"{x2:.1f}", y2=f"{y2:.1f}",
                  stroke=colour, stroke_width=width, stroke_dasharray=dash)
    return f"<line {style}/>"


def svg_rect(x: float, y: float, w: float, h: float, colour: str,
             tooltip: str | None = None) -> str:
    shape = attrs(x=f"{x:.1f}", y=f"{y:.1f}", width=f"{max(w, 0):.1f}",
                  height=f"{h:.1f}", fill=colour)
    if tooltip is None:
        return f"<rect {shape}/>"
    return f"<rect {shape}><title>{escape(tooltip)}</title></rect>"


def svg_document(height: float, body: list[str]) -> str:
    size = attrs(width=WIDTH, height=f"{height:.0f}",
                 viewBox=f"0 0 {WIDTH} {height:.0f}", font_family=FONT)
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" {size}>\n'
            '<rect width="100%" height="100%" fill="#ffffff"/>\n')
    return head + "\n".join(body) + "\n</svg>\n"


# ---------------------------------------------------------------- scales

@dataclass
class Scale:
    """Maps data values to x pixels, linearly or logarithmically."""
    lo: float
    hi: float
    x0: float
    x1: float
    log: bool = False
    ticks: list[float] = field(default_factory=list)

    def __call__(self, value: float) -> float:
        if self.log:
            lo, hi = math.log10(self.lo), math.log10(self.hi)
            t = (math.log10(max(value, self.lo)) - lo) / (hi - lo)
        else:
            t = (value - self.lo) / (self.hi - self.lo)
        return self.x0 + t * (self.x1 - self.x0)


def nice_step(span: float, target: int = 6) -> float:
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if raw <= mult * power:
            return mult * power
    return 10 * power


def linear_scale(hi: float, x0: float, x1: float) -> Scale:
    hi = hi if hi > 0 else 1
    step = nice_step(hi)
    top = math.ceil(hi / step - 1e-9) * step
    ticks = [round(i * step, 10) for i in range(int(round(top / step)) + 1)]
    return Scale(0, top, x0, x1, False, ticks)


def log_scale(lo: float, hi: float, x0: float, x1: float) -> Scale:
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    b = max(b, a + 1)
    return Scale(10.0 ** a, 10.0 ** b, x0, x1, True, [10.0 ** k for k in range(a, b + 1)])


def draw_axis(scale: Scale, top: float, bottom: float, title: str) -> list[str]:
    """Vertical gridlines, tick labels under the plot and the axis title."""
    out = [svg_line(scale(t), top, scale(t), bottom, GRID) for t in scale.ticks
           if scale(t) > scale.x0]
    out.append(svg_line(scale.x0, top, scale.x0, bottom, "#999999"))
    out += [svg_text(scale(t), bottom + 12, fmt(t), 11, "middle", MUTED) for t in scale.ticks]
    out.append(svg_text((scale.x0 + scale.x1) / 2, bottom + 32, title, 12, "middle", TEXT))
    return out


# ---------------------------------------------------------------- legend

@dataclass
class LegendItem:
    label: str
    colour: str
    kind: str = "bar"          # "bar", "tick" or "dashed"


def draw_legend(items: list[LegendItem], x: float, y: float) -> list[str]:
    """One row of legend entries starting at (x, y), y being the row centre."""
    out = []
    for item in items:
        if item.kind == "bar":
            out.append(svg_rect(x, y - 6, 14, 12, item.colour))
        else:
            dash = "4 2" if item.kind == "dashed" else None
            width = 1.5 if item.kind == "dashed" else 2.5
            out.append(svg_line(x + 7, y - 8, x + 7, y + 8, item.colour, width, dash))
        out.append(svg_text(x + 20, y, item.label, 12))
        x += 20 + text_width(item.label, 12) + 22
    return out


# ---------------------------------------------------------------- input

def load_results(folder: Path) -> list[tuple[Path, dict]]:
    results = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            print(f"skipping {path.name}: {err}", file=sys.stderr)
            continue
        if not isinstance(data, dict) or "benchmark" not in data:
            print(f"skipping {path.name}: no \"benchmark\" field", file=sys.stderr)
            continue
        results.append((path, data))
    return results


def case_values(obj: dict | None, suffix: str = "_gbps") -> dict[str, float]:
    """``{"xor15_1_gbps": 14.9}`` -> ``{"xor15_1": 14.9}`` (numbers only)."""
    out = {}
    for key, value in (obj or {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key.removesuffix(suffix) if suffix else key] = float(value)
    return out


def case_label(case: str) -> str:
    """``rs10_4_decode2`` -> ``RS 10+4 rebuild 2``; unknown names unchanged."""
    m = re.fullmatch(r"(xor|pq|rs)(\d+)_(\d+)(?:_(encode|decode(\d+)))?", case)
    if not m:
        return case
    kind = {"xor": "XOR", "pq": "P+Q", "rs": "RS"}[m[1]]
    label = f"{kind} {m[2]}+{m[3]}"
    if m[4] == "encode":
        label += " encode"
    elif m[5]:
        label += f" rebuild {m[5]}"
    return label


def jdk_label(data: dict, fallback: str) -> str:
    """``OpenJDK 64-Bit Server VM 17.0.15+6`` -> ``JDK 17``."""
    m = re.search(r"\b(\d+)(?:\.\d+)*\+\d", str(data.get("jdk", "")))
    return f"JDK {m[1]}" if m else fallback


# ---------------------------------------------------------------- codec-cpu chart

@dataclass
class Series:
    label: str
    colour: str
    values: dict[str, float]


def codec_series(base: dict, jdk25: dict | None) -> list[Series]:
    series = [Series(f"ParityFS, {jdk_label(base, 'JDK 17')}", "#2f6db5",
                     case_values(base.get("metrics")))]
    if jdk25 is not None:
        series.append(Series(f"ParityFS, {jdk_label(jdk25, 'JDK 25')}", "#f28e2b",
                             case_values(jdk25.get("metrics"))))
        if jdk25.get("isal_c_metrics"):
            series.append(Series("ISA-L C loop (same run)",
                                 "#59a14f", case_values(jdk25.get("isal_c_metrics"))))
    if base.get("hadoop_metrics"):
        series.append(Series(f"Hadoop, {jdk_label(base, 'JDK 17')}", "#9a9a9a",
                             case_values(base.get("hadoop_metrics"))))
    return series


def codec_captions(base: dict, jdk25: dict | None) -> list[str]:
    lines = [f"ParityFS {jdk_label(base, 'JDK 17')} and Hadoop: {base.get('jdk', '?')}, "
             f"{base.get('date', '?')}"]
    if jdk25 is not None:
        lines.append(f"ParityFS {jdk_label(jdk25, 'JDK 25')}: {jdk25.get('jdk', '?')}, "
                     f"{jdk25.get('date', '?')}")
    if base.get("machine"):
        lines.append(f"Machine: {base['machine']}")
    lines.append("ISA-L C loop: ec_encode_data timed in C on the benchmark's own buffers, "
                 "same process. Dashed: ISA-L as ../shared/CONTEXT.md gives it.")
    lines.append("GB/s counts data bytes only.")
    return lines


def render_codec(base: dict, jdk25: dict | None) -> str:
    series = codec_series(base, jdk25)
    cases = list(dict.fromkeys(c for s in series for c in s.values))  # first seen first
    labels = {c: case_label(c) for c in cases}

    all_values = [v for s in series for v in s.values.values()]
    all_values += list(CODEC_GOALS.values()) + list(ISAL_GBPS.values())
    label_w = max(text_width(t, LABEL_FONT) for t in labels.values()) + 24
    value_w = max(text_width(fmt(v), VALUE_FONT) for v in all_values) + 12
    scale = linear_scale(max(all_values), 20 + label_w, WIDTH - 20 - value_w)

    legend = [LegendItem(s.label, s.colour) for s in series]
    legend += [LegendItem("Goal", GOAL_COLOUR, "tick"),
               LegendItem("ISA-L (CONTEXT.md)", ISAL_COLOUR, "dashed")]

    group_h = len(series) * BAR_H + (len(series) - 1) * BAR_GAP
    top = 80
    bottom = top + len(cases) * (group_h + GROUP_GAP)
    captions = codec_captions(base, jdk25)
    height = bottom + 56 + 16 * len(captions) + 8

    body = [svg_text(20, 24, CODEC_TITLE, 17, weight="bold"),
            *draw_legend(legend, 20, 54)]
    for i, case in enumerate(cases):
        y = top + i * (group_h + GROUP_GAP) + GROUP_GAP / 2
        if i % 2 == 0:
            body.append(svg_rect(0, y - GROUP_GAP / 2, WIDTH, group_h + GROUP_GAP, BAND))
    body += draw_axis(scale, top, bottom, "GB/s (10^9 data bytes per second, higher is better)")
    for i, case in enumerate(cases):
        y = top + i * (group_h + GROUP_GAP) + GROUP_GAP / 2
        body += draw_codec_group(scale, y, group_h, case, labels[case], series)
    body += [svg_text(20, bottom + 58 + 16 * k, line, 11, colour=MUTED)
             for k, line in enumerate(captions)]
    return svg_document(height, body)


def draw_codec_group(scale: Scale, y: float, group_h: float, case: str, label: str,
                     series: list[Series]) -> list[str]:
    """Bars of one case, then goal/ISA-L ticks, then the value labels on top."""
    out = [svg_text(scale.x0 - 12, y + group_h / 2, label, LABEL_FONT, "end")]
    labels = []
    for k, s in enumerate(series):
        if case not in s.values:
            continue
        value, by = s.values[case], y + k * (BAR_H + BAR_GAP)
        out.append(svg_rect(scale.x0, by, scale(value) - scale.x0, BAR_H, s.colour,
                            f"{label}, {s.label}: {fmt(value)} GB/s"))
        labels.append(svg_text(scale(value) + 4, by + BAR_H / 2, fmt(value),
                               VALUE_FONT, halo=True))
    if case in ISAL_GBPS:
        x = scale(ISAL_GBPS[case])
        out.append(svg_line(x, y - 4, x, y + group_h + 4, ISAL_COLOUR, 1.5, "4 2"))
    if case in CODEC_GOALS:
        x = scale(CODEC_GOALS[case])
        out.append(svg_line(x, y - 4, x, y + group_h + 4, GOAL_COLOUR, 2.5))
    return out + labels


# ---------------------------------------------------------------- metadata chart

METADATA_TITLE = "Metadata operations: ParityFS (ZooKeeper) and HDFS NameNode, same run"
METADATA_OPS = [("creates", "create + close"), ("stat_first", "first stat of a file"),
                ("stats", "stat"), ("renames", "rename")]


def metadata_groups(data: dict) -> list[tuple[str, dict[str, float]]]:
    """``[(label, {"parityfs": ops/s, "hdfs": ops/s})]`` in chart order."""
    m = case_values(data.get("metrics"), suffix="")
    threads = sorted({int(k.rsplit("_", 1)[1][:-1]) for k in m
                      if re.fullmatch(r"\w+_per_s_\d+t", k)})
    groups = []
    for op, label in METADATA_OPS:
        for t in threads:
            values = {side: m[f"{side}_{op}_per_s_{t}t"] for side in ("parityfs", "hdfs")
                      if f"{side}_{op}_per_s_{t}t" in m}
            if values:
                groups.append((f"{label}, {t} thread{'s' if t > 1 else ''}", values))
    entries = data.get("list_entries")
    if isinstance(entries, (int, float)):
        for key, label in (("list_s", "list (warm)"), ("list_first_s", "list (cold)")):
            values = {side: entries / m[f"{side}_{key}"] for side in ("parityfs", "hdfs")
                      if m.get(f"{side}_{key}")}
            if key == "list_first_s" and "hdfs" in values:
                del values["hdfs"]  # HDFS keeps no client cache: its first listing is not "cold"
            if values:
                groups.append((f"{label}, entries/s of {int(entries):,}", values))
    return groups


def render_metadata(data: dict) -> str | None:
    groups = metadata_groups(data)
    if not groups:
        return None
    series = [Series("ParityFS", "#2f6db5", {}), Series("HDFS NameNode", "#9a9a9a", {})]
    keys = {"ParityFS": "parityfs", "HDFS NameNode": "hdfs"}
    for label, values in groups:
        for s in series:
            if keys[s.label] in values:
                s.values[label] = values[keys[s.label]]
    all_values = [v for _, vs in groups for v in vs.values()]
    label_w = max(text_width(label, LABEL_FONT) for label, _ in groups) + 24
    value_w = max(text_width(fmt(v), VALUE_FONT) for v in all_values) + 12
    scale = log_scale(min(all_values), max(all_values), 20 + label_w, WIDTH - 20 - value_w)

    group_h = len(series) * BAR_H + (len(series) - 1) * BAR_GAP
    top = 80
    bottom = top + len(groups) * (group_h + GROUP_GAP)
    captions = [f"{data.get('jdk', '?')}, {data.get('date', '?')}, load average "
                f"{data.get('load_average', '?')}"]
    if data.get("machine"):
        captions.append(f"Machine: {data['machine']}")
    captions.append("Both sides fsync their log before replying; medians of alternating runs.")
    height = bottom + 56 + 16 * len(captions) + 8

    body = [svg_text(20, 24, METADATA_TITLE, 17, weight="bold"),
            *draw_legend([LegendItem(s.label, s.colour) for s in series], 20, 54)]
    for i in range(0, len(groups), 2):
        y = top + i * (group_h + GROUP_GAP)
        body.append(svg_rect(0, y, WIDTH, group_h + GROUP_GAP, BAND))
    body += draw_axis(scale, top, bottom, "operations per second (log scale, higher is better)")
    for i, (label, _) in enumerate(groups):
        y = top + i * (group_h + GROUP_GAP) + GROUP_GAP / 2
        body.append(svg_text(scale.x0 - 12, y + group_h / 2, label, LABEL_FONT, "end"))
        labels = []
        for k, s in enumerate(series):
            if label not in s.values:
                continue
            value, by = s.values[label], y + k * (BAR_H + BAR_GAP)
            body.append(svg_rect(scale.x0, by, scale(value) - scale.x0, BAR_H, s.colour,
                                 f"{label}, {s.label}: {fmt(value)}/s"))
            labels.append(svg_text(scale(value) + 4, by + BAR_H / 2, fmt(value),
                                   VALUE_FONT, halo=True))
        body += labels
    body += [svg_text(20, bottom + 58 + 16 * k, line, 11, colour=MUTED)
             for k, line in enumerate(captions)]
    return svg_document(height, body)


# ---------------------------------------------------------------- client (client.json)

CLIENT_TITLE = "Client through the Hadoop API: ParityFS vs RawLocalFileSystem vs HDFS"
CLIENT_SIDES = [("parityfs", "ParityFS (3 RAID-6 4+2 nodes)", "#2f6db5"),
                ("local", "RawLocalFileSystem", "#e0a030"),
                ("hdfs", "HDFS (MiniDFSCluster, repl. 1)", "#9a9a9a")]
CLIENT_GROUPS = [("ckpt_write_mbps", "checkpoint write, MB/s"),
                 ("ckpt_read_mbps", "checkpoint read, MB/s"),
                 ("small_files_per_s", "small files, files/s (all phases)"),
                 ("small_create_per_s", "small files: create/s"),
                 ("small_read_per_s", "small files: read/s"),
                 ("small_delete_per_s", "small files: delete/s")]


def render_client(data: dict) -> str | None:
    """Grouped bars per workload, one per side, on a log scale (MB/s and files/s differ)."""
    m = case_values(data.get("metrics"), suffix="")
    groups = []
    for key, label in CLIENT_GROUPS:
        values = {side: m[f"{side}_{key}"] for side, _, _ in CLIENT_SIDES
                  if m.get(f"{side}_{key}", 0) > 0}
        if values:
            groups.append((label, values))
    if not groups:
        return None
    sides = [s for s in CLIENT_SIDES if any(s[0] in vs for _, vs in groups)]
    all_values = [v for _, vs in groups for v in vs.values()]
    label_w = max(text_width(label, LABEL_FONT) for label, _ in groups) + 24
    value_w = max(text_width(fmt(v), VALUE_FONT) for v in all_values) + 12
    scale = log_scale(min(all_values), max(all_values), 20 + label_w, WIDTH - 20 - value_w)
    group_h = len(sides) * BAR_H + (len(sides) - 1) * BAR_GAP
    top = 80
    bottom = top + len(groups) * (group_h + GROUP_GAP)
    captions = [f"{data.get('jdk', '?')}, {data.get('date', '?')}, load average "
                f"{data.get('load_average', '?')}"]
    if data.get("machine"):
        captions.append(f"Machine: {data['machine']}")
    captions.append("All sides durable at close, on one disk; reads after dropping the page "
                    "cache; one run.")
    height = bottom + 56 + 16 * len(captions) + 8
    body = [svg_text(20, 24, CLIENT_TITLE, 17, weight="bold"),
            *draw_legend([LegendItem(label, colour) for _, label, colour in sides], 20, 54)]
    for i in range(0, len(groups), 2):
        y = top + i * (group_h + GROUP_GAP)
        body.append(svg_rect(0, y, WIDTH, group_h + GROUP_GAP, BAND))
    body += draw_axis(scale, top, bottom, "MB/s or files/s (log scale, higher is better)")
    for i, (label, values) in enumerate(groups):
        y = top + i * (group_h + GROUP_GAP) + GROUP_GAP / 2
        body.append(svg_text(scale.x0 - 12, y + group_h / 2, label, LABEL_FONT, "end"))
        labels = []
        for k, (side, side_label, colour) in enumerate(sides):
            if side not in values:
                continue
            value, by = values[side], y + k * (BAR_H + BAR_GAP)
            body.append(svg_rect(scale.x0, by, scale(value) - scale.x0, BAR_H, colour,
                                 f"{label}, {side_label}: {fmt(value)}"))
            labels.append(svg_text(scale(value) + 4, by + BAR_H / 2, fmt(value),
                                   VALUE_FONT, halo=True))
        body += labels
    body += [svg_text(20, bottom + 58 + 16 * k, line, 11, colour=MUTED)
             for k, line in enumerate(captions)]
    return svg_document(height, body)


# ---------------------------------------------------------------- generic ratios chart

def render_ratios(data: dict) -> str | None:
    ratios = case_values(data.get("ratios"), suffix="")
    if not ratios:
        return None
    names = list(ratios)
    values = [ratios[n] for n in names]
    label_w = max(text_width(n, LABEL_FONT) for n in names) + 24
    value_w = max(text_width(fmt(v) + "x", VALUE_FONT) for v in values) + 12
    x0, x1 = 20 + label_w, WIDTH - 20 - value_w
    positive = [v for v in values if v > 0]
    if len(positive) == len(values) and max(values + [1]) / min(values + [1]) >= 30:
        scale = log_scale(min(values + [1]), max(values + [1]), x0, x1)
        axis = "ratio (log scale)"
    else:
        scale = linear_scale(max(values + [1]), x0, x1)
        axis = "ratio"

    top, pitch = 56, BAR_H + 10
    bottom = top + len(names) * pitch + 6
    captions = [f"{data.get('jdk', '?')}, {data.get('date', '?')}"]
    if data.get("machine"):
        captions.append(f"Machine: {data['machine']}")
    height = bottom + 56 + 16 * len(captions) + 8

    body = [svg_text(20, 24, str(data["benchmark"]), 17, weight="bold"),
            *draw_axis(scale, top, bottom, axis)]
    labels = []
    for i, (name, value) in enumerate(zip(names, values)):
        by = top + 6 + i * pitch
        width = scale(max(value, scale.lo)) - scale.x0
        body.append(svg_text(scale.x0 - 12, by + BAR_H / 2, name, LABEL_FONT, "end"))
        body.append(svg_rect(scale.x0, by, width, BAR_H, "#2f6db5", f"{name}: {fmt(value)}"))
        labels.append(svg_text(scale.x0 + width + 4, by + BAR_H / 2, fmt(value) + "\u00d7",
                               VALUE_FONT, halo=True))
    one = scale(1.0)
    body.append(svg_line(one, top - 4, one, bottom + 2, GOAL_COLOUR, 1.5))
    body.append(svg_text(one, top - 12, "1.0", 11, "middle", GOAL_COLOUR))
    body += labels
    body += [svg_text(20, bottom + 58 + 16 * k, line, 11, colour=MUTED)
             for k, line in enumerate(captions)]
    return svg_document(height, body)


# ---------------------------------------------------------------- PNG

PNG_ZOOM = 2        # PNG pixels per SVG unit: 900-unit-wide charts become 1800 px wide
PNG_INSTALL_HINT = ("install rsvg-convert (Debian/Ubuntu: apt-get install librsvg2-bin; "
                    "Fedora: dnf install librsvg2-tools; macOS: brew install librsvg) "
                    "or set RSVG_CONVERT to its path")


def find_converter() -> str | None:
    """The rsvg-convert program: $RSVG_CONVERT if set, else the one on the PATH, else None."""
    named = os.environ.get("RSVG_CONVERT")
    if named:
        return shutil.which(named)
    return shutil.which("rsvg-convert")


def write_png(converter: str, svg_path: Path) -> None:
    """``X.svg`` -> ``X.png`` with rsvg-convert, through a temporary file renamed into place,
    so an interrupted run never leaves a truncated PNG."""
    png_path = svg_path.with_suffix(".png")
    tmp = png_path.with_name(png_path.name + ".tmp")
    cmd = [converter, "--format=png", f"--zoom={PNG_ZOOM}", "--background-color=white",
           f"--output={tmp}", str(svg_path)]
    try:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    except subprocess.CalledProcessError as err:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {err.returncode}): "
                           f"{err.stderr.strip()}") from None
    tmp.replace(png_path)
    print(f"wrote {png_path}")


# ---------------------------------------------------------------- main

def write(path: Path, svg: str, written: list[Path]) -> None:
    path.write_text(svg, encoding="utf-8")
    print(f"wrote {path}")
    written.append(path)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Render docs/benchmarks/*.json as SVG charts, and as PNG charts when "
                    "rsvg-convert is installed.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--no-png", action="store_true", help="write the SVGs only")
    group.add_argument("--require-png", action="store_true",
                       help="fail (exit 1) when the PNGs cannot be made")
    return parser.parse_args(argv)


def render_svgs(written: list[Path]) -> None:
    """Every chart the JSON files give, as SVG; each path written is appended to ``written``."""
    results = load_results(HERE)
    by_name = {path.name: data for path, data in results}
    base = by_name.get("codec-cpu.json")
    if base is not None and base.get("benchmark") == "codec-cpu":
        jdk25 = by_name.get("codec-cpu-jdk25.json")
        write(HERE / "codec-cpu.svg", render_codec(base, jdk25), written)
    metadata = by_name.get("metadata.json")
    if metadata is not None and metadata.get("benchmark") == "metadata":
        svg = render_metadata(metadata)
        if svg is not None:
            write(HERE / "metadata.svg", svg, written)
    client = by_name.get("client.json")
    if client is not None and client.get("benchmark") == "client":
        svg = render_client(client)
        if svg is not None:
            write(HERE / "client.svg", svg, written)
    for path, data in results:
        if data["benchmark"] == "codec-cpu":
            continue
        svg = render_ratios(data)
        if svg is None:
            print(f"skipping {path.name}: no numeric \"ratios\"", file=sys.stderr)
            continue
        write(HERE / f"{path.stem}-ratios.svg", svg, written)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    written: list[Path] = []
    render_svgs(written)
    if args.no_png:
        print(f"PNGs not written (--no-png); {len(written)} SVG charts written")
        return 0
    converter = find_converter()
    if converter is None:
        what = (f"RSVG_CONVERT={os.environ['RSVG_CONVERT']} is not an executable program"
                if os.environ.get("RSVG_CONVERT") else "rsvg-convert is not installed")
        print(f"PNGs SKIPPED: {what}; the {len(written)} SVG charts were written, but no PNG "
              f"was made or updated (existing PNGs may now be stale). To get them, "
              f"{PNG_INSTALL_HINT}.", file=sys.stderr)
        return 1 if args.require_png else 0
    try:
        for svg_path in written:
            write_png(converter, svg_path)
    except (OSError, RuntimeError) as err:
        print(f"PNG conversion failed: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
