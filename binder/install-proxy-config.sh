#!/bin/bash
# Make Jupyter load binder/jupyter_server_config.py (the "streamlit" proxy entry).
# Writes a one-line loader into the user's Jupyter config directory
# ($JUPYTER_CONFIG_DIR, default ~/.jupyter); called by binder/postBuild and by
# tests/notebooks/test_binder.py, which points JUPYTER_CONFIG_DIR at a temporary folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
confdir="${JUPYTER_CONFIG_DIR:-$HOME/.jupyter}"
mkdir -p "$confdir"
printf '# added by dpteach binder/install-proxy-config.sh\nload_subconfig(%s)\n' \
  "'$here/jupyter_server_config.py'" >> "$confdir/jupyter_server_config.py"
echo "dpteach: $confdir/jupyter_server_config.py now loads $here/jupyter_server_config.py"
