#!/bin/sh
# c_string.sh NAME IN OUT - writes OUT, a C file defining `const char NAME[]` with the
# text of IN (a data file kept as data in the source tree, compiled in as its default).
set -eu
{
	printf '/* Generated from %s by analyze/c_string.sh: do not edit. */\n' "$2"
	printf 'const char %s[] =\n' "$1"
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$2"
	printf ';\n'
} >"$3"
