#!/usr/bin/env bash
# xperf-node-agent.sh - the DaemonSet's entry point on one node.
#
# Every XPERF_SCAN_S seconds it looks for agent processes whose command line
# matches XPERF_MATCH (an extended regex) and attaches one `xperf-bpf attach`
# to each new one (its threads and children started later are traced too).
# Traces land in $XPERF_TRACE_DIR/<node>/<session>/turn_NNN.json (directories
# 0700, files 0600), where `xperf fleet serve` (the sidecar) and
# `xperf fleet report` read them.
#
# A process is known by its pid AND its start time (/proc/PID/stat field 22),
# so a recycled pid is a new process. An attach ends by itself when its target
# exits; it is then reaped and logged. At most XPERF_MAX_ATTACH attaches run at
# once (each holds BPF programs and a ring buffer); a process that fails to be
# attached is not retried while it lives. Session directories older than
# XPERF_RETENTION_DAYS are deleted. SIGTERM/SIGINT stop every attach (each
# flushes its last turn, marked incomplete), wait for them up to
# XPERF_STOP_TIMEOUT_S, and exit 0. One log line per event on stderr.
set -uo pipefail

match=${XPERF_MATCH:?set XPERF_MATCH to a regex over agent command lines}
scan_s=${XPERF_SCAN_S:-10}
max_attach=${XPERF_MAX_ATTACH:-16}
retention_days=${XPERF_RETENTION_DAYS:-7}
stop_timeout=${XPERF_STOP_TIMEOUT_S:-10}
node=${NODE_NAME:-$(hostname)}
out=${XPERF_TRACE_DIR:-/var/lib/xperf}/$node
bin=${XPERF_BIN:-/usr/local/bin}
umask 077

log() { printf '%(%Y-%m-%dT%H:%M:%SZ)T xperf-node-agent: %s\n' -1 "$*" >&2; }

declare -A attach=()  # target key "pid:start" -> attach pid
declare -A refused=() # target key -> 1: attach failed, not retried while it lives
declare -A waiting=() # target key -> 1: over the limit, logged once
sleeper=

# Start time of a process in clock ticks since boot (field 22 of /proc/PID/stat,
# counted after the comm field, which may hold spaces and parentheses).
start_time() {
	local stat f
	read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
	read -ra f <<<"${stat##*) }"
	echo "${f[19]}"
}

stop() {
	local deadline=$((SECONDS + stop_timeout))
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	log "stopping ${#attach[@]} attach(es)"
	for key in "${!attach[@]}"; do kill -TERM "${attach[$key]}" 2>/dev/null; done
	for key in "${!attach[@]}"; do
		while kill -0 "${attach[$key]}" 2>/dev/null && ((SECONDS < deadline)); do
			sleep 0.2
		done
		kill -KILL "${attach[$key]}" 2>/dev/null && log "killed attach of ${key%%:*}"
	done
	wait
	log "stopped"
	exit 0
}
trap stop TERM INT

# Reap finished attaches; forget refused and waiting processes that are gone.
reap() {
	local key rc
	for key in "${!attach[@]}"; do
		kill -0 "${attach[$key]}" 2>/dev/null && continue
		wait "${attach[$key]}"
		rc=$?
		log "detached from ${key%%:*} (xperf-bpf exit $rc)"
		unset "attach[$key]"
		((rc == 0)) || refused[$key]=1
	done
	for key in "${!refused[@]}" "${!waiting[@]}"; do
		[ "$(start_time "${key%%:*}")" = "${key#*:}" ] || unset "refused[$key]" "waiting[$key]"
	done
}

scan() {
	local d pid key cmd start argv
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		((pid == $$ || pid == BASHPID)) && continue
		mapfile -d '' -t argv 2>/dev/null <"$d/cmdline" || continue
		cmd=${argv[*]:-}
		# Our own binaries (xperf-bpf, xperf) are never targets.
		[[ -n "$cmd" && "$cmd" =~ $match && "${argv[0]##*/}" != xperf* ]] || continue
		start=$(start_time "$pid") || continue
		key=$pid:$start
		[ -n "${attach[$key]:-}" ] || [ -n "${refused[$key]:-}" ] && continue
		if ((${#attach[@]} >= max_attach)); then
			[ -n "${waiting[$key]:-}" ] ||
				log "limit of $max_attach attaches reached: not attaching $pid yet"
			waiting[$key]=1
			continue
		fi
		unset "waiting[$key]"
		"$bin/xperf-bpf" attach --pid "$pid" -o "$out" --quiet &
		attach[$key]=$!
		log "attached to $pid (start $start): ${cmd:0:120}"
	done
}

# Delete session directories not modified for retention_days (0 keeps everything).
expire() {
	((retention_days > 0)) || return 0
	find "$out" -mindepth 1 -maxdepth 1 -type d -mtime "+$retention_days" -print0 2>/dev/null |
		while IFS= read -r -d '' d; do
			rm -rf -- "$d" && log "deleted $d (older than $retention_days days)"
		done
}

# The hostPath may have been created 0755 by the kubelet: tighten it.
if ! mkdir -p "$out" || ! chmod 0700 "${out%/*}" "$out"; then
	log "cannot create $out"
	exit 1
fi
[ -x "$bin/xperf-bpf" ] || { log "no $bin/xperf-bpf"; exit 1; }
log "node $node: tracing processes matching /$match/ into $out (scan ${scan_s}s, max $max_attach)"
while :; do
	reap
	scan
	expire
	sleep "$scan_s" &
	sleeper=$!
	wait "$sleeper"
done
