"""results.py: what the bench scripts' Python reads of their runs' JSON
results. A script, from the repository's root, runs its heredoc as
`PYTHONPATH=bench python3 - ...` to import it."""
import glob
import json
import os
import statistics


def runs(out):
    """Each result OUT/*.json in name order, as (its name without .json,
    the result, the client's CPU seconds over the window: user + sys)."""
    for f in sorted(glob.glob(os.path.join(out, "*.json"))):
        r = json.load(open(f))
        yield os.path.basename(f)[:-5], r, r["client"]["cpu_user_s"] + r["client"]["cpu_sys_s"]


def medians(rows, n):
    """The median of each of the first n columns of rows (tuples)."""
    return [statistics.median(row[i] for row in rows) for i in range(n)]
