#!/usr/bin/env python3
"""Fills seed corpora for the libFuzzer harnesses of tests/fuzz (see README.md).

    tests/fuzz/make-corpus.py OUT [--cli build/app/cli/shardx-cli] [--shared ../shared] [--max-tool-seeds N]

writes OUT/mlir, OUT/json, OUT/trace, OUT/rules and OUT/propagation:
- mlir: samples/*.mlir and, when ../shared/conformance is there, every cases/**/*.mlir split on `// -----`
  lines (whole-line `//` comments dropped), each piece one file;
- propagation: the pieces of mlir under 64 KiB;
- json, trace: what `shardx-cli convert --to json` and `shardx-cli propagate --trace` write for the samples and
  the first pieces that open (when the shardx-cli of a normal build is there);
- rules: hand-written rules files, JSON and text.
Files are named by a hash of their contents, so running it again adds nothing twice.
"""
import argparse
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Inputs at the limits (huge shapes and meshes, deep nesting, bytes in strings) for the MLIR harnesses.
EDGE_MLIR_SEEDS = [
    'sdy.mesh @mesh = <["a"=2, "b"=2]>\n'
    'func.func @main(%arg0: tensor<1048576x1048576xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>})'
    ' -> tensor<1099511627776xf32> {\n'
    '  %cst = stablehlo.constant dense<1.000000e+00> : tensor<1048576x1048576xf32>\n'
    '  %0 = stablehlo.add %arg0, %cst : tensor<1048576x1048576xf32>\n'
    '  %1 = stablehlo.dot_general %0, %cst, contracting_dims = [1] x [0] : (tensor<1048576x1048576xf32>,'
    ' tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>\n'
    '  %2 = stablehlo.reshape %1 : (tensor<1048576x1048576xf32>) -> tensor<1099511627776xf32>\n'
    '  return %2 : tensor<1099511627776xf32>\n}\n',
    'sdy.mesh @mesh = <["a"=1073741824, "b"=4]>\n'
    'func.func @main(%arg0: tensor<4611686018427387904xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", "b":(2)2}]>})'
    ' -> tensor<4611686018427387904xf32> {\n'
    '  %0 = stablehlo.negate %arg0 : tensor<4611686018427387904xf32>\n'
    '  %1 = stablehlo.transpose %0, dims = [0] : (tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32>\n'
    '  return %1 : tensor<4611686018427387904xf32>\n}\n',
    'func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {s = "\\00\\80\\FF", x = ' + '[' * 150 +
    '1' + ']' * 150 + '} {\n'
    '  %0 = "stablehlo.transpose"(%a) {permutation = dense<0> : tensor<1048576x1048576xi64>}'
    ' : (tensor<2x2xf32>) -> tensor<2x2xf32> loc("caf\u00e9.py":1:2)\n'
    '  return %0 : tensor<2x2xf32>\n}\n',
]

RULES_SEEDS = [
    '# user rules, one KEY: RULE per line\n'
    'stablehlo.add: (i, j), (i, j) -> (i, j)\n'
    '@my_kernel: (i, j) -> ((ij))\n'
    '@two: (i, k), (k, j) -> (i, j), ([a b], c, k) {reduction: k, sizes: [a=4, b=2, c=2]}\n',
    'stablehlo.dot_general: (i,k),(k,j)->(i,j) {reduction: k}\n'
    '@big: () -> (i, j) {sizes: [i=1048576, j=1048576]}\n',
    '@dyn: (i, j) -> (i, j) {need_replication: j, permutation: i}\n'
    'stablehlo.transpose: (i, j) -> (j, i) {blocked: [i, j]}\n'
    'stablehlo.reshape: ((i j)) -> (i) {sizes: [j=1]}\n'
    'stablehlo.negate: () -> ()\n',
    '{"rules": [{"op": "stablehlo.add", "rule": "(i, j), (i, j) -> (i, j)"},\n'
    '           {"custom_call": "my_kernel", "rule": "(i, j) -> ((ij))"},\n'
    '           {"custom_call": "two", "rule": "(i,k),(k,j)->(i,j),(a b,c,k) {reduction: k, sizes: [a=4, b=2]}"}]}\n',
    '[{"op": "stablehlo.dot_general", "rule": "(i,k),(k,j)->(i,j) {reduction: k, blocked_propagation: i}"},\n'
    ' {"custom_call": "big", "rule": "() -> (i, j) {sizes: [i=1048576, j=1048576]}"},\n'
    ' {"custom_call": "dyn", "rule": "(i, j) -> (i, j)"}]\n',
    '(i,k),(k,j)->(i,j) {reduction: k, need_replication: [i], permutation: j, sizes: [i=2, k=3, j=4]}\n',
]


