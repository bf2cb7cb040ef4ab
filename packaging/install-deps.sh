#!/usr/bin/env bash
# Installs shardx's build and test dependencies on Debian 12 (idempotent; quick when all present).
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev
    libgraphviz-dev graphviz nlohmann-json3-dev libjemalloc-dev
    libvulkan-dev mesa-vulkan-drivers glslc spirv-tools vulkan-tools vulkan-validationlayers
    llvm-14-tools clang-format libbenchmark-dev libopenblas-dev xvfb xauth fonts-dejavu-core python3
)

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    if [ "$status" != "installed" ]; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages are installed"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run this script as root, or install sudo" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
