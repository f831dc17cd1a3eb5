#!/usr/bin/env bash
# schema_ajv_test.sh - turntrace.schema.json checked by ajv (draft 2020-12),
# installed by setup.sh into third_party/npm (found next to the source tree
# the runfiles point at).
set -euo pipefail
ws=$(cd "$(dirname "$(readlink -f schema/turntrace.schema.json)")/.." && pwd)
export NODE_PATH=$ws/third_party/npm/node_modules
if [ ! -f "$NODE_PATH/ajv/dist/2020.js" ]; then
	echo "FAIL: ajv is not installed in $NODE_PATH: run ./setup.sh --deps-only"
	exit 1
fi
exec node schema/ajv_check.js schema/turntrace.schema.json schema/testdata
