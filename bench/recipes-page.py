#!/usr/bin/env python3
"""recipes-page.py: the part of bench/recipes.sh that keeps docs/recipes.md's
sentences to its tables.

  recipes-page.py check TEMPLATE   fails (exit 1, one line per finding) when the
                                   template's prose says a direction itself
                                   ("pooling multiplies throughput", "0.9x",
                                   "slower") instead of through a placeholder
  recipes-page.py fill OUT         reads the page on stdin, writes it on stdout
                                   with each placeholder filled from the
                                   recipes' study.json in OUT
  recipes-page.py splice PAGE TEMPLATE NOTE NAME...
                                   reads a page written for recipes NAME on
                                   stdin and writes PAGE on stdout with only
                                   the sections ("## ..." to the next) of
                                   TEMPLATE that hold a NAME's "@recipe"
                                   taken from it, each with NOTE (when and on
                                   what it ran) after its heading; a section
                                   PAGE lacks goes where TEMPLATE puts it

Placeholders:

  {{vs RECIPE AXIS=FROM->TO OP METRIC [SETTING=VALUE...]}}
      the change of OP's METRIC (ops_per_s, mean_ms, p50_ms, p95_ms, p99_ms)
      from the cell AXIS=FROM to the cell AXIS=TO of RECIPE's comparison table
      along AXIS (the other settings held at the SETTING=VALUE given), as the
      study decided it: the factor, its 95% interval and the verdict (better,
      worse, ~ or ?), e.g. "0.54x (0.50x to 0.58x): worse"
  @limits RECIPE   (a line of its own)
      one bullet per cell of RECIPE: its "limited by:" line, and its round
      trip asked and measured during the window under --network

Quoted text ("...") is the seeds' own words and is not checked; everything
else that compares must come from a placeholder, so the page cannot say one
thing while its table says another.
"""
import json
import os
import re
import sys

# Words that state a direction or a size of a difference. A sentence of the
# template's prose with one of them outside a placeholder or a quote fails
# the check.
DIRECTION = re.compile(
    r"\b(faster|slower|fastest|slowest|quicker|multipl(?:y|ies|ied)|outperforms?|beats?|wins?|"
    r"los(?:e|es|ing)|gains?|cuts?|shrinks?|doubles?|halves|triples?|speedups?|"
    r"higher|lower|better|worse|more throughput|less throughput|order of magnitude|"
    r"reverses?|\d+(?:\.\d+)?x)\b",
    re.IGNORECASE,
)
PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
QUOTE = re.compile(r'"[^"]*"')
CODE = re.compile(r"`[^`]*`")

METRIC = {"ops_per_s": "ops/s", "mean_ms": "mean latency", "p50_ms": "p50 latency",
          "p95_ms": "p95 latency", "p99_ms": "p99 latency"}


def prose(lines):
    """Yields (line number, text) of the template's prose: not code blocks,
    not directives, not comments, with placeholders, quotes and inline code
    taken out."""
    fence = False
    for i, line in enumerate(lines, 1):
        if line.startswith("```") or line.strip().startswith("```"):
            fence = not fence
            continue
        if fence or line.startswith("@") or line.startswith("<!--") or line.startswith("#"):
            continue
        text = PLACEHOLDER.sub(" ", line)
        text = CODE.sub(" ", text)
        yield i, text


def check(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    bad = 0
    # a quote may span lines: each paragraph is checked whole, and a
    # finding named by the line it is on
    paras, cur, last = [], [], -1
    for i, text in prose(lines):
        if not text.strip() or i != last + 1:
            if cur:
                paras.append(cur)
            cur = []
        if text.strip():
            cur.append((i, text))
        last = i
    if cur:
        paras.append(cur)
    for para in paras:
        joined, starts = "", []
        for i, text in para:
            starts.append((len(joined), i))
            joined += text + "\n"
        joined = QUOTE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), joined)
        for m in DIRECTION.finditer(joined):
            line = max(i for off, i in starts if off <= m.start())
            print(f'{path}:{line}: "{m.group(0)}" states a direction in the prose: '
                  f'write it from the data ({{{{vs ...}}}}), quote the seed ("..."), or remove it')
            bad += 1
    return 1 if bad else 0


class TemplateError(Exception):
    pass


def load(out, recipe):
    path = os.path.join(out, recipe, "study.json")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def fmt_x(r):
    return f"{r:.2f}x" if r < 10 else f"{r:.1f}x"


