#!/usr/bin/env bash
# Installs the real VS Code the extension-host tests run in: code-server 4.100.3 (VS Code 1.100.3; later
# releases need node 22) from npm, into its own folder so our `npm ci` stays small. No internet is needed
# beyond the npm registry: install scripts are skipped (they would download ripgrep and build node-pty,
# which a headless test run does not use); we install VS Code's own JavaScript dependencies as code-server's
# postinstall would, and compile with node-gyp the native modules a test run needs: argon2 (loaded at start) and
# @vscode/spdlog (VS Code's logger: without it no log file is written and every Output channel stays empty).
set -euo pipefail
dir="${CORPUS_LENS_CODE_SERVER_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.vscode-test}"
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"name":"corpus-lens-vscode-test","private":true}' > package.json
if [ ! -f node_modules/code-server/out/node/entry.js ]; then
  npm install --no-audit --no-fund --ignore-scripts code-server@4.100.3
fi
vscode=node_modules/code-server/lib/vscode
if [ ! -d "$vscode/node_modules/@microsoft/1ds-core-js" ]; then
  # what code-server's own postinstall does, without the native builds and downloads
  (cd "$vscode" && npm install --omit=dev --ignore-scripts --no-audit --no-fund && ln -sfn node_modules node_modules.asar)
  (cd "$vscode/extensions" && npm install --omit=dev --ignore-scripts --no-audit --no-fund)
fi
argon=node_modules/argon2
if [ ! -f "$argon/lib/binding/napi-v3/argon2.node" ]; then
  (cd "$argon" && npx --yes node-gyp@12 rebuild --module_name=argon2 --module_path="$PWD/lib/binding/napi-v3" --napi_build_version=3 >/dev/null)
fi
spdlog="$vscode/node_modules/@vscode/spdlog"
if [ ! -f "$spdlog/build/Release/spdlog.node" ]; then
  (cd "$spdlog" && npx --yes node-gyp@12 rebuild >/dev/null)
fi
echo "code-server ready in $dir"
