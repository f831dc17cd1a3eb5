/* SPDX-License-Identifier: MIT */
/* fixture.c - JSON-lines event reader (cJSON). */
#define _GNU_SOURCE
#include "assemble/fixture.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/json_int.h"

struct kind_name {
	const char *name;
	enum xt_kind kind;
};

static const struct kind_name kinds[] = {
	{ "fork", XT_FORK }, { "exec", XT_EXEC }, { "exit", XT_EXIT },
	{ "sched", XT_SCHED }, { "tls_data", XT_TLS }, { "tls_close", XT_TLS_CLOSE },
	{ "sock_open", XT_SOCK_OPEN }, { "sock_data", XT_SOCK }, { "sock_close", XT_SOCK_CLOSE },
};

/* Largest stamp accepted: read exactly (lib/json_int.h), and sums of two cannot overflow. */
#define TS_MAX (1ull << 62)

static const char *const states[] = { "unknown", "oncpu", "runq", "blocked", NULL };

/* Running stream offsets for TLS records that leave "pos" out. */
struct pos_key {
	uint32_t tgid;
	uint64_t conn;
	uint64_t next[2];
};

/* A number field as an integer in [0, max]: out of range or absent gives dflt. */
static uint64_t num(const cJSON *o, const char *k, uint64_t max, uint64_t dflt)
{
	uint64_t v;

	if (xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(o, k), &v) || v > max)
		return dflt;
	return v;
}

static const char *str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static int parse_state(const char *s, enum xt_state *out)
{
	for (int i = 0; states[i]; i++)
		if (s && !strcmp(s, states[i])) {
			*out = (enum xt_state)i;
			return 0;
		}
	return -1;
}

/* argv array -> NUL-separated buffer. */
static int join_argv(const cJSON *a, char *buf, size_t cap, size_t *len)
{
	const cJSON *it;

	*len = 0;
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsString(it))
			return -1;
		size_t k = strlen(it->valuestring) + 1;

		if (*len + k > cap)
			return -1;
		memcpy(buf + *len, it->valuestring, k);
		*len += k;
	}
	return *len ? 0 : -1;
}

static uint64_t *next_pos(struct pos_key **keys, size_t *n, size_t *cap,
			  const struct xt_event *ev)
{
	for (size_t i = 0; i < *n; i++)
		if ((*keys)[i].tgid == ev->tgid && (*keys)[i].conn == ev->conn)
			return &(*keys)[i].next[ev->dir];
	if (xp_grow((void **)keys, cap, *n + 1, sizeof(**keys)))
		return NULL;
	(*keys)[*n] = (struct pos_key){ .tgid = ev->tgid, .conn = ev->conn };
	return &(*keys)[(*n)++].next[ev->dir];
}

/* Fills ev from one JSON object; NULL or the reason it is invalid. */
static const char *decode(const cJSON *o, struct xt_event *ev, char *argv, size_t cap)
{
	const char *type = str(o, "type"), *dir = str(o, "dir");
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (type && !strcmp(type, kinds[i].name))
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return "unknown or missing \"type\"";
	memset(ev, 0, sizeof(*ev));
	ev->kind = kinds[i].kind;
	ev->ts_ns = num(o, "ts_ns", TS_MAX, TS_MAX + 1);
	ev->tgid = (uint32_t)num(o, "tgid", UINT32_MAX, 0);
	ev->tid = (uint32_t)num(o, "tid", UINT32_MAX, ev->tgid);
	if (ev->ts_ns > TS_MAX || !ev->tgid)
		return "\"ts_ns\" (0..2^62) and \"tgid\" (> 0) are required";
	ev->child = (uint32_t)num(o, "child", UINT32_MAX, 0);
	ev->is_thread = cJSON_IsTrue(cJSON_GetObjectItem(o, "thread"));
	ev->wait_status = (uint32_t)(num(o, "exit_code", 255, 0) << 8 | num(o, "signal", 127, 0));
	ev->cpu_ns = num(o, "cpu_ns", TS_MAX, 0);
	ev->prev_ns = num(o, "prev_ns", TS_MAX, 0);
	ev->conn = num(o, "conn", TS_MAX, 0);
	ev->call_ns = num(o, "call_ns", TS_MAX, 0);
	ev->lost = (uint32_t)num(o, "lost", UINT32_MAX, 0);
	ev->host = str(o, "host");
	ev->in_tls = cJSON_IsTrue(cJSON_GetObjectItem(o, "in_tls"));
	ev->dir = dir && !strcmp(dir, "read") ? XT_READ : XT_WRITE;
	if (ev->kind == XT_FORK && !ev->child)
		return "fork needs \"child\"";
	if (ev->kind == XT_EXEC &&
	    join_argv(cJSON_GetObjectItem(o, "argv"), argv, cap, &ev->argv_len))
		return "exec needs \"argv\": a non-empty array of strings";
	ev->argv = argv;
	if (ev->kind == XT_SCHED && (parse_state(str(o, "state"), &ev->state) ||
				     parse_state(str(o, "prev_state") ? str(o, "prev_state") :
					"unknown", &ev->prev_state)))
		return "sched needs \"state\" (oncpu, runq or blocked)";
	ev->data = str(o, "data");
	if (ev->kind == XT_TLS && !ev->data)
		return "tls_data needs \"data\"";
	ev->len = ev->data ? (uint32_t)strlen(ev->data) : (uint32_t)num(o, "len", UINT32_MAX, 0);
	return NULL;
}

int xt_fixture_read(const char *path, xt_event_fn fn, void *ctx)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, argv[4096];
	size_t cap = 0, nkeys = 0, cap_keys = 0;
	struct pos_key *keys = NULL;
	int lineno = 0, rc = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!rc && getline(&line, &cap, f) > 0) {
		struct xt_event ev;
		const char *why;
		cJSON *o;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0' || line[0] == '#')
			continue;
		o = xp_json_parse(line, strlen(line));
		why = !cJSON_IsObject(o) ? "not a JSON object" : decode(o, &ev, argv, sizeof(argv));
		if (!why && ev.kind == XT_TLS) {
			uint64_t *next = next_pos(&keys, &nkeys, &cap_keys, &ev);

			ev.pos = cJSON_GetObjectItem(o, "pos") ? num(o, "pos", TS_MAX, 0) :
								 (next ? *next : 0);
			if (next)
				*next = ev.pos + ev.len + ev.lost;
		}
		if (why) {
			fprintf(stderr, "%s:%d: %s\n", path, lineno, why);
			rc = -1;
		} else {
			rc = fn(ctx, &ev);
		}
		cJSON_Delete(o);
	}
	free(line);
	free(keys);
	fclose(f);
	return rc;
}
