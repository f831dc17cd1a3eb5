// SPDX-License-Identifier: MIT
/*
 * prom.c - the fleet aggregates in the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): for each
 * metric one HELP line, one TYPE line, then its samples; label values escape
 * backslash, double quote and newline. Node names come from directory names
 * and may hold any byte, but the format is UTF-8: invalid sequences become
 * U+FFFD so that one odd name cannot make a whole scrape fail. Times are
 * exact decimal seconds printed from integer nanoseconds. Every L3 point is
 * exported, zero included, so that rate() and absent() behave from the start.
 * A pure function of the aggregates: no clock, no I/O but `out`.
 */
#include <inttypes.h>
#include <string.h>

#include "fleet/fleet.h"
#include "lib/utf8.h"

void fleet_prom_escape(const char *v, size_t len, FILE *out)
{
	const unsigned char *p = (const unsigned char *)v;

	for (size_t i = 0; i < len;) {
		size_t n = xp_utf8_len(p + i, len - i);

		if (!n) {
			fputs("\xef\xbf\xbd", out);
			i++;
			continue;
		}
		if (p[i] == '\\' || p[i] == '"')
			fputc('\\', out);
		if (p[i] == '\n')
			fputs("\\n", out);
		else
			fwrite(p + i, 1, n, out);
		i += n;
	}
}

void fleet_seconds(uint64_t ns, char *buf, size_t len)
{
	uint64_t frac = ns % 1000000000u;
	int w = 9;

	if (!frac) {
		snprintf(buf, len, "%" PRIu64, ns / 1000000000u);
		return;
	}
	for (; frac % 10 == 0; frac /= 10)
		w--;
	snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, ns / 1000000000u, w, frac);
}

static void header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* `name{k1="v1"[,k2="v2"]} ` (k2 may be NULL). */
static void sample(FILE *out, const char *name, const char *k1, const char *v1, const char *k2,
		   const char *v2)
{
	fprintf(out, "%s{%s=\"", name, k1);
	fleet_prom_escape(v1, strlen(v1), out);
	if (k2) {
		fprintf(out, "\",%s=\"", k2);
		fleet_prom_escape(v2, strlen(v2), out);
	}
	fputs("\"} ", out);
}

static void seconds_value(FILE *out, uint64_t ns)
{
	char buf[32];

	fleet_seconds(ns, buf, sizeof(buf));
	fprintf(out, "%s\n", buf);
}

static void per_agent(struct fleet_agg *a, FILE *out)
{
	static const struct { const char *name, *type, *help; } m[] = {
		{ "xperf_sessions", "gauge", "Sessions found in the trace directory." },
		{ "xperf_turns_total", "counter", "Agent turns analysed." },
		{ "xperf_incomplete_turns_total", "counter",
		  "Turns cut by a detach, an exit or a crash." },
		{ "xperf_turn_seconds_total", "counter", "Wall time of the analysed turns." },
	};

	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		header(out, m[k].name, m[k].type, m[k].help);
		for (size_t i = 0; i < a->nseries; i++) {
			const struct fleet_series *s = &a->series[i];
			unsigned v[] = { s->sessions, s->turns, s->incomplete };

			sample(out, m[k].name, "node", s->node, "agent", s->agent);
			if (k < 3)
				fprintf(out, "%u\n", v[k]);
			else
				seconds_value(out, s->wall_ns);
		}
	}
}

static void per_category(const struct fleet_agg *a, FILE *out)
{
	header(out, "xperf_category_seconds_total", "counter",
	       "Turn time charged to each Top-down domain and category (L2).");
	for (size_t k = 0; k < xp_l2_count; k++) {
		const struct xp_l2 *l2 = &xp_l2_table[k];

		sample(out, "xperf_category_seconds_total", "domain", xp_domains[l2->domain].key,
		       "category", xp_categories[l2->category].key);
		seconds_value(out, a->l2_ns[l2->domain][l2->category]);
	}
}

static void per_point(const struct fleet_agg *a, FILE *out)
{
	static const struct { const char *name, *type, *help; } m[] = {
		{ "xperf_bottleneck_turns_total", "counter", "Turns in which the L3 point fired." },
		{ "xperf_bottleneck_sessions", "gauge",
		  "Sessions in which the L3 point fired at least once." },
		{ "xperf_bottleneck_seconds_total", "counter",
		  "Turn time charged to the L3 point." },
	};

	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		header(out, m[k].name, m[k].type, m[k].help);
		for (size_t i = 0; i < xp_l3_count; i++) {
			sample(out, m[k].name, "l3", xp_l3_table[i].id, NULL, NULL);
			if (k < 2)
				fprintf(out, "%u\n",
					k ? a->points[i].sessions : a->points[i].turns);
			else
				seconds_value(out, a->points[i].ns);
		}
	}
}

static void per_node(const struct fleet_agg *a, FILE *out)
{
	header(out, "xperf_dropped_events_total", "counter",
	       "Kernel events lost before they reached a trace (ring buffer full).");
	for (size_t i = 0; i < a->nnodes; i++) {
		sample(out, "xperf_dropped_events_total", "node", a->nodes[i].name, NULL, NULL);
		fprintf(out, "%" PRIu64 "\n", a->nodes[i].dropped_events);
	}
	header(out, "xperf_invalid_files_total", "counter",
	       "Turn files skipped because they are not valid TurnTrace v1.");
	for (size_t i = 0; i < a->nnodes; i++) {
		sample(out, "xperf_invalid_files_total", "node", a->nodes[i].name, NULL, NULL);
		fprintf(out, "%u\n", a->nodes[i].invalid_files);
	}
}

int fleet_prom_write(struct fleet_agg *a, FILE *out)
{
	fleet_sort(a);
	header(out, "xperf_nodes", "gauge", "Nodes with at least one session or invalid file.");
	fprintf(out, "xperf_nodes %zu\n", a->nnodes);
	per_agent(a, out);
	per_category(a, out);
	per_point(a, out);
	per_node(a, out);
	header(out, "xperf_failed_sessions", "gauge",
	       "Session directories that could not be read or hold no valid turn.");
	fprintf(out, "xperf_failed_sessions %u\n", a->failed_sessions);
	header(out, "xperf_scan_success", "gauge",
	       "1 when the last scan could read the trace directory, else 0.");
	fprintf(out, "xperf_scan_success %d\n", !a->scan_failed);
	header(out, "xperf_scan_duration_seconds", "gauge",
	       "How long the last scan of the trace directory took.");
	fprintf(out, "xperf_scan_duration_seconds %.6f\n", a->scan_seconds);
	header(out, "xperf_last_scan_timestamp_seconds", "gauge",
	       "When the last scan ended (Unix time).");
	fprintf(out, "xperf_last_scan_timestamp_seconds %.3f\n", a->scan_time);
	return fflush(out) || ferror(out) ? -1 : 0;
}
