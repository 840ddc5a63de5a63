# Shared by scripts/demo and scripts/test: installs the Debian packages Tide needs (as root) or
# prints the exact command (otherwise), then configures and builds into build/.
# Source it; it defines tide_setup and tide_build.

TIDE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIDE_PACKAGES=(gcc g++ make cmake pkg-config openmpi-bin libopenmpi-dev libgsl-dev python3 gnuplot-nox
               clang-format libsimgrid-dev gfortran libotf2-trace-dev otf2-tools)

# Open MPI refuses to run as root without these; oversubscribed ranks must yield when idle.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1

tide_setup() {
    local missing=()
    for p in "${TIDE_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "Tide needs these Debian packages: ${missing[*]}"
        echo "Install them with:"
        echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}"
        exit 1
    fi
    echo "Installing ${missing[*]} ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || {
        echo "apt-get install failed for: ${missing[*]}"
        exit 1
    }
}

# tide_build DIR [cmake options...]
tide_build() {
    local dir=$1
    shift
    mkdir -p "$dir"
    cmake -S "$TIDE_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIDE_SKIP_DIRS= "$@" >"$dir/tide-configure.log" 2>&1 || {
        cat "$dir/tide-configure.log"
        echo "cmake configure failed (log: $dir/tide-configure.log)"
        exit 1
    }
    cmake --build "$dir" -j"$(nproc)" >"$dir/tide-build.log" 2>&1 || {
        tail -n 60 "$dir/tide-build.log"
        echo "build failed (log: $dir/tide-build.log)"
        exit 1
    }
}
