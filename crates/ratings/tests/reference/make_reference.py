#!/usr/bin/env python3
"""Independent reference values for the signaldesk-ratings tests.

Reads tests/data/talib_reference_500.csv (500 synthetic candles with the
values TA-Lib 0.8.2 computes for them; copied from the project's shared test
data) and writes tests/data/independent_reference_500.csv with, per candle:

* the indicators TA-Lib does not have, computed here straight from their
  definitions with whole-window numpy sums (no incremental state):
  VWMA 20, Hull MA 9, Ichimoku base line (26), Awesome Oscillator,
  Bull Bear Power (13);
* every vote of the 26 rating indicators and the ma / osc / total ratings,
  by the rules of docs/ratings.md, from the TA-Lib columns plus the ones
  above. An empty cell means "no value yet" / "not voting yet".

For the two stochastics' votes the %K/%D lines are recomputed here from
their definitions with whole-window sums (raw %K from the channel, or from
TA-Lib's RSI column, then 3-bar means): TA-Lib's and pandas' running sums
leave ~1e-13 noise on the 0 and 100 plateaus, where "%K > %D" must compare
equal values as equal.

Run from the crate directory:  python3 tests/reference/make_reference.py
Needs numpy and pandas (pip install numpy pandas).
"""

import math
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
SRC = os.path.join(DATA, "talib_reference_500.csv")
OUT = os.path.join(DATA, "independent_reference_500.csv")

NAN = float("nan")


def window(x, i, n):
    """x[i-n+1 .. i] or None while there are fewer than n values."""
    return None if i + 1 < n else x[i + 1 - n : i + 1]


def sma(x, i, n):
    w = window(x, i, n)
    return NAN if w is None else float(np.sum(w) / n)


def wma_series(x, n):
    out = np.full(len(x), NAN)
    weights = np.arange(1, n + 1, dtype=float)  # oldest 1 ... newest n
    for i in range(len(x)):
        w = window(x, i, n)
        if w is not None and not np.isnan(w).any():
            out[i] = float(np.dot(w, weights) / weights.sum())
    return out


def ema_series(x, n):
    """EMA seeded with the mean of the first n values (TA-Lib / TradingView)."""
    out = np.full(len(x), NAN)
    alpha = 2.0 / (n + 1)
    for i in range(n - 1, len(x)):
        if i == n - 1:
            out[i] = float(np.mean(x[:n]))
        else:
            out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def midpoint(high, low, i, n):
    h = window(high, i, n)
    lo = window(low, i, n)
    return NAN if h is None else (float(np.max(h)) + float(np.min(lo))) / 2.0


