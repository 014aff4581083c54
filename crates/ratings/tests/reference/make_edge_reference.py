#!/usr/bin/env python3
"""A second reference series with the awkward cases, valued by TA-Lib itself.

Writes tests/data/edge_reference_300.csv: 300 one-minute candles built to hit
the branches a smooth random walk never reaches, with every indicator's value:

* stretches of 15 identical candles (high = low = close): the 14-bar channel
  is empty (Stochastic and Williams %R read 0), 7-bar true ranges sum to 0
  (the Ultimate Oscillator drops that window), closes do not change (RSI);
* 20+ candles of zero volume (VWMA has no value);
* price gaps (open far from the previous close) and limit-style bars
  (high = close or low = close), so true range comes from the gap.

Values of indicators TA-Lib has come from TA-Lib (pip install TA-Lib numpy
pandas; written with TA-Lib 0.6.8 wheels, C library 0.6.4, default settings);
the TradingView-only lines (VWMA 20, HMA 9, Ichimoku base, AO, BBP, TV-style
Stochastic RSI) are computed from their definitions by make_reference.py's
functions. Run from the crate directory:
    python3 tests/reference/make_edge_reference.py
"""

import math
import os
import sys

import numpy as np
import talib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_reference import NAN, ema_series, midpoint, sma, window, wma_series  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "edge_reference_300.csv")


def series(n=300, seed=7):
    rng = np.random.default_rng(seed)
    t0 = 1_700_000_000_000
    rows = []
    close = 50.0
    for i in range(n):
        phase = i % 60
        if 20 <= phase < 35:  # 15 identical candles
            o = h = lo = c = close
            v = 0.0 if i >= 180 else 100.0
        else:
            o = close * (1 + (0.03 if phase == 40 else 0.0))  # a gap up once a cycle
            c = o * (1 + rng.normal(0, 0.01))
            h = max(o, c) * (1 + (0.0 if phase % 7 == 0 else abs(rng.normal(0, 0.003))))
            lo = min(o, c) * (1 - (0.0 if phase % 5 == 0 else abs(rng.normal(0, 0.003))))
            v = 0.0 if 180 <= i < 215 else float(rng.uniform(10, 5000))
            close = c
        rows.append((t0 + i * 60_000, o, h, lo, c, v))
    return rows


def main():
    rows = series()
    n = len(rows)
    t, o, h, l, c, v = (np.array(x, dtype=float) for x in zip(*rows))

    out = {"timestamp_ms": t.astype(np.int64), "open": o, "high": h, "low": l, "close": c, "volume": v}
    for p in [10, 20, 30, 50, 100, 200]:
        out[f"sma_{p}"] = talib.SMA(c, p)
        out[f"ema_{p}"] = talib.EMA(c, p)
    out["rsi_14"] = talib.RSI(c, 14)
    out["stoch_k_14_3_3"], out["stoch_d_14_3_3"] = talib.STOCH(h, l, c, 14, 3, 0, 3, 0)
    out["cci_20"] = talib.CCI(h, l, c, 20)
    out["adx_14"] = talib.ADX(h, l, c, 14)
    out["plus_di_14"] = talib.PLUS_DI(h, l, c, 14)
    out["minus_di_14"] = talib.MINUS_DI(h, l, c, 14)
    out["mom_10"] = talib.MOM(c, 10)
    out["macd_12_26_9"], out["macd_signal"], _ = talib.MACD(c, 12, 26, 9)
    out["willr_14"] = talib.WILLR(h, l, c, 14)
    out["ultosc_7_14_28"] = talib.ULTOSC(h, l, c, 7, 14, 28)

    # TradingView-style Stochastic RSI from TA-Lib's RSI, by definition. As
    # docs/ratings.md says, an unchanged close leaves the RSI exactly as it was
    # (TA-Lib recomputes it with an ulp of noise, which over a flat stretch
    # would make the 14-bar RSI range tiny instead of 0 and %K arbitrary).
    rsi = out["rsi_14"].copy()
    for i in range(1, n):
        if c[i] == c[i - 1] and not math.isnan(rsi[i - 1]):
            rsi[i] = rsi[i - 1]
    raw = np.full(n, NAN)
    for i in range(n):
        w = window(rsi, i, 14)
        if w is not None and not np.isnan(w).any():
            top, bottom = float(np.max(w)), float(np.min(w))
            raw[i] = (rsi[i] - bottom) / (top - bottom) * 100.0 if top != bottom else 0.0
    k = np.array([sma(raw, i, 3) for i in range(n)])
    out["stochrsi_tv_k_14_14_3_3"] = k
    out["stochrsi_tv_d_14_14_3_3"] = np.array([sma(k, i, 3) for i in range(n)])

    vwma = np.full(n, NAN)
    for i in range(n):
        w = window(v, i, 20)
        if w is not None and float(np.sum(w)) != 0:
            vwma[i] = float(np.sum(window(c * v, i, 20))) / float(np.sum(w))
    out["vwma_20"] = vwma
    out["hma_9"] = wma_series(2 * wma_series(c, 4) - wma_series(c, 9), 3)
    out["ichimoku_base_26"] = np.array([midpoint(h, l, i, 26) for i in range(n)])
    hl2 = (h + l) / 2
    out["ao_5_34"] = np.array([sma(hl2, i, 5) - sma(hl2, i, 34) for i in range(n)])
    ema13 = ema_series(c, 13)
    out["bbp_13"] = (h - ema13) + (l - ema13)

    keys = list(out)
    with open(OUT, "w") as f:
        f.write(",".join(keys) + "\n")
        for i in range(n):
            cells = []
            for key in keys:
                x = out[key][i]
                if key == "timestamp_ms":
                    cells.append(str(int(x)))
                elif math.isnan(float(x)):
                    cells.append("")
                else:
                    cells.append(repr(float(x)))
            f.write(",".join(cells) + "\n")
    print(f"wrote {OUT}: {n} rows, {len(keys)} columns (TA-Lib {talib.__version__})")


if __name__ == "__main__":
    main()
