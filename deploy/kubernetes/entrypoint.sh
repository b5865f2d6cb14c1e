#!/bin/sh
# txnbench's container entry point: txnbench COMMAND ARGS... against the
# database whose URL is in $TXNBENCH_DB (from a Secret, not the manifest).
# For "run" it saves the result and then prints it to the log between two
# marker lines, where results.sh finds it: the pods of an Indexed Job need
# no shared volume. A Job's pod gets its shard from JOB_COMPLETION_INDEX
# (txnbench run --shards N reads it).
#
#   TXNBENCH_DB   the database URL (required)
#   TXNBENCH_BIN  the txnbench binary (default: txnbench on PATH)
#   RESULTS       the directory run saves its result in (default: /tmp)
set -u
bin=${TXNBENCH_BIN:-txnbench}
: "${TXNBENCH_DB:?set TXNBENCH_DB to the database URL (a Secret's key)}"
if [ "${1:-}" != run ]; then
	exec "$bin" "$@" --db "$TXNBENCH_DB"
fi
name=shard-${JOB_COMPLETION_INDEX:-0}.json
out=${RESULTS:-/tmp}/$name
rm -f "$out"
# In the background, so that a stop (SIGTERM, e.g. the Job's deadline or
# a deleted pod) reaches txnbench, which ends the run and saves what it
# measured: the shell, PID 1 in the container, would ignore it.
"$bin" "$@" --db "$TXNBENCH_DB" --json "$out" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -INT "$child" 2>/dev/null' INT
wait "$child"
status=$?
while kill -0 "$child" 2>/dev/null; do # a trapped signal ended the wait, not txnbench
	wait "$child"
	status=$?
done
if [ -f "$out" ]; then
	echo "### txnbench result $name begin"
	cat "$out"
	echo "### txnbench result $name end"
fi
exit $status
