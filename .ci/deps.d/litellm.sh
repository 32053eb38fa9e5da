#!/usr/bin/env bash
# LiteLLM's proxy (PyPI litellm 1.110.2 and the packages its proxy CLI needs, all pinned in
# .ci/litellm-requirements.txt) in a virtualenv under the cache: ~/.cache/ficta/litellm-<hash>/bin/litellm,
# or FICTA_LITELLM_VENV. The LiteLLM tests find it there (or through FICTA_TEST_LITELLM_BIN).
# Idempotent: a venv whose stamp matches the requirements file is left as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
req=.ci/litellm-requirements.txt
hash=$(sha256sum "$req" | cut -c1-12)
venv=${FICTA_LITELLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ficta/litellm-$hash}
if [ -x "$venv/bin/litellm" ] && [ "$(cat "$venv/.ficta-stamp" 2>/dev/null)" = "$hash" ]; then
  exit 0
fi
python=${FICTA_LITELLM_PYTHON:-python3}
"$python" -c 'import sys; assert sys.version_info >= (3, 10), sys.version' || { echo "litellm.sh: LiteLLM needs Python 3.10 or later" >&2; exit 1; }
if ! "$python" -m venv --help >/dev/null 2>&1 || ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
  apt-get install -y python3-venv >/dev/null || { echo "litellm.sh: no venv module (apt-get install python3-venv)" >&2; exit 1; }
fi
# Built in place (a venv's scripts name its path); the stamp, written last, marks it complete.
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
LITELLM_LOCAL_MODEL_COST_MAP=True "$venv/bin/python" -c 'import litellm.proxy.proxy_server' >/dev/null 2>&1 || { echo "litellm.sh: the LiteLLM proxy does not import" >&2; rm -rf "$venv"; exit 1; }
echo "$hash" > "$venv/.ficta-stamp"
