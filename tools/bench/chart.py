#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bar chart (SVG) of make bench: for every workload, each encrypted row's
median divided by the median of its unencrypted row (1.0: as fast).

    tools/bench/chart.py RAW.txt OUT.svg

RAW.txt holds the guest's "R RUN ROW WORKLOAD VALUE" lines.
"""
import statistics
import sys

WORKLOADS = ["seqwrite", "seqread", "randread", "randwrite", "create", "lsR",
             "stat", "remove", "reflink", "par4write", "fragread", "bgwrite"]
SERIES = [("btrfs-fscrypt", "btrfs", "#1f77b4"),
          ("btrfs-adiantum", "btrfs", "#9ecae1"),
          ("ext4-fscrypt", "ext4", "#d62728"),
          ("dmcrypt-btrfs", "btrfs", "#7f7f7f")]


def medians(path):
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if len(p) == 5 and p[0] == "R":
                values.setdefault((p[2], p[3]), []).append(p[4])
    return {k: statistics.median(float(x) for x in v)
            for k, v in values.items() if "?" not in v}


def main():
    raw, out = sys.argv[1:3]
    med = medians(raw)
    ratios = {}
    for row, base, _ in SERIES:
        for w in WORKLOADS:
            if med.get((base, w)) and (row, w) in med:
                ratios[row, w] = med[row, w] / med[base, w]
    top = max([1.2] + [r for r in ratios.values()])
    width, height, left, bottom, plot_h = 900, 340, 50, 60, 240
    group = (width - left - 10) / len(WORKLOADS)
    bar = group / (len(SERIES) + 1)

    def y(v):
        return bottom + plot_h - v / top * plot_h

    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           '<text x="10" y="20" font-size="13">make bench: each encrypted row / its unencrypted '
           'row (median; 1.0 = as fast, higher is better)</text>']
    for i, (row, base, color) in enumerate(SERIES):
        svg.append(f'<rect x="{left + i * 190}" y="30" width="10" height="10" fill="{color}"/>'
                   f'<text x="{left + i * 190 + 14}" y="39">{row} / {base}</text>')
    tick = 0.0
    while tick <= top + 1e-9:
        svg.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                   f'stroke="{"#000" if tick == 1.0 else "#ddd"}"/>'
                   f'<text x="{left - 5}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.1f}</text>')
        tick = round(tick + (0.2 if top <= 2 else 0.5), 2)
    for j, w in enumerate(WORKLOADS):
        x0 = left + j * group + bar / 2
        for i, (row, _, color) in enumerate(SERIES):
            r = ratios.get((row, w))
            if r is None:
                continue
            svg.append(f'<rect x="{x0 + i * bar:.1f}" y="{y(r):.1f}" width="{bar - 1:.1f}" '
                       f'height="{y(0) - y(r):.1f}" fill="{color}"><title>{row} {w}: '
                       f'{r:.2f}</title></rect>')
        svg.append(f'<text x="{left + (j + 0.5) * group:.1f}" y="{y(0) + 16:.1f}" '
                   f'text-anchor="middle">{w}</text>')
    svg.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
