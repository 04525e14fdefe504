#!/usr/bin/env python3
"""gpuvp sweep summary: plots of each metric against each varied key, and the results table, from a sweep directory.

    sweep_summary.py DIR

reads DIR/plan.json and DIR/results.csv (what `gpuvp sweep` writes) and writes DIR/plots/<metric>-vs-<key>.svg and
DIR/summary.html (the same plots inline, then the table; opens offline). The same inputs give the same files byte for
byte. Exit status 0, or 2 with one line on stderr ("gpuvp sweep: error: ...") when the directory holds no sweep.

A plot has the key's values on x (numeric when every value is a number, else in the order of --vary) and the metric
on y, one line per combination of the other keys' values (up to 8; more are drawn as points only). Points that did
not succeed are left out and counted in the caption.

Needs Python 3 and matplotlib (Debian: python3-matplotlib).
"""

import csv
import html
import io
import json
import os
import re
import shutil
import sys

MAX_LINES = 8


class SummaryError(Exception):
    """A bad sweep directory: one line for stderr."""


def number(text):
    """The value of a CSV cell or a --vary value as a float, or None (sizes and frequencies with units stay text)."""
    try:
        return float(text.replace("_", ""))
    except ValueError:
        try:
            return float(int(text.replace("_", ""), 0))
        except ValueError:
            return None


def read_sweep(directory):
    plan_path = os.path.join(directory, "plan.json")
    csv_path = os.path.join(directory, "results.csv")
    try:
        with open(plan_path, encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        raise SummaryError(f"sweep plan '{plan_path}': {e}") from None
    if plan.get("schema") != "gpuvp-sweep-plan":
        raise SummaryError(f"sweep plan '{plan_path}': not a gpuvp sweep plan")
    try:
        with open(csv_path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise SummaryError(f"sweep results '{csv_path}': {e}") from None
    return plan, rows


def svg_of(fig):
    import matplotlib.pyplot as plt

    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]


def plot(plan, rows, metric, axis_index):
    """One metric against one key: an SVG, and the caption."""
    import matplotlib.pyplot as plt

    axes = plan["axes"]
    key = axes[axis_index]["key"]
    values = axes[axis_index]["values"]
    numeric = all(number(v) is not None for v in values)
    position = {v: (number(v) if numeric else i) for i, v in enumerate(values)}
    others = [a for i, a in enumerate(axes) if i != axis_index]
    series = {}
    order = {}
    left_out = 0
    for row in rows:
        y = number(row.get(metric, "")) if row.get("outcome") == "ok" else None
        if y is None:
            left_out += 1
            continue
        label = ", ".join(f"{a['key']}={row[a['key']]}" for a in others)
        # Lines in the order of the other keys' --vary lists.
        order[label] = tuple(a["values"].index(row[a["key"]]) for a in others)
        series.setdefault(label, []).append((position[row[key]], y))
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    for i, (label, points) in enumerate(sorted(series.items(), key=lambda item: order[item[0]])):
        points.sort()
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        if len(series) <= MAX_LINES:
            ax.plot(xs, ys, marker="o", label=label or None)
        else:
            ax.plot(xs, ys, linestyle="none", marker="o", markersize=3, color=f"C{i % 10}")
    ax.set_xlabel(key)
    ax.set_ylabel(metric)
    if not numeric:
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels(values)
    elif len(values) <= 12:
        ax.set_xticks([position[v] for v in values])
        ax.set_xticklabels(values)
    if 1 < len(series) <= MAX_LINES:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    caption = f"{metric} against {key}"
    if left_out:
        caption += f"; {left_out} point(s) without a value (not ok or not run) left out"
    return svg_of(fig), caption


def slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def main(argv):
    if len(argv) != 2:
        print("usage: sweep_summary.py DIR", file=sys.stderr)
        return 2
    directory = argv[1]
    try:
        plan, rows = read_sweep(directory)
    except SummaryError as e:
        print(f"gpuvp sweep: error: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib
    except ImportError:
        print("gpuvp sweep: error: the summary needs matplotlib (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 2
    matplotlib.use("svg")
    matplotlib.rcParams["svg.hashsalt"] = "gpuvp-sweep"
    matplotlib.rcParams["svg.fonttype"] = "none"

    esc = html.escape
    outcomes = {}
    for row in rows:
        outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
    # Plots of metrics or keys an earlier invocation had go: the directory holds this summary's only.
    plots_dir = os.path.join(directory, "plots")
    shutil.rmtree(plots_dir, ignore_errors=True)
    os.makedirs(plots_dir, exist_ok=True)
    figures = []
    for metric in plan["metrics"]:
        for i, axis in enumerate(plan["axes"]):
            svg, caption = plot(plan, rows, metric, i)
            name = f"{slug(metric)}-vs-{slug(axis['key'])}.svg"
            with open(os.path.join(plots_dir, name), "w", encoding="utf-8") as f:
                f.write(svg)
            figures.append(f"<figure>{svg}<figcaption>{esc(caption)} (plots/{esc(name)})</figcaption></figure>")
    header = list(rows[0].keys()) if rows else []
    table = ["<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead><tbody>"]
    for row in rows:
        cls = "ok" if row["outcome"] == "ok" else "bad"
        table.append(f"<tr class='{cls}'>" + "".join(f"<td>{esc(row[h] or '')}</td>" for h in header) + "</tr>")
    table.append("</tbody></table>")
    summary = ", ".join(f"{n} {esc(k)}" for k, n in sorted(outcomes.items()))
    space = plan.get("space_size", len(rows))
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gpuvp sweep</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #1d2330; }}
h1 {{ font-size: 1.5em; }} figure {{ display: inline-block; margin: 0.5em; }}
figcaption {{ font-size: 0.85em; color: #555; max-width: 640px; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
th, td {{ border: 1px solid #ccd; padding: 2px 6px; text-align: left; }}
tr.bad td {{ background: #fde8e8; }} code {{ background: #eef; padding: 0 3px; }}
</style></head><body>
<h1>gpuvp sweep: {len(rows)} points of {space}</h1>
<section id="sweep"><h2>What ran</h2><p>Workload <code>{esc(plan["workload"]["name"])}</code>; varied:
{", ".join(f"<code>{esc(a['key'])}</code> ({len(a['values'])} values)" for a in plan["axes"])}.
Outcomes: {summary}. The data: <a href="results.csv">results.csv</a>; each point's configuration, statistics and log
under <code>points/ID/</code>.</p></section>
<section id="plots"><h2>Metrics against the varied keys</h2>
{"".join(figures)}
</section>
<section id="results"><h2>Results</h2>
{"".join(table)}
</section>
</body></html>
"""
    with open(os.path.join(directory, "summary.html"), "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
