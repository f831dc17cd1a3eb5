// SPDX-License-Identifier: MIT
/*
 * tls_json_test.c - records -> JSON: no payload text unless asked, never a
 * credential, SNI reduced to the name, lengths that do not add up flagged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "userspace/tls_json.h"

static char *to_text(const struct xk_hdr *rec, bool payloads, int *rc)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	*rc = xpc_tls_record_json(rec, o, payloads);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static void tls_data(void)
{
	static struct xk_tls_data d;
	const char *req = "POST /v1/messages HTTP/1.1\r\nx-api-key: sk-SECRET\r\n\r\n{\"q\":1}";
	char *s;
	int rc;

	d.hdr.type = XP_EV_TLS_DATA;
	d.len = strlen(req);
	d.hdr.size = offsetof(struct xk_tls_data, data) + d.len;
	d.ssl = 0xabc;
	d.pos = 4096;
	d.flags = XP_TLS_TRUNC;
	memcpy(d.data, req, d.len);
	s = to_text(&d.hdr, false, &rc);
	CHECK(rc == 0 && s && !strstr(s, "payload") && !strstr(s, "SECRET") && !strstr(s, "POST"));
	CHECK(strstr(s, "\"ssl\":\"0xabc\"") && strstr(s, "\"pos\":4096") &&
	      strstr(s, "\"truncated\":true"));
	free(s);
	s = to_text(&d.hdr, true, &rc);
	CHECK(rc == 0 && strstr(s, "POST /v1/messages") && strstr(s, "x-api-key: [redacted]"));
	CHECK(!strstr(s, "SECRET"));
	free(s);
	/* Binary (not UTF-8, NUL inside): base64, nothing lost, JSON valid. */
	memcpy(d.data, "\x00\xff\xfe" "abc", 6);
	d.len = 6;
	d.hdr.size = offsetof(struct xk_tls_data, data) + d.len;
	s = to_text(&d.hdr, true, &rc);
	CHECK(rc == 0 && strstr(s, "\"payload_base64\":\"AP/+YWJj\"") && !strstr(s, "\"payload\""));
	free(s);
	memcpy(d.data, "caf\xc3\xa9", 5);	/* UTF-8 text stays text */
	d.len = 5;
	d.hdr.size = offsetof(struct xk_tls_data, data) + d.len;
	s = to_text(&d.hdr, true, &rc);
	CHECK(rc == 0 && strstr(s, "\"payload\":\"caf\xc3\xa9\""));
	free(s);
	/* Not text: a cut sequence, an overlong form, a surrogate, past U+10FFFF. */
	for (const char *const *bad = (const char *const[]){ "ab\xc3", "\xe0\x80\xaf",
					"\xed\xa0\x80", "\xf4\x90\x80\x80", NULL }; *bad; bad++) {
		d.len = strlen(*bad);
		memcpy(d.data, *bad, d.len);
		d.hdr.size = offsetof(struct xk_tls_data, data) + d.len;
		s = to_text(&d.hdr, true, &rc);
		CHECK(rc == 0 && strstr(s, "payload_base64") && !strstr(s, "\"payload\""));
		free(s);
	}
	d.hdr.size += 1;	/* size and len disagree */
	s = to_text(&d.hdr, true, &rc);
	CHECK(rc == 0 && strstr(s, "\"malformed\":true") && !strstr(s, "POST"));
	free(s);
}

static void sock_records(void)
{
	static struct xk_sock_sni sni;
	struct xk_sock_data d = { .hdr = { .type = XP_EV_SOCK_DATA, .size = sizeof(d) } };
	FILE *f = fopen("userspace/testdata/sni/python_anthropic.bin", "rb");
	char *s;
	int rc;

	d.tuple.saddr[10] = d.tuple.saddr[11] = d.tuple.daddr[10] = d.tuple.daddr[11] = 0xff;
	memcpy(d.tuple.saddr + 12, "\x7f\x00\x00\x01", 4);
	memcpy(d.tuple.daddr + 12, "\x0a\x01\x02\x03", 4);
	d.tuple.dport = 443;
	d.len = 517;
	s = to_text(&d.hdr, false, &rc);
	CHECK(rc == 0 && strstr(s, "\"saddr\":\"127.0.0.1\"") && strstr(s, "\"daddr\":\"10.1.2.3\"") &&
	      strstr(s, "\"dport\":443") && strstr(s, "\"dir\":\"send\""));
	free(s);
	CHECK(f != NULL);
	sni.len = f ? fread(sni.data, 1, sizeof(sni.data), f) : 0;
	if (f)
		fclose(f);
	sni.hdr.type = XP_EV_SOCK_SNI;
	sni.hdr.size = offsetof(struct xk_sock_sni, data) + sni.len;
	s = to_text(&sni.hdr, true, &rc);
	CHECK(rc == 0 && strstr(s, "\"sni\":\"api.anthropic.com\"") && strlen(s) < 400);
	free(s);
	d.hdr.type = XP_EV_EXEC;
	s = to_text(&d.hdr, true, &rc);
	CHECK(rc == -ENOENT);
	free(s);
	d.hdr.type = XP_EV_SOCK_CLOSE;	/* shorter than a connection record */
	d.hdr.size = sizeof(struct xk_hdr);
	s = to_text(&d.hdr, true, &rc);
	CHECK(rc == 0 && strstr(s, "malformed"));
	free(s);
}

/* A library mapped after exec: its device as /proc/PID/maps writes it. */
static void map_exec(void)
{
	struct xk_map_exec m = { .hdr = { .type = XP_EV_MAP_EXEC, .size = sizeof(m) },
				 .addr = 0x7f00dead0000, .ino = 10952897, .dev_major = 254 };
	char *s;
	int rc;

	s = to_text(&m.hdr, false, &rc);
	CHECK(rc == 0 && strstr(s, "\"dev\":\"fe:00\"") && strstr(s, "\"ino\":10952897") &&
	      strstr(s, "\"addr\":\"0x7f00dead0000\""));
	free(s);
	m.hdr.size = sizeof(m) - 1;
	s = to_text(&m.hdr, false, &rc);
	CHECK(rc == 0 && strstr(s, "malformed") && !strstr(s, "ino"));
	free(s);
}

/* A network rule's match: the kind and the name, even one filling its 64 bytes (no NUL). */
static void discover(void)
{
	struct xk_sock_discover d = { .hdr = { .type = XP_EV_SOCK_DISCOVER, .size = sizeof(d) },
				      .kind = XP_DISCOVER_HOST };
	char *s;
	int rc;

	memcpy(d.name, "api.anthropic.com", 17);
	s = to_text(&d.hdr, false, &rc);
	CHECK(rc == 0 && strstr(s, "\"rule\":\"host\"") &&
	      strstr(s, "\"name\":\"api.anthropic.com\""));
	free(s);
	d.kind = XP_DISCOVER_PATH;
	memset(d.name, 'a', sizeof(d.name));
	s = to_text(&d.hdr, false, &rc);
	CHECK(rc == 0 && strstr(s, "\"rule\":\"path\"") && strlen(strstr(s, "\"name\"")) < 80);
	free(s);
	d.hdr.size = sizeof(d) - 1;
	s = to_text(&d.hdr, false, &rc);
	CHECK(rc == 0 && strstr(s, "malformed") && !strstr(s, "rule"));
	free(s);
}

int main(void)
{
	tls_data();
	sock_records();
	map_exec();
	discover();
	return test_failures != 0;
}
