/* SPDX-License-Identifier: MIT */
/* testutil.c - see testutil.h. */
#include "sdk/testutil.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/validate.h"
#include "sdk/xperf.h"

int tu_failures;

void tu_tmpdir(char *buf, size_t len, const char *tag)
{
	const char *base = getenv("TEST_TMPDIR");

	snprintf(buf, len, "%s/%s.XXXXXX", base ? base : "/tmp", tag);
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		exit(1);
	}
}

static void print_error(const struct sc_verror *e, void *ctx)
{
	char line[1024];

	(void)ctx;
	fprintf(stderr, "invalid trace: %s\n", sc_verror_format(e, line, sizeof(line)));
}

cJSON *tu_load(const char *path)
{
	FILE *f;
	char *text;
	long n;
	cJSON *doc;
	int errors = sc_validate_file(path, print_error, NULL);

	CHECK(errors == 0);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		tu_failures++;
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	if (fread(text, 1, (size_t)n, f) != (size_t)n)
		tu_failures++;
	fclose(f);
	doc = cJSON_Parse(text);
	free(text);
	CHECK(doc != NULL);
	return doc;
}

void tu_turn_path(char *buf, size_t len, int turn)
{
	char dir[PATH_MAX];

	if (xperf_session_dir(dir, sizeof(dir)) < 0)
		dir[0] = '\0';
	snprintf(buf, len, "%s/turn_%03d.json", dir, turn);
}

const cJSON *tu_span(const cJSON *doc, const char *stage)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "spans"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "stage")), stage) == 0)
			return s;
	return NULL;
}

int64_t tu_int(const cJSON *obj, const char *key)
{
	const cJSON *v = key ? cJSON_GetObjectItem(obj, key) : obj;

	if (cJSON_IsNumber(v))
		return (int64_t)v->valuedouble;
	return -1;
}

int tu_has_warning(const cJSON *doc, const char *needle)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "data_quality"),
						  "warnings"))
		if (cJSON_IsString(w) && strstr(w->valuestring, needle))
			return 1;
	return 0;
}

int tu_count_entries(const char *dir, const char *needle)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, needle))
			n++;
	closedir(d);
	return n;
}

int tu_done(const char *name)
{
	if (tu_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, tu_failures);
	else
		fprintf(stderr, "%s: all checks passed\n", name);
	return tu_failures ? 1 : 0;
}
