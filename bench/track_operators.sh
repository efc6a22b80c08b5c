#!/usr/bin/env bash
# The operators corpus timed, lighthouse's default pipeline against eager
# PyTorch on one job, recorded into the repository's results history
# (build/lh-suite-history.sqlite, or the database $LH_SUITE_DB names); then
# the history's dashboard (build/lh-suite-history.html) and its check of
# this run against the cases' recent history, whose exit status it returns.
# Run it at each commit to be tracked (docs/testing-compilers.md, "Tracking
# results over time"). Extra arguments go to `lh-suite run` (--sample 20).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
history="${LH_SUITE_DB:-build/lh-suite-history.sqlite}"
results="build/operators-$(git rev-parse --short HEAD)-$(date +%Y%m%d%H%M%S).jsonl"
mkdir -p build
.venv/bin/lh-suite run --corpus operators --compiler lighthouse:default,eager --jobs 1 \
  -o "${results}" "$@"
.venv/bin/lh-suite record "${results}" --db "${history}"
exec .venv/bin/lh-suite history --db "${history}" --html build/lh-suite-history.html --check
