#!/usr/bin/env bash
# Compile time of one `xla!` fn of N ops (issue 10's table): a user crate outside the workspace
# with a chain of Reduce, Sub, Mul, Tanh, Add on f32[64, 256], repeated to N ops, built in
# release with its dependencies prebuilt; CPU seconds (user + sys) and peak memory of the final
# rustc, and `cargo check` of the largest. Usage: bash scripts/compile_bench.sh [N ...]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(100 400 1600)
dir="$root/target/compile-bench"
mkdir -p "$dir/src"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "compile-bench"
version = "0.1.0"
edition = "2021"
publish = false
[dependencies]
xla-aot = { path = "$root" }
[workspace]
TOML
chain() {
  local n=$1 body="" k=0
  while [ $((k + 5)) -le "$n" ]; do
    body+="        let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
        let d = Sub(x, m, broadcast_dimensions = [0]);
        let x = Tanh(d * x) + x;
"
    k=$((k + 5))
  done
  cat <<RS
xla_aot::xla! {
    pub fn chain(x: f32[64, 256]) -> f32[64, 256] {
${body}        x
    }
}
fn main() {
    let x = xla_aot::Tensor::<f32, xla_aot::D2<64, 256>>::zeros();
    println!("{}", chain(&x).as_slice()[0]);
}
RS
}
export CARGO_TARGET_DIR="$dir/target"
# Dependencies once, outside the timings (release for the builds, dev metadata for the check).
chain 5 > "$dir/src/main.rs"
cargo build --release --quiet --manifest-path "$dir/Cargo.toml"
cargo check --quiet --manifest-path "$dir/Cargo.toml"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
printf '%-6s %-8s %14s %12s\n' "ops" "build" "CPU seconds" "peak MB"
for n in "${sizes[@]}"; do
  chain "$n" > "$dir/src/main.rs"
  touch "$dir/src/main.rs"
  out=$( { /usr/bin/time -f '%U %S %M' cargo build --release --quiet --manifest-path "$dir/Cargo.toml"; } 2>&1 | tail -1)
  read -r u s m <<< "$out"
  printf '%-6s %-8s %14.1f %12d\n' "$n" release "$(echo "$u + $s" | bc)" $((m / 1024))
done
n="${sizes[-1]}"
chain "$n" > "$dir/src/main.rs"
touch "$dir/src/main.rs"
out=$( { /usr/bin/time -f '%U %S %M' cargo check --quiet --manifest-path "$dir/Cargo.toml"; } 2>&1 | tail -1)
read -r u s m <<< "$out"
printf '%-6s %-8s %14.1f %12d\n' "$n" check "$(echo "$u + $s" | bc)" $((m / 1024))
echo "Expanded lines per op (formatted):"
cargo test -q -p xla-macros --lib expansion_grows -- --nocapture 2>&1 | grep "expanded lines" || true
