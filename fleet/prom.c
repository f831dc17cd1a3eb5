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

/*
 * `name{node="..",agent=".."[,more]} ` of series s; more (NULL for none) holds labels
 * whose values need no escaping (theory's ids, bucket bounds).
 */
static void sample(FILE *out, const char *name, const struct fleet_series *s, const char *more)
{
	fprintf(out, "%s{node=\"", name);
	fleet_prom_escape(s->node, strlen(s->node), out);
	fputs("\",agent=\"", out);
	fleet_prom_escape(s->agent, strlen(s->agent), out);
	fprintf(out, "\"%s%s} ", more ? "," : "", more ? more : "");
}

/* `name{k="v"} ` (no node/agent). */
static void sample1(FILE *out, const char *name, const char *k, const char *v)
{
	fprintf(out, "%s{%s=\"", name, k);
	fleet_prom_escape(v, strlen(v), out);
	fputs("\"} ", out);
}

/* A sample's value: a count, or (ns, nano-USD) exact decimal seconds or dollars. */
static void value(FILE *out, uint64_t v, int decimal)
{
	char buf[32];

	if (decimal)
		fleet_seconds(v, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
	fprintf(out, "%s\n", buf);
}

static uint64_t ctr(const struct fleet_series *s, size_t k)
{
	return s->ctr ? s->ctr[k] : 0; /* a series without counters yet */
}

static void per_agent(struct fleet_agg *a, FILE *out)
{
	static const struct { const char *name, *type, *help; size_t k; } m[] = {
		{ "xperf_turns_total", "counter", "Agent turns analysed.", FC_TURNS },
		{ "xperf_incomplete_turns_total", "counter",
		  "Turns cut by a detach, an exit or a crash.", FC_INCOMPLETE },
		{ "xperf_turn_seconds_total", "counter", "Wall time of the analysed turns.",
		  FC_WALL_NS },
	};

	header(out, "xperf_sessions", "gauge", "Sessions found in the trace directory.");
	for (size_t i = 0; i < a->nseries; i++) {
		sample(out, "xperf_sessions", &a->series[i], NULL);
		fprintf(out, "%u\n", a->series[i].sessions);
	}
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		header(out, m[k].name, m[k].type, m[k].help);
		for (size_t i = 0; i < a->nseries; i++) {
			sample(out, m[k].name, &a->series[i], NULL);
			value(out, ctr(&a->series[i], m[k].k), m[k].k == FC_WALL_NS);
		}
	}
}

static void per_category(const struct fleet_agg *a, FILE *out)
{
	header(out, "xperf_category_seconds_total", "counter",
	       "Turn time charged to each Top-down domain and category (L2).");
	char more[96];

	for (size_t i = 0; i < a->nseries; i++) {
		for (size_t k = 0; k < th_l2_count; k++) {
			const struct th_l2 *l2 = &th_l2_table[k];

			snprintf(more, sizeof(more), "domain=\"%s\",category=\"%s\"",
				 th_domains[l2->domain].key, th_categories[l2->category].key);
			sample(out, "xperf_category_seconds_total", &a->series[i], more);
			value(out, ctr(&a->series[i], FC_L2 + l2->domain * XP_CAT_COUNT +
							      l2->category), 1);
		}
	}
}

static void per_point(const struct fleet_agg *a, FILE *out)
{
	const char *name[2] = { "xperf_bottleneck_turns_total", "xperf_bottleneck_seconds_total" };
	char more[160];

	for (int s = 0; s < 2; s++) { /* turns fired, then time */
		size_t base = s ? fleet_ctr_l3_ns() : fleet_ctr_l3_turns();

		header(out, name[s], "counter", s ? "Turn time charged to the L3 point."
						  : "Turns in which the L3 point fired.");
		for (size_t i = 0; i < a->nseries; i++)
			for (size_t p = 0; p < th_l3_count; p++) {
				snprintf(more, sizeof(more), "l3=\"%s\"", th_l3_table[p].id);
				sample(out, name[s], &a->series[i], more);
				value(out, ctr(&a->series[i], base + p), s);
			}
	}
	header(out, "xperf_bottleneck_sessions", "gauge",
	       "Sessions in which the L3 point fired at least once.");
	for (size_t p = 0; p < th_l3_count; p++) {
		sample1(out, "xperf_bottleneck_sessions", "l3", th_l3_table[p].id);
		fprintf(out, "%u\n", a->points[p].sessions);
	}
}

