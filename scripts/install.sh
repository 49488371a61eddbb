#!/usr/bin/env bash
# Create ./.venv and install agent-memory into it, in the order that keeps it CPU-only.
#
#   scripts/install.sh            the library, the worker, the CLI, the MCP and HTTP servers
#   scripts/install.sh test       ... plus the test tools
#   scripts/install.sh test,bench ... plus what the benchmarks plot with (matplotlib)
#
# `test` also installs the Deep Agents adapter's extra (deepagents) into the venv and builds a
# second venv, .venv-crewai (CREWAI_VENV), with the CrewAI adapter's extra: crewai pins an older
# pydantic, so it cannot share the main venv. The main test run drives the CrewAI tests there.
#
# Order matters: torch goes in first as the CPU wheel (a plain `pip install FlagEmbedding`
# would resolve a CUDA build of several GB), then everything else. Where the CPU wheel is not
# on the machine's pip find-links, point TORCH_INDEX_URL at a PyTorch CPU wheel index.
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${1:-}"
# The MCP and HTTP servers (`agent-memory mcp` and `serve`, the `mcp` and `server` extras) are
# part of every install: the quickstart lists the MCP tools and serves one search over HTTP.
extras="server,mcp${extras:+,$extras}"
venv="${VENV:-.venv}"
python="${PYTHON:-python3}"

"$python" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"agent-memory needs Python 3.11 or newer; {sys.executable} is {sys.version.split()[0]}")
PY

install_into() {  # install_into VENV EXTRAS
    local venv="$1" extras="$2"
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    local pip=("$venv/bin/python" -m pip --quiet --disable-pip-version-check)

    "${pip[@]}" install --upgrade pip
    if [ -n "${TORCH_INDEX_URL:-}" ]; then
        "${pip[@]}" install "torch==2.13.0" --index-url "$TORCH_INDEX_URL"
    else
        "${pip[@]}" install "torch==2.13.0"
    fi
    if [ -n "$extras" ]; then
        "${pip[@]}" install -e ".[$extras]"
    else
        "${pip[@]}" install -e .
    fi
    echo "installed agent-memory into $venv${extras:+ (extras: $extras)}"
}

case ",$extras," in
*,test,*)
    install_into "$venv" "$extras,deepagents"
    install_into "${CREWAI_VENV:-.venv-crewai}" "crewai,test"
    ;;
*) install_into "$venv" "$extras" ;;
esac
