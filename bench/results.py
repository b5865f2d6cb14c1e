"""results.py: what the bench scripts' Python reads of their runs' JSON
results. A script's heredoc, run from the repository's root, imports it:
sys.path.insert(0, "bench"); from results import runs."""
import glob
import json
import os


def runs(out):
    """Each result OUT/*.json in name order, as (its name without .json,
    the result, the client's CPU seconds over the window: user + sys)."""
    for f in sorted(glob.glob(os.path.join(out, "*.json"))):
        r = json.load(open(f))
        yield os.path.basename(f)[:-5], r, r["client"]["cpu_user_s"] + r["client"]["cpu_sys_s"]
