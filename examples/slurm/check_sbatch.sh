#!/bin/bash
# check_sbatch.sh SCRIPT CLUSTER_MD TIDE_KNOBS PROGRAM -- checks a Slurm batch script without
# Slurm: its syntax (bash -n); that every option of its #SBATCH and srun lines is one
# docs/cluster.md documents (written there as `--option`); that every TIDE_* variable it sets is
# a knob (tide-knobs --json); then runs it with a stand-in srun that starts PROGRAM under mpiexec
# with 2 ranks, and checks that the pinning advice reached the ranks' environment.
set -euo pipefail
script=$(realpath "$1") doc=$2 knobs=$3 program=$(realpath "$4")
fail() {
    echo "check_sbatch: $script: $*" >&2
    exit 1
}

bash -n "$script" || fail "bash -n failed"
[ "$(head -n 1 "$script")" = "#!/bin/bash" ] || fail "the first line is not #!/bin/bash"

options=$(sed -n 's/^#SBATCH[[:space:]]*\(--[a-z-]*\).*/\1/p' "$script")
options+=" "$(grep -E '^[[:space:]]*srun[[:space:]]' "$script" | grep -oE -- '--[a-z-]+' || true)
[ -n "${options// /}" ] || fail "no #SBATCH or srun options found"
for opt in $options; do
    grep -qF -- "\`$opt" "$doc" || fail "option $opt is not documented in $doc"
done
grep -qE '^#SBATCH[[:space:]]+--ntasks-per-node=2$' "$script" || fail "not 2 ranks per node"

json=$("$knobs" --json)
for var in $(grep -oE '\bTIDE_[A-Z0-9_]+=' "$script" | tr -d = | sort -u); do
    grep -qF "\"$var\"" <<<"$json" || fail "$var is not a Tide knob"
done

# A dry run: srun becomes mpiexec with 2 ranks, which prints each rank's settings.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/srun" <<EOS
#!/bin/bash
while [ \$# -gt 0 ] && [ "\${1#--}" != "\$1" ]; do shift; done
env | grep -E '^(OMP_NUM_THREADS|OMP_PLACES|OMP_PROC_BIND|TIDE_[A-Z_]+)=' | sort >"$work/env"
exec mpiexec --oversubscribe -n 2 "\$@"
EOS
chmod +x "$work/srun"
(cd "$work" && env -u TIDE_LB PATH="$work:$PATH" SLURM_CPUS_PER_TASK=3 SLURM_JOB_ID=42 \
    TIDE_QUIET=0 bash "$script" "$program") >"$work/out" 2>&1 || {
    cat "$work/out"
    fail "the dry run failed"
}
for want in OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close TIDE_COMM_CPU=last \
    TIDE_LB=proact TIDE_STATS=tide-42.json; do
    grep -qx "$want" "$work/env" || fail "the ranks did not get $want (got: $(tr '\n' ' ' <"$work/env"))"
done
[ -s "$work/tide-42.json" ] || fail "the dry run wrote no statistics file"
grep -q "lb=proact" "$work/out" || fail "no summary of a proact run: $(cat "$work/out")"
echo "check_sbatch: $script: syntax, options, knobs and a dry run are fine"
