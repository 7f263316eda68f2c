#!/bin/sh
# Writes the C example of README.md (the first ```c block) to $2.
set -eu
awk '/^```c$/ { on = 1; next } /^```$/ { if (on) exit } on { print }' "$1" > "$2"
[ -s "$2" ]
