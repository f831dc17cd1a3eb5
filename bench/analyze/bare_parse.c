// SPDX-License-Identifier: MIT
/*
 * bare_parse.c DIR - the baseline of the analyzer benchmark: read every
 * turn_*.json file of DIR and parse it with cJSON, nothing else. Prints
 * "files bytes" so the driver can check both saw the same input.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

int main(int argc, char **argv)
{
	DIR *d = argc == 2 ? opendir(argv[1]) : NULL;
	struct dirent *de;
	size_t files = 0, bytes = 0, cap = 1 << 16;
	char *buf = malloc(cap), path[4096];

	if (!d || !buf) {
		fprintf(stderr, "usage: bare_parse DIR\n");
		return 64;
	}
	while ((de = readdir(d))) {
		FILE *f;
		size_t n;
		cJSON *doc;

		if (strncmp(de->d_name, "turn_", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		if (!(f = fopen(path, "r")))
			return 1;
		while ((n = fread(buf, 1, cap - 1, f)) == cap - 1 && !fseek(f, 0, SEEK_SET)) {
			cap *= 2;
			if (!(buf = realloc(buf, cap)))
				return 1;
		}
		fclose(f);
		buf[n] = '\0';
		doc = cJSON_ParseWithLength(buf, n);
		if (!doc)
			return 2;
		cJSON_Delete(doc);
		files++;
		bytes += n;
	}
	closedir(d);
	free(buf);
	printf("%zu %zu\n", files, bytes);
	return 0;
}
