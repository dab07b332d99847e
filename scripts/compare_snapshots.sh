#!/usr/bin/env bash
# Compares two folders written by scripts/reproduce_snapshot.sh: every file byte for byte, except
# that the folder's own path, wall-clock seconds and throughput are masked (they differ between
# any two runs). Prints each differing file and exits 1 if there is one.
#
#   scripts/compare_snapshots.sh BEFORE AFTER
set -euo pipefail
A=${1:?usage: scripts/compare_snapshots.sh BEFORE AFTER}
B=${2:?usage: scripts/compare_snapshots.sh BEFORE AFTER}
normalise() { # FILE ROOT
  sed -E -e "s#$2#SNAPSHOT#g" -e '/"seconds"/d' \
    -e 's/[0-9.]+ s \([0-9.]+ sentences\/s\)/TIME/; s/in [0-9.]+ s/in TIME/; s/\([0-9.]+ s\)/(TIME)/' "$1"
}
status=0
files=$( (cd "$A" && find . -type f; cd "$B" && find . -type f) | sort -u)
n=0
for f in $files; do
  n=$((n + 1))
  if [ ! -f "$A/$f" ] || [ ! -f "$B/$f" ]; then
    echo "only in one: $f"; status=1; continue
  fi
  cmp -s "$A/$f" "$B/$f" && continue
  if ! cmp -s <(normalise "$A/$f" "$A") <(normalise "$B/$f" "$B") 2>/dev/null; then
    echo "differs: $f"; status=1
  fi
done
echo "$n files compared"
exit $status
