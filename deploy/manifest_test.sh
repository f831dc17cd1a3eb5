#!/usr/bin/env bash
# manifest_test.sh XPERF XPERF_BPF - the deployment files without a cluster: yamllint
# (Debian) on daemonset.yaml, then check_manifest.py on the DaemonSet and the Dockerfile
# against the real binaries; then four broken copies (a capability removed, SYS_ADMIN
# added, the scrape
# port annotation wrong, a runtime library not installed) must each be refused.
set -euo pipefail
xperf=$1 xbpf=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
command -v yamllint >/dev/null || { echo "FAIL: yamllint not installed (setup.sh)"; exit 1; }
yamllint -s -c deploy/.yamllint deploy/daemonset.yaml
python3 deploy/check_manifest.py deploy/daemonset.yaml deploy/Dockerfile "$xperf" "$xbpf"

refused() { # NAME DAEMONSET DOCKERFILE EXPECTED_LINE
	if python3 deploy/check_manifest.py "$2" "$3" "$xperf" "$xbpf" >"$tmp/out"; then
		echo "FAIL: $1 accepted"
		exit 1
	fi
	grep -q "$4" "$tmp/out" || { echo "FAIL: $1: $(cat "$tmp/out")"; exit 1; }
}
sed 's/"PERFMON", //' deploy/daemonset.yaml >"$tmp/nocap.yaml"
refused "missing PERFMON" "$tmp/nocap.yaml" deploy/Dockerfile "capability PERFMON missing"
sed 's/"PERFMON", "SYS_PTRACE"]/"PERFMON", "SYS_PTRACE", "SYS_ADMIN"]/' deploy/daemonset.yaml >"$tmp/admin.yaml"
refused "SYS_ADMIN by default" "$tmp/admin.yaml" deploy/Dockerfile "SYS_ADMIN by default"
sed 's/port: "9464"/port: "9465"/' deploy/daemonset.yaml >"$tmp/port.yaml"
refused "wrong scrape port" "$tmp/port.yaml" deploy/Dockerfile "prometheus.io/port"
sed 's/libelf1 //' deploy/Dockerfile >"$tmp/Dockerfile"
refused "missing libelf1" deploy/daemonset.yaml "$tmp/Dockerfile" "libelf.so.1"
echo "PASS: manifests"
