#!/usr/bin/env python3
"""Times TA-Lib on the rating engine's cold batch: the 23 TA-Lib calls behind
the engine's indicators, over the same 500 symbols x 500 candles as the
`cold_batch_500x500` bench of crates/ratings.

    cargo run --release -p signaldesk-ratings --example batch_csv -- /tmp/ratings_batch.csv
    python3 -m venv /tmp/talib-venv && /tmp/talib-venv/bin/pip install TA-Lib numpy
    /tmp/talib-venv/bin/python tools/talib_batch_bench.py /tmp/ratings_batch.csv

The CSV is read and split into contiguous float64 arrays per symbol before
any timing; only the loop of TA-Lib calls over the symbols is timed, on one
thread, best (and median) of REPEATS runs, by the wall clock and by the
thread's own CPU time (`time.thread_time`, which leaves out the time the
thread waited while other processes ran on a busy machine; compare it with
the CPU time of crates/ratings/examples/every_bar_kernels.rs). The 23 calls are those of the
shared TA-Lib reference data (tests/data/talib_reference_500.meta.json):
SMA and EMA 10/20/30/50/100/200, RSI 14, STOCH 14/3/3, CCI 20, ADX 14,
PLUS_DI 14, MINUS_DI 14, MOM 10, MACD 12/26/9, STOCHRSI 14/14/3, WILLR 14,
ULTOSC 7/14/28. The engine's VWMA, HMA, Ichimoku, Awesome Oscillator and
Bull Bear Power have no TA-Lib function and are not among them.
"""

import argparse
import statistics
import sys
import time

import numpy as np
import talib

PERIODS = (10, 20, 30, 50, 100, 200)


def load(path):
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64)
    symbols = data[:, 0].astype(np.int64)
    series = []
    for s in np.unique(symbols):
        rows = data[symbols == s]
        high, low, close = (np.ascontiguousarray(rows[:, i]) for i in (3, 4, 5))
        series.append((high, low, close))
    return series


def calls(high, low, close):
    """The 23 calls; returns how many were made."""
    for p in PERIODS:
        talib.SMA(close, p)
    for p in PERIODS:
        talib.EMA(close, p)
    talib.RSI(close, 14)
    talib.STOCH(high, low, close, 14, 3, 0, 3, 0)
    talib.CCI(high, low, close, 20)
    talib.ADX(high, low, close, 14)
    talib.PLUS_DI(high, low, close, 14)
    talib.MINUS_DI(high, low, close, 14)
    talib.MOM(close, 10)
    talib.MACD(close, 12, 26, 9)
    talib.STOCHRSI(close, 14, 14, 3, 0)
    talib.WILLR(high, low, close, 14)
    talib.ULTOSC(high, low, close, 7, 14, 28)
    return 2 * len(PERIODS) + 11


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="?", default="/tmp/ratings_batch.csv")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()

    series = load(args.csv)
    candles = {len(s[2]) for s in series}
    n_calls = calls(*series[0])
    times, cpu = [], []
    for _ in range(args.repeats):
        start, start_cpu = time.perf_counter(), time.thread_time()
        for high, low, close in series:
            calls(high, low, close)
        times.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    print(
        f"TA-Lib {talib.__version__} (C {talib.__ta_version__.decode()}), numpy {np.__version__}, "
        f"Python {sys.version.split()[0]}"
    )
    print(
        f"{len(series)} symbols x {sorted(candles)} candles, {n_calls} calls a symbol, "
        f"{args.repeats} repeats"
    )
    print(
        f"best {min(times) * 1e3:.1f} ms, median {statistics.median(times) * 1e3:.1f} ms, "
        f"worst {max(times) * 1e3:.1f} ms"
    )
    print(
        f"CPU time: best {min(cpu) * 1e3:.1f} ms, median {statistics.median(cpu) * 1e3:.1f} ms, "
        f"worst {max(cpu) * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
