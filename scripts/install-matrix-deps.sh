#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kept for its callers: scripts/install-deps.sh [--check] matrix
exec "$(dirname "$0")/install-deps.sh" "$@" matrix
