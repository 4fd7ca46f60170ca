"""What IPython's search for its own syntax costs a kernel, with and without the forked kernels' shortcut.

    python -m benchmarks.transforms [COURSE/executed] [--rounds 3]

Before it runs a cell, IPython tokenizes it in pure Python to find %magics, !shell commands and `obj?`
help. grader/engine/forkserver.py's `python_cells_untokenized` skips that search for a cell that parses
as Python (it could change nothing there). This times IPython's `TransformerManager.transform_cell`
on every code cell of each notebook, as IPython has it and with the shortcut, in this process (CPU
seconds, the median of `--rounds`), and prints them by assignment. Without a folder it times the
answer keys; given a graded course's `executed/` folder, the notebooks as the kernels ran them,
probe cells included (their inputs travel in their source).
"""
import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

import nbformat
from IPython.core.inputtransformer2 import TransformerManager

from grader.engine.forkserver import python_cells_untokenized

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"


def cpu_of_transforms(manager, cells, rounds):
    """CPU seconds `manager` takes to transform every cell, the median of `rounds` runs."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for cell in cells:
            try:
                manager.transform_cell(cell)
            except Exception:  # noqa: BLE001 (a cell IPython cannot read is timed all the same)
                pass
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", type=Path,
                        help="a graded course's executed/ folder (default: the answer keys)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    paths = sorted(args.folder.glob("*/*/*.ipynb")) if args.folder else sorted(SOLUTIONS.glob("*/*.ipynb"))
    if not paths:
        raise SystemExit(f"no notebooks under {args.folder or SOLUTIONS}")
    ipython, shortcut = TransformerManager(), TransformerManager()
    python_cells_untokenized(shortcut)
    # assignment -> notebooks, KB of code, CPU-s as IPython, CPU-s with the shortcut
    rows = defaultdict(lambda: [0, 0, 0.0, 0.0])
    for path in paths:
        cells = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        row = rows[path.parent.name]
        row[0] += 1
        row[1] += sum(len(c) for c in cells) / 1000
        row[2] += cpu_of_transforms(ipython, cells, args.rounds)
        row[3] += cpu_of_transforms(shortcut, cells, args.rounds)
    print(f"{len(paths)} notebooks from {args.folder or SOLUTIONS}, CPU-s a notebook (median of {args.rounds})")
    print(f"{'assignment':30} {'notebooks':>9} {'KB':>7} {'IPython':>8} {'shortcut':>8} {'saved':>7}")
    total = [0, 0, 0.0, 0.0]
    for name, (n, kb, slow, fast) in sorted(rows.items()):
        print(f"{name:30} {n:9} {kb / n:7.1f} {slow / n:8.3f} {fast / n:8.3f} {(slow - fast) / n:7.3f}")
        total = [total[0] + n, total[1] + kb, total[2] + slow, total[3] + fast]
    n, kb, slow, fast = total
    print(f"{'all':30} {n:9} {kb / n:7.1f} {slow / n:8.3f} {fast / n:8.3f} {(slow - fast) / n:7.3f}")
    print(f"IPython's search: {1000 * slow / kb:.2f} ms a KB of code; with the shortcut {1000 * fast / kb:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
