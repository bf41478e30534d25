#!/usr/bin/env bash
# Runs the whole suite in N rounds of COPIES runs at once (two unless COPIES says more),
# each copy from its own clean clone with its own virtual environment, so every run has
# the others competing for the CPU (the condition under which timing-dependent tests
# flake). Prints pass/fail, wall and CPU time per run, and the failed tests of each
# failing run. The suite mostly waits (a run keeps about a quarter of a core busy), so
# more copies than cores still load the machine rather than queue behind each other.
#
#   [COPIES=K] tests/bench/loop_suite.sh [N] [REPO] [-- PYTEST ARGS...]
#
# N defaults to 20 (rounds; each round is COPIES runs at once), REPO to this checkout's
# repository (its committed HEAD is cloned, never the work tree). Logs stay in $OUT
# (default: a new temporary folder), one file per run.
set -uo pipefail
rounds=${1:-20}
src=${2:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}
shift $(( $# < 2 ? $# : 2 ))
[ "${1:-}" = "--" ] && shift
pytest_args=("$@")
[ ${#pytest_args[@]} -eq 0 ] && pytest_args=(-p no:cacheprovider)
out=${OUT:-$(mktemp -d -t loop_suite.XXXXXX)}
mkdir -p "$out"
copies=${COPIES:-2}
names=()
for ((c = 0; c < copies; c++)); do names+=("$(printf "\\x$(printf %x $((65 + c)))")"); done
echo "loop_suite: $rounds rounds x $copies copies of $(git -C "$src" rev-parse --short HEAD) from $src; logs in $out"

for copy in "${names[@]}"; do
  dir="$out/clone$copy"
  rm -rf "$dir"
  git clone -q "$src" "$dir" || exit 1
  python3 -m venv "$dir/.venv" || exit 1
  "$dir/.venv/bin/python" -m pip install -q -e "$dir[test]" >"$out/install$copy.log" 2>&1 \
    || { echo "loop_suite: install failed, see $out/install$copy.log" >&2; exit 1; }
done

run() {  # copy round -> writes the log, returns pytest's exit code
  local dir="$out/clone$1" log="$out/run$2$1.log"
  # Each copy keeps its own home, state and store: nothing of one run touches another.
  local home="$out/home$1"
  rm -rf "$home"; mkdir -p "$home"
  (cd "$dir" && HOME="$home" PLANWATCH_DATA="$home/data" PLANWATCH_STATE="$home/state" \
     PLANWATCH_STORE="$home/store" PLANWATCH_CONFIG="$home/config.yaml" \
     PLANWATCH_ACP_LOGS="$home/acp" CLAUDE_CONFIG_DIR="$home/claude" CODEX_HOME="$home/codex" \
     .venv/bin/python -m pytest "${pytest_args[@]}") >"$log" 2>&1
}

failed_runs=0
total_start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
  declare -A start rc
  for copy in "${names[@]}"; do
    start[$copy]=$(date +%s)
    ( TIMEFORMAT=%U+%S; { time run "$copy" "$r"; echo $? >"$out/rc$r$copy"; } 2>"$out/cpu$r$copy"
      echo $(( $(date +%s) - ${start[$copy]} )) >"$out/secs$r$copy" ) &
  done
  wait
  for copy in "${names[@]}"; do
    code=$(cat "$out/rc$r$copy"); secs=$(cat "$out/secs$r$copy")
    cpu=$(python3 -c "print(round($(tail -1 "$out/cpu$r$copy")))" 2>/dev/null || echo "?")
    summary=$(grep -E '^[0-9]+ (passed|failed)|(passed|failed|error).* in [0-9.]+s' "$out/run$r$copy.log" | tail -1)
    if [ "$code" -eq 0 ]; then
      echo "run $r$copy: pass  ${secs}s wall, ${cpu}s CPU  $summary"
    else
      failed_runs=$((failed_runs + 1))
      echo "run $r$copy: FAIL  ${secs}s wall, ${cpu}s CPU  $summary"
      grep -E '^(FAILED|ERROR) ' "$out/run$r$copy.log" | sed 's/^/    /'
    fi
  done
done
echo "loop_suite: $((rounds * copies)) runs, $failed_runs failed, wall $(( $(date +%s) - total_start ))s"
[ "$failed_runs" -eq 0 ]
