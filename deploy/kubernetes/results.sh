#!/bin/sh
# results.sh DIR: reads shards' logs (entrypoint.sh's output) on standard
# input and saves each result they hold as DIR/shard-I.json, for
# txnbench report DIR/shard-*.json. With an Indexed Job:
#
#   kubectl logs -l job-name=txnbench-shards --tail=-1 --max-log-requests=64 |
#     deploy/kubernetes/results.sh results
set -eu
dir=${1:?usage: results.sh DIR < shard logs}
mkdir -p "$dir"
awk -v dir="$dir" '
/^### txnbench result shard-[0-9]+\.json begin$/ { file = dir "/" $4; printf "" > file; next }
/^### txnbench result shard-[0-9]+\.json end$/ { close(file); print "saved " file > "/dev/stderr"; file = ""; next }
file != "" { print > file }
'