def write_seed(folder, data):
    """Writes `data` (bytes) under `folder`, named by its hash; returns the path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / hashlib.sha1(data).hexdigest()[:16]
    if not path.exists():
        path.write_bytes(data)
    return path


def split_pieces(text):
    """The pieces of a lit test between `// -----` lines, whole-line comments dropped."""
    pieces, current = [], []
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith('// -----'):
            pieces.append(''.join(current))
            current = []
        elif not stripped.startswith('//'):
            current.append(line)
    pieces.append(''.join(current))
    return [p for p in pieces if p.strip()]


def run_tool(args):
    """Runs a shardx-cli command; its exit status."""
    try:
        return subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30).returncode
    except subprocess.TimeoutExpired:
        return -1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('out', type=pathlib.Path)
    parser.add_argument('--cli', type=pathlib.Path, default=ROOT / 'build' / 'app' / 'cli' / 'shardx-cli')
    parser.add_argument('--shared', type=pathlib.Path, default=ROOT.parent / 'shared')
    parser.add_argument('--max-tool-seeds', type=int, default=200,
                        help='pieces converted to JSON and traced by shardx-cli (default 200)')
    args = parser.parse_args()

    mlir_dir, prop_dir = args.out / 'mlir', args.out / 'propagation'
    sources = sorted((ROOT / 'samples').glob('*.mlir'))
    cases = args.shared / 'conformance' / 'cases'
    if cases.is_dir():
        sources += sorted(cases.rglob('*.mlir'))
    else:
        print(f'make-corpus: {cases} not found, seeding from samples/ only', file=sys.stderr)
    pieces = []
    for source in sources:
        text = source.read_text(encoding='utf-8', errors='surrogateescape')
        for piece in split_pieces(text):
            data = piece.encode('utf-8', errors='surrogateescape')
            if len(data) <= 256 * 1024:
                pieces.append(write_seed(mlir_dir, data))
            if len(data) < 64 * 1024:
                write_seed(prop_dir, data)

    for text in EDGE_MLIR_SEEDS:
        write_seed(mlir_dir, text.encode())
        write_seed(prop_dir, text.encode())
    for text in RULES_SEEDS:
        write_seed(args.out / 'rules', text.encode())

    if not os.access(args.cli, os.X_OK):
        print(f'make-corpus: {args.cli} not found, no JSON or trace seeds (build shardx-cli or pass --cli)',
              file=sys.stderr)
    else:
        made = 0
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / 'out'
            for piece in pieces:
                if made >= args.max_tool_seeds:
                    break
                if run_tool([str(args.cli), 'convert', str(piece), '--to', 'json', '-o', str(out)]) != 0:
                    continue
                made += 1
                write_seed(args.out / 'json', out.read_bytes())
                trace = pathlib.Path(tmp) / 'trace.json'
                if run_tool([str(args.cli), 'propagate', str(piece), '--trace', str(trace), '-o', str(out)]) == 0:
                    data = trace.read_bytes()
                    if len(data) <= 256 * 1024:
                        write_seed(args.out / 'trace', data)
                # The binary form of the same trace: fuzz_trace reads both.
                binary = pathlib.Path(tmp) / 'trace.shxtrace'
                if run_tool([str(args.cli), 'propagate', str(piece), '--trace', str(binary), '-o', str(out)]) == 0:
                    data = binary.read_bytes()
                    if len(data) <= 256 * 1024:
                        write_seed(args.out / 'trace', data)
    for name in ('mlir', 'propagation', 'json', 'trace', 'rules'):
        folder = args.out / name
        count = len(list(folder.iterdir())) if folder.is_dir() else 0
        print(f'{folder}: {count} seeds')
    return 0


if __name__ == '__main__':
    sys.exit(main())
