#!/usr/bin/env bash
# large.sh times the large-grid group (kernels.Large) under warpguard with
# detection off and under one detector configuration, CONFIG (default
# exact, the default detector; opt for the IGUARD family), and its plain-Go
# twins (bench/gorace) built plainly and with -race, and prints one table
# of medians with the two overhead ratios and their geometric means. RUNS
# (default 5) is the timed runs of each; extra arguments go to warpguard
# bench, such as -kernels large/saxpy.
#
#	bash bench/large.sh
#	CONFIG=opt RUNS=3 bash bench/large.sh -kernels 'large/saxpy,large/reduce'
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
config=${CONFIG:-exact}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/warpguard" ./bench/cmd/warpguard
echo "== warpguard bench -kernels 'large/*' -configs off,$config -runs $runs -mintime 0 $*" >&2
"$tmp/warpguard" bench -kernels 'large/*' -configs "off,$config" -runs "$runs" -mintime 0 -json "$@" >"$tmp/wg.jsonl"
echo "== go test -bench . -count $runs ./bench/gorace" >&2
go test -run '^$' -bench . -count "$runs" ./bench/gorace >"$tmp/plain.txt"
echo "== go test -race -bench . -count $runs ./bench/gorace" >&2
go test -race -run '^$' -bench . -count "$runs" ./bench/gorace >"$tmp/race.txt"

awk -v cfg="$config" '
# str and num read a field of one of warpguard bench -json lines.
function str(line, key) {
	if (!match(line, "\"" key "\":\"[^\"]*\"")) return ""
	return substr(line, RSTART + length(key) + 4, RLENGTH - length(key) - 5)
}
function num(line, key) {
	if (!match(line, "\"" key "\":[0-9.]+")) return 0
	return substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3) + 0
}
function median(list,   a, n, i, j, t) {
	n = split(list, a, " ")
	if (n == 0) return 0
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function ms(ns) { return ns > 0 ? sprintf("%.1f", ns / 1e6) : "-" }
function ratio(a, b) { return a > 0 && b > 0 ? sprintf("%.1fx", a / b) : "-" }
FILENAME ~ /wg.jsonl$/ {
	k = str($0, "kernel")
	wg[k, str($0, "config")] = num($0, "median_ns")
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
}
FILENAME ~ /(plain|race).txt$/ && /^BenchmarkTwins\// {
	name = $1; sub(/^BenchmarkTwins\//, "", name); sub(/-[0-9]+$/, "", name)
	kind = FILENAME ~ /race.txt$/ ? "race" : "plain"
	times[name, kind] = times[name, kind] " " $3
}
END {
	printf "%-16s %10s %10s %8s %10s %10s %8s\n", "kernel", "off ms", cfg " ms", cfg "/off", "Go ms", "-race ms", "race/Go"
	for (i = 1; i <= nk; i++) {
		k = order[i]; off = wg[k, "off"]; opt = wg[k, cfg]
		gp = median(times[k, "plain"]); gr = median(times[k, "race"])
		printf "%-16s %10s %10s %8s %10s %10s %8s\n", k, ms(off), ms(opt), ratio(opt, off), ms(gp), ms(gr), ratio(gr, gp)
		if (off > 0 && opt > 0) { lw += log(opt / off); nw++ }
		if (gp > 0 && gr > 0) { lg += log(gr / gp); ng++ }
	}
	printf "%-16s %10s %10s %8s %10s %10s %8s\n", "geomean", "", "", nw ? sprintf("%.1fx", exp(lw / nw)) : "-", "", "", ng ? sprintf("%.1fx", exp(lg / ng)) : "-"
}' "$tmp/wg.jsonl" "$tmp/plain.txt" "$tmp/race.txt"