/* Tokens and cost per series: all LLM calls, then those of the wasted ones. */
static void per_usage(const struct fleet_agg *a, FILE *out)
{
	static const struct { const char *name, *help; size_t k; } m[] = { /* after xperf_[waste_] */
		{ "cost_usd_total", "Cost of the priced LLM calls (price table, --prices).",
		  FU_NUSD },
		{ "llm_calls_total", "LLM calls counted.", FU_CALLS },
		{ "unpriced_llm_calls_total",
		  "LLM calls whose model matched no price (their tokens count, their cost does not).",
		  FU_UNPRICED },
	};
	char metric[64], more[32];

	for (int w = 0; w < 2; w++) {
		size_t base = fleet_ctr_usage() + (size_t)w * FU_LEN;

		snprintf(metric, sizeof(metric), "xperf_%stokens_total", w ? "waste_" : "");
		header(out, metric, "counter", w ? "Tokens of the LLM calls spent on Waste (retried, "
						   "cut, asking for failed or repeated tools)."
						 : "Tokens of the LLM calls by type (input counts "
						   "cached input too, output counts reasoning).");
		for (size_t i = 0; i < a->nseries; i++)
			for (int k = 0; k < XA_TOK_COUNT; k++) {
				snprintf(more, sizeof(more), "type=\"%s\"", xa_tok_names[k]);
				sample(out, metric, &a->series[i], more);
				value(out, ctr(&a->series[i], base + FU_TOK + k), 0);
			}
		for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
			snprintf(metric, sizeof(metric), "xperf_%s%s", w ? "waste_" : "", m[k].name);
			header(out, metric, "counter", m[k].help);
			for (size_t i = 0; i < a->nseries; i++) {
				sample(out, metric, &a->series[i], NULL);
				value(out, ctr(&a->series[i], base + m[k].k), m[k].k == FU_NUSD);
			}
		}
	}
}

/* A histogram per series: cumulative buckets, +Inf, _sum (seconds), _count. */
static void histogram(const struct fleet_agg *a, FILE *out, const char *name, const char *help,
		      size_t base, const struct fleet_bucket *b, size_t nb)
{
	char metric[96], more[32];

	header(out, name, "histogram", help);
	for (size_t i = 0; i < a->nseries; i++) {
		const struct fleet_series *s = &a->series[i];

		snprintf(metric, sizeof(metric), "%s_bucket", name);
		for (size_t k = 0; k <= nb; k++) {
			snprintf(more, sizeof(more), "le=\"%s\"", k < nb ? b[k].le : "+Inf");
			sample(out, metric, s, more);
			value(out, ctr(s, base + k), 0); /* base + nb: _count */
		}
		snprintf(metric, sizeof(metric), "%s_sum", name);
		sample(out, metric, s, NULL);
		value(out, ctr(s, base + nb + 1), 1);
		snprintf(metric, sizeof(metric), "%s_count", name);
		sample(out, metric, s, NULL);
		value(out, ctr(s, base + nb), 0);
	}
}

static void per_node(const struct fleet_agg *a, FILE *out)
{
	header(out, "xperf_dropped_events_total", "counter",
	       "Kernel events lost before they reached a trace (ring buffer full).");
	/* Per node of the series (sorted by node), not of the nodes present now: a node whose
	 * sessions were all deleted keeps its counter (the ledger's retired totals). */
	for (size_t i = 0, j; i < a->nseries; i = j) {
		uint64_t sum = 0;

		for (j = i; j < a->nseries && !strcmp(a->series[j].node, a->series[i].node); j++)
			sum += ctr(&a->series[j], FC_DROPPED);
		sample1(out, "xperf_dropped_events_total", "node", a->series[i].node);
		fprintf(out, "%" PRIu64 "\n", sum);
	}
	header(out, "xperf_invalid_files", "gauge",
	       "Turn files now present that are not valid TurnTrace v1 (skipped).");
	for (size_t i = 0; i < a->nnodes; i++) {
		sample1(out, "xperf_invalid_files", "node", a->nodes[i].name);
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
	histogram(a, out, "xperf_ttft_seconds",
		  "Time to first token of the first LLM call of each turn.", fleet_ctr_ttft(),
		  fleet_ttft_buckets, fleet_ttft_nbuckets);
	histogram(a, out, "xperf_turn_duration_seconds", "Wall time of each turn.",
		  fleet_ctr_turn(), fleet_turn_buckets, fleet_turn_nbuckets);
	per_usage(a, out);
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
