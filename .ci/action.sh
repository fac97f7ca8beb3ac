#!/usr/bin/env bash
# The check step of the wrapcheck GitHub Action (action.yml), also usable in
# any CI: it runs `wrapcheck check --format sarif` on the paths in
# WRAPCHECK_PATHS (space-separated files or directories; default: .) with
# the flags in WRAPCHECK_ARGS (word-split), writes the SARIF log to
# WRAPCHECK_SARIF (default: wrapcheck.sarif), and records wrapcheck's exit
# code as exit_code in $GITHUB_OUTPUT when that is set. Under GitHub Actions
# (GITHUB_ACTIONS=true) wrapcheck also prints an annotation per violation,
# warning and error on stderr. The script exits 0 when wrapcheck ran (the
# action fails in its last step, after the SARIF upload), and with
# wrapcheck's code when WRAPCHECK_FAIL=1.
set -u
sarif="${WRAPCHECK_SARIF:-wrapcheck.sarif}"
read -r -a paths <<< "${WRAPCHECK_PATHS:-.}"
read -r -a args <<< "${WRAPCHECK_ARGS:-}"
code=0
wrapcheck check --format sarif "${args[@]}" -- "${paths[@]}" > "$sarif" || code=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	echo "exit_code=$code" >> "$GITHUB_OUTPUT"
fi
case $code in
0) echo "wrapcheck: every check holds (SARIF: $sarif)" ;;
1) echo "wrapcheck: a check is violated (SARIF: $sarif)" ;;
2) echo "wrapcheck: a spec or the command line is wrong (SARIF: $sarif)" ;;
3) echo "wrapcheck: the search stopped early, nothing violated so far (SARIF: $sarif)" ;;
*) echo "wrapcheck: exit $code" ;;
esac
if [ "${WRAPCHECK_FAIL:-0}" = 1 ]; then
	exit "$code"
fi
exit 0
