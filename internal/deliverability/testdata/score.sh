#!/usr/bin/env bash
# Re-scores the calibration corpus with SpamAssassin and rewrites
# scores.tsv: one line per message, its file, SpamAssassin's score and the
# rules that fired. Local tests only (-L: no DNS or network rules), Bayes
# off and an empty user preferences file, so the score depends on the
# message alone. Needs Debian's spamassassin (apt-get install spamassassin);
# the Go test reads the committed scores and needs no SpamAssassin.
set -euo pipefail
cd "$(dirname "$0")"
command -v spamassassin >/dev/null || { echo "score.sh: spamassassin is not installed (apt-get install spamassassin)" >&2; exit 1; }
prefs=$(mktemp)
trap 'rm -f "$prefs"' EXIT
out=scores.tsv.new
{
	printf '# SpamAssassin %s, spamassassin -t -L (Bayes off): file, score, rules\n' \
		"$(spamassassin --version | awk '/SpamAssassin version/ {print $3}')"
	for f in corpus/*.eml; do
		status=$(spamassassin -t -L --cf='use_bayes 0' -p "$prefs" <"$f" 2>/dev/null |
			awk '/^X-Spam-Status:/ {s = $0; on = 1; next} on && /^[ \t]/ {sub(/^[ \t]+/, ""); s = s (s ~ /,$/ ? "" : " ") $0; next} on {print s; exit}')
		score=$(sed -n 's/.*score=\([-0-9.]*\).*/\1/p' <<<"$status")
		rules=$(sed -n 's/.*tests=\([^ ]*\).*/\1/p' <<<"$status" | tr -d ' \t')
		[ -n "$score" ] || { echo "score.sh: no score for $f" >&2; exit 1; }
		printf '%s\t%s\t%s\n' "$(basename "$f")" "$score" "${rules:-none}"
	done
} >"$out"
mv "$out" scores.tsv
echo "score.sh: $(grep -vc '^#' scores.tsv) messages scored into scores.tsv"
