// SPDX-License-Identifier: MIT
/* procfs_test.c - the /proc parsers on real-shaped and broken input. */
#include <string.h>
#include <unistd.h>

#include "lib/test_check.h"
#include "userspace/procfs.h"

#define S(x) x, sizeof(x) - 1

static void test_status(void)
{
	CHECK(xpc_parse_status_tgid(S("Name:\tbash\nState:\tS\nTgid:\t4242\nNgid:\t0\n")) == 4242);
	CHECK(xpc_parse_status_tgid(S("Name:\tx\nTgid:   17")) == 17);
	CHECK(xpc_parse_status_tgid(S("Name:\tx\nTgid:\n")) == -1);
	CHECK(xpc_parse_status_tgid(S("Name:\tx\nTgid:\t99999999999\n")) == -1);
	CHECK(xpc_parse_status_tgid(S("Tgid:\t5\n")) == -1);	/* never the first line */
	CHECK(xpc_parse_status_tgid(S("")) == -1);
	/* The running test itself, through /proc. */
	CHECK(xpc_proc_tgid(getpid()) == getpid());
	CHECK(xpc_proc_tgid(0x7ffffff0) == -1);
}

static void test_pid_list(void)
{
	__u32 v[4];

	CHECK(xpc_parse_pid_list(S("12 345 6 "), v, 4) == 3 && v[0] == 12 && v[1] == 345 &&
	      v[2] == 6);
	CHECK(xpc_parse_pid_list(S(""), v, 4) == 0);
	CHECK(xpc_parse_pid_list(S("1 2 3 4 5 6"), v, 4) == 4 && v[3] == 4);
	CHECK(xpc_parse_pid_list(S("12x 3"), v, 4) == -1);
	CHECK(xpc_parse_pid_list(S("-1"), v, 4) == -1);
	CHECK(xpc_parse_pid_list(S("99999999999"), v, 4) == -1);
}

static void test_container_id(void)
{
	static const char id[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char out[XPC_CONTAINER_ID_LEN], path[256];
	static const char *const shapes[] = {
		"docker-%s.scope", "cri-containerd-%s.scope", "crio-%s", "libpod-%s.scope",
		"/kubepods/burstable/pod1234/%s", "/docker/%s",
	};

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		snprintf(path, sizeof(path), shapes[i], id);
		memset(out, 0, sizeof(out));
		CHECK(xpc_parse_container_id(path, strlen(path), out) == 1 && !strcmp(out, id));
	}
	CHECK(xpc_parse_container_id(S("user@1000.service"), out) == 0);
	CHECK(xpc_parse_container_id(S(""), out) == 0);
	/* 63 and 65 hex digits are not an id. */
	CHECK(xpc_parse_container_id(id + 1, 63, out) == 0);
	snprintf(path, sizeof(path), "%sa", id);
	CHECK(xpc_parse_container_id(path, strlen(path), out) == 0);
}

int main(void)
{
	test_status();
	test_pid_list();
	test_container_id();
	return test_failures != 0;
}
