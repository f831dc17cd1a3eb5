// SPDX-License-Identifier: MIT
// ajv_check.js SCHEMA DATA_DIR - cross-checks turntrace.schema.json with an
// independent JSON Schema implementation (ajv, draft 2020-12, strict mode):
// every valid fixture passes; every invalid fixture whose error is structural
// fails; every one whose error is a rule beyond JSON Schema (vrules.c) passes,
// which shows the schema says neither less nor more than the C shape pass.
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv2020 = require("ajv/dist/2020");

const structural = new Set([
	"attribute_nested_object", "attribute_type", "bad_boot_id", "bad_enum", "bad_session_id",
	"data_quality_missing", "float_id", "http_status_range", "missing_required",
	"negative_ns", "not_an_object", "too_deep", "ttft_mark_without_ttft_ns",
	"unknown_counter", "unknown_property", "waste_l3_not_waste", "waste_unknown_kind",
	"wrong_schema_version", "wrong_type",
]);
const beyond = new Set([
	"counter_both_ways", "duplicate_span_id", "gpu_activity_outside_turn",
	"mark_outside_turn", "mark_unknown_span", "missing_parent", "parent_cycle",
	"parent_not_containing", "sched_exceeds_span", "sched_huge_values",
	"span_end_before_start", "span_outside_turn", "token_times_backwards",
	"turn_end_before_start", "unknown_stage", "waste_unknown_l3",
]);

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
const dir = process.argv[3];
let failed = 0, checked = 0;

function check(file, want) {
	const ok = validate(JSON.parse(fs.readFileSync(file, "utf8")));
	checked++;
	if (ok !== want) {
		failed++;
		console.log(`FAIL: ${file}: ajv says ${ok ? "valid" : "invalid"}, want ` +
			    `${want ? "valid" : "invalid"} ${JSON.stringify(validate.errors)}`);
	}
}

for (const f of fs.readdirSync(path.join(dir, "valid")).filter((f) => f.endsWith(".json")))
	check(path.join(dir, "valid", f), true);
for (const name of [...structural, ...beyond])
	check(path.join(dir, "invalid", name + ".json"), beyond.has(name));
console.log(`ajv: ${checked} fixtures checked, ${failed} disagreements`);
process.exit(failed ? 1 : 0);
