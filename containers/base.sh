#!/usr/bin/env bash
# Builds the Debian image that every port's Containerfile starts from, with no registry: mmdebstrap
# makes a minimal root file system from this machine's own apt sources, and `docker import` turns
# it into an image. Needed where the engine cannot pull debian:bookworm-slim; harmless elsewhere.
#
#   containers/base.sh [--rebuild] [TAG]      TAG defaults to hanoi-polyglot/base:bookworm
#
# Needs root (or sudo), a Docker engine, and mmdebstrap (Debian: apt-get install mmdebstrap).
set -euo pipefail

suite=bookworm
rebuild=false
if [[ ${1-} == --rebuild ]]; then rebuild=true; shift; fi
tag=${1:-hanoi-polyglot/base:$suite}

if ! $rebuild && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "$tag is already built (--rebuild to build it again)"
  exit 0
fi
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is missing (Debian: apt-get install mmdebstrap)" >&2; exit 1; }

# The machine's configured sources for this suite and its updates and security suites, one
# one-line entry each, as apt itself resolves them (whatever file and format they come from).
mapfile -t sources < <(
  apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' |
    awk -v suite="$suite" '$2 == suite || index($2, suite "-") == 1 { print "deb " $0 }' | sort -u
)
if ((${#sources[@]} == 0)); then
  echo "this machine's apt sources name no $suite suite: no base image can be built from them" >&2
  exit 1
fi

# Documentation, manual pages and translations are left out: nothing in a port's cell reads them.
mmdebstrap --variant=minbase --format=tar --quiet \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Languages "none"' \
  "$suite" - "${sources[@]}" |
  docker import --change 'CMD ["bash"]' --message "Debian $suite, minbase, from the machine's apt sources" - "$tag"
echo "built $tag"