def main():
    df = pd.read_csv(SRC)
    n = len(df)
    o, h, l, c, v = (df[k].to_numpy(float) for k in ["open", "high", "low", "close", "volume"])

    # --- indicators TA-Lib does not cover -------------------------------
    vwma = np.full(n, NAN)
    for i in range(n):
        w = window(c * v, i, 20)
        if w is not None:
            vol = float(np.sum(window(v, i, 20)))
            vwma[i] = float(np.sum(w)) / vol if vol != 0 else NAN

    wma_half = wma_series(c, 9 // 2)
    wma_full = wma_series(c, 9)
    hma = wma_series(2 * wma_half - wma_full, int(math.floor(math.sqrt(9))))

    conversion = np.array([midpoint(h, l, i, 9) for i in range(n)])
    base = np.array([midpoint(h, l, i, 26) for i in range(n)])
    lead1 = (conversion + base) / 2.0
    lead2 = np.array([midpoint(h, l, i, 52) for i in range(n)])

    hl2 = (h + l) / 2.0
    ao = np.array([sma(hl2, i, 5) - sma(hl2, i, 34) for i in range(n)])

    ema13 = ema_series(c, 13)
    bull = h - ema13
    bear = l - ema13
    bbp = bull + bear

    # --- votes ----------------------------------------------------------
    col = lambda name: df[name].to_numpy(float)  # noqa: E731
    ok = lambda *xs: all(not math.isnan(x) for x in xs)  # noqa: E731

    def at(x, i):
        return x[i] if 0 <= i < n else NAN

    def vote(buy, sell):
        return 1 if buy else (-1 if sell else 0)

    ema50 = col("ema_50")
    ma_lines = {
        f"{kind.upper()}{p}": col(f"{kind}_{p}")
        for kind in ["sma", "ema"]
        for p in [10, 20, 30, 50, 100, 200]
    }
    ma_lines["VWMA20"] = vwma
    ma_lines["HMA9"] = hma

    rsi, cci, mom, wr, uo = (col(k) for k in ["rsi_14", "cci_20", "mom_10", "willr_14", "ultosc_7_14_28"])
    def smooth3(x):
        out = np.full(n, NAN)
        for i in range(n):
            w = window(x, i, 3)
            if w is not None and not np.isnan(w).any():
                out[i] = float(np.sum(w)) / 3.0
        return out

    def raw_stoch(x, hi, lo, length):
        out = np.full(n, NAN)
        for i in range(n):
            hw, lw = window(hi, i, length), window(lo, i, length)
            if hw is None or np.isnan(hw).any() or np.isnan(lw).any():
                continue
            top, bottom = float(np.max(hw)), float(np.min(lw))
            out[i] = (x[i] - bottom) / (top - bottom) * 100.0 if top != bottom else 0.0
        return out

    sk = smooth3(raw_stoch(c, h, l, 14))
    sd = smooth3(sk)
    # TA-Lib reports %K only from the first %D (index 17).
    sk[np.isnan(sd)] = NAN
    adx, pdi, mdi = col("adx_14"), col("plus_di_14"), col("minus_di_14")
    macd, signal = col("macd_12_26_9"), col("macd_signal")
    srk = smooth3(raw_stoch(rsi, rsi, rsi, 14))
    srd = smooth3(srk)

    rows = []
    for i in range(n):
        votes = {}
        for key, line in ma_lines.items():
            m = at(line, i)
            if not ok(m):
                votes[key] = None
            elif abs(m - c[i]) <= 1e-12 * max(abs(m), abs(c[i])):
                votes[key] = 0  # equal (within rounding of an average)
            else:
                votes[key] = vote(m < c[i], m > c[i])

        cv, bv, l1, l2 = at(conversion, i), at(base, i), at(lead1, i - 26), at(lead2, i - 26)
        votes["IchimokuBase"] = (
            vote(
                l1 > l2 and bv > l1 and cv > bv and c[i] > cv,
                l1 < l2 and bv < l1 and cv < bv and c[i] < cv,
            )
            if ok(cv, bv, l1, l2)
            else None
        )

        r, r1 = at(rsi, i), at(rsi, i - 1)
        votes["RSI14"] = vote(r < 30 and r > r1, r > 70 and r < r1) if ok(r, r1) else None
        k, d = at(sk, i), at(sd, i)
        votes["StochK"] = (
            vote(k < 20 and d < 20 and k > d, k > 80 and d > 80 and k < d) if ok(k, d) else None
        )
        x, x1 = at(cci, i), at(cci, i - 1)
        votes["CCI20"] = vote(x < -100 and x > x1, x > 100 and x < x1) if ok(x, x1) else None
        a, a1, p, m = at(adx, i), at(adx, i - 1), at(pdi, i), at(mdi, i)
        votes["ADX14"] = (
            vote(a > 20 and a > a1 and p > m, a > 20 and a > a1 and p < m) if ok(a, a1, p, m) else None
        )
        z, z1, z2 = at(ao, i), at(ao, i - 1), at(ao, i - 2)
        votes["AO"] = (
            vote(
                (z > 0 and z1 <= 0) or (z > 0 and z1 > 0 and z > z1 and z2 > z1),
                (z < 0 and z1 >= 0) or (z < 0 and z1 < 0 and z < z1 and z2 < z1),
            )
            if ok(z, z1, z2)
            else None
        )
        q, q1 = at(mom, i), at(mom, i - 1)
        votes["Mom10"] = vote(q > q1, q < q1) if ok(q, q1) else None
        mc, sg = at(macd, i), at(signal, i)
        votes["MACD"] = vote(mc > sg, mc < sg) if ok(mc, sg) else None
        e, k, d = at(ema50, i), at(srk, i), at(srd, i)
        votes["StochRSIK"] = (
            vote(
                c[i] < e and k < 20 and d < 20 and k > d,
                c[i] > e and k > 80 and d > 80 and k < d,
            )
            if ok(e, k, d)
            else None
        )
        w, w1 = at(wr, i), at(wr, i - 1)
        votes["WR14"] = vote(w < -80 and w > w1, w > -20 and w < w1) if ok(w, w1) else None
        bu, bu1, be, be1 = at(bull, i), at(bull, i - 1), at(bear, i), at(bear, i - 1)
        votes["BBP"] = (
            vote(
                c[i] > e and be < 0 and be > be1,
                c[i] < e and bu > 0 and bu < bu1,
            )
            if ok(e, bu, bu1, be, be1)
            else None
        )
        u = at(uo, i)
        votes["UO"] = vote(u > 70, u < 30) if ok(u) else None

        ma_keys = list(ma_lines) + ["IchimokuBase"]
        osc_keys = ["RSI14", "StochK", "CCI20", "ADX14", "AO", "Mom10", "MACD", "StochRSIK", "WR14", "BBP", "UO"]
        ma_votes = [votes[k] for k in ma_keys if votes[k] is not None]
        osc_votes = [votes[k] for k in osc_keys if votes[k] is not None]
        ma_r = sum(ma_votes) / len(ma_votes) if ma_votes else None
        osc_r = sum(osc_votes) / len(osc_votes) if osc_votes else None
        if ma_r is not None and osc_r is not None:
            total = (ma_r + osc_r) / 2
        else:
            total = ma_r if ma_r is not None else (osc_r if osc_r is not None else 0.0)

        row = {
            "timestamp_ms": int(df["timestamp_ms"][i]),
            "vwma_20": vwma[i],
            "hma_9": hma[i],
            "ichimoku_base_26": base[i],
            "ao_5_34": ao[i],
            "bbp_13": bbp[i],
        }
        row.update({f"vote_{k}": votes[k] for k in ma_keys + osc_keys})
        row.update(
            {
                "ma_rating": 0.0 if ma_r is None else ma_r,
                "osc_rating": 0.0 if osc_r is None else osc_r,
                "total_rating": total,
            }
        )
        rows.append(row)

    with open(OUT, "w") as f:
        keys = list(rows[0])
        f.write(",".join(keys) + "\n")
        for row in rows:
            cells = []
            for k in keys:
                x = row[k]
                if x is None or (isinstance(x, (float, np.floating)) and math.isnan(x)):
                    cells.append("")
                elif isinstance(x, (float, np.floating)):
                    cells.append(repr(float(x)))  # round-trip exact
                else:
                    cells.append(str(int(x)))
            f.write(",".join(cells) + "\n")
    print(f"wrote {OUT}: {len(rows)} rows, {len(rows[0])} columns")


if __name__ == "__main__":
    main()