def vs(out, args):
    if len(args) < 4:
        raise TemplateError("{{vs RECIPE AXIS=FROM->TO OP METRIC [SETTING=VALUE...]}}: too few words: %r" % " ".join(args))
    recipe, axis, op, metric, held = args[0], args[1], args[2], args[3], args[4:]
    m = re.fullmatch(r"([^=]+)=(.+)->(.+)", axis)
    if not m or metric not in METRIC:
        raise TemplateError(f"{{{{vs {' '.join(args)}}}}}: want AXIS=FROM->TO and a metric of {sorted(METRIC)}")
    name, frm, to = m.groups()
    s = load(out, recipe)
    if s is None:
        return f"(no figure: recipe `{recipe}` left no study.json this time)"
    held = dict(h.split("=", 1) for h in held)
    comps = s.get("comparisons") or {}
    for lo in comps.get("left_out") or []:
        words = lo["cell"].split()
        if any(f"{name}={v}" in words for v in (frm, to)) and all(f"{k}={v}" in words for k, v in held.items()):
            return f"(no figure: cell `{lo['cell']}` was left out of the comparisons: {lo['why']})"
    for t in comps.get("axes") or []:
        if t["axis"] != name or {h["key"]: h["value"] for h in t.get("held") or []} != held:
            continue
        vals = t["values"]
        if frm not in vals or to not in vals or vals.index(to) != vals.index(frm) + 1:
            continue
        i = vals.index(frm)
        for row in t["rows"]:
            if row["op"] != op or row["metric"] != metric:
                continue
            a, b = row["values"][i], row["values"][i + 1]
            if not a:
                return f"(no figure: {op} {METRIC[metric]} was 0 at {name}={frm})"
            st = (row.get("stats") or [None] * len(vals))[i]
            ratio = fmt_x(b / a)
            if not b:
                return f"{ratio} (no verdict: {op} {METRIC[metric]} was 0 at {name}={to})"
            if st is None:
                return f"{ratio} (no verdict)"
            v = st["verdict"]
            if v == "?":
                why = "a cell ran once" if min(st.get("reps") or [1]) <= 1 else "fewer than two of a cell's repetitions measured it"
                return f"{ratio} (?: {why}, so the noise is unknown and nothing is decided)"
            interval = f"{fmt_x(1 + st.get('low_pct', 0) / 100)} to {fmt_x(1 + st.get('high_pct', 0) / 100)}"
            if v == "~":
                return f"{ratio} ({interval}, p={st.get('p', 0):g}: ~, within the repetitions' noise)"
            return f"{ratio} ({interval}, 95% interval: {v})"
    raise TemplateError(f"{{{{vs {' '.join(args)}}}}}: recipe {recipe}'s study.json has no such comparison "
                        f"(along {name}, {frm} next to {to}, held {held or 'nothing'}, op {op}, {metric})")


def limits(out, recipe):
    s = load(out, recipe)
    if s is None:
        return [f"- (recipe `{recipe}` left no study.json this time: no limits to give)"]
    lines = []
    for c in s.get("cells") or []:
        ls = c.get("limited_by") or []
        runs = sum(l.get("runs", 0) for l in ls)
        # one entry per kind of limit (each run's figures differ a little:
        # the first run's line stands for the others of its kind)
        kinds = {}
        for l in ls:
            k = kinds.setdefault(l["part"], {"line": l["line"], "this_machine": False, "runs": 0})
            k["runs"] += l.get("runs", 0)
            k["this_machine"] = k["this_machine"] or l.get("this_machine", False)
        parts = []
        for k in kinds.values():
            t = k["line"]
            if k["this_machine"]:
                t += "; it shared the machine's cores with the rest of the run: this machine's limit, not the part's on a host of its own"
            if runs > 1:
                t += f" (this kind in {k['runs']} of {runs} runs" + (", the figures of the first)" if k["runs"] > 1 else ")")
            parts.append(t)
        text = "; ".join(parts) if parts else "not known (no CPU figures)"
        net = c.get("network")
        if net and net.get("shape"):
            text += f" (network {net['shape']}, measured rtt during the window {net.get('window_rtt_ms', 0):.2f} ms, the median of the runs')"
        lines.append(f"- `{c['label']}`: limited by: {text}")
    return lines


def fill(out):
    for line in sys.stdin.read().split("\n")[:-1]:
        if line.startswith("@limits "):
            print("\n".join(limits(out, line.split()[1])))
            continue
        print(PLACEHOLDER.sub(lambda m: placeholder(out, m.group(1)), line))
    return 0


def placeholder(out, body):
    words = body.split()
    if words and words[0] == "vs":
        return vs(out, words[1:])
    raise TemplateError("{{%s}}: unknown placeholder (want {{vs ...}})" % body)


def sections(lines):
    """Splits a page at its "## " headings: a list of (heading, lines), the
    first the part before any heading (heading None)."""
    out = [(None, [])]
    fence = False
    for line in lines:
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            out.append((line, [line]))
        else:
            out[-1][1].append(line)
    return out


def splice(page, template, note, names):
    tmpl = sections(open(template, encoding="utf-8").read().split("\n"))
    wanted = [h for h, body in tmpl if h and any(l.strip() in {"@recipe " + n for n in names} for l in body)]
    missing = [n for n in names if not any(l.strip() == "@recipe " + n for _, body in tmpl for l in body)]
    if missing:
        raise TemplateError(f"{template} has no @recipe {' '.join(missing)}")
    new = dict(sections(sys.stdin.read().split("\n")))
    old = sections(open(page, encoding="utf-8").read().split("\n"))
    order = [h for h, _ in tmpl]
    for h in wanted:
        if h not in new:
            raise TemplateError(f"the page on stdin has no section {h!r}")
        body = [new[h][0], "", note] + new[h][1:]
        while body[-1] == "":
            body.pop()
        body.append("")  # one blank line before the next heading, or the page's last newline
        heads = [oh for oh, _ in old]
        if h in heads:
            old[heads.index(h)] = (h, body)
            continue
        # after the nearest section before it in the template that the page has
        at = 1
        for prev in reversed(order[:order.index(h)]):
            if prev in heads:
                at = heads.index(prev) + 1
                break
        if old[at - 1][1][-1] != "":
            old[at - 1][1].append("")
        old.insert(at, (h, body))
    lines = [l for _, body in old for l in body]
    sys.stdout.write("\n".join(lines))
    return 0


def main(argv):
    if len(argv) >= 6 and argv[1] == "splice":
        try:
            return splice(argv[2], argv[3], argv[4], argv[5:])
        except TemplateError as e:
            print(f"recipes-page.py: {e}", file=sys.stderr)
            return 1
    if len(argv) != 3 or argv[1] not in ("check", "fill"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        return check(argv[2]) if argv[1] == "check" else fill(argv[2])
    except TemplateError as e:
        print(f"recipes-page.py: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
