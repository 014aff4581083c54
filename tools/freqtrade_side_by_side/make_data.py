"""Synthetic 1-minute candles for the Freqtrade side-by-side backtest (issue 32).

Writes a random walk of 1-minute OHLCV for N USDT perpetuals (the first N symbols of the
simulated market, at its start prices, ticks and daily volatilities: markets.py) in
Freqtrade's futures data layout, so both tools read the same candles:

    DIR/futures/BTC_USDT_USDT-1m-futures.feather      the candles (both tools)
    DIR/futures/BTC_USDT_USDT-15m-futures.feather     the same resampled (Freqtrade's signals)
    DIR/futures/BTC_USDT_USDT-1h-mark.feather         mark price = the 1m closes resampled
    DIR/futures/BTC_USDT_USDT-1h-funding_rate.feather funding rate 0 every hour

Freqtrade's backtesting of futures refuses to run without the mark and funding files
(optimize/backtesting.py, load_bt_data_detail); Signal Desk's `candles import --freqtrade`
skips them. Funding is 0 so neither tool charges any (Signal Desk charges only stored rates).

Run with the Freqtrade venv's Python (it has numpy, pandas and pyarrow):

    /tmp/ft-venv/bin/python tools/freqtrade_side_by_side/make_data.py DIR \
        --symbols 18 --start 2024-12-25 --end 2026-01-01 [--seed 32]

--end is excluded. Not part of `make test`.
"""

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from markets import SYMBOLS


def walk(rng, n, start, tick, daily_vol):
    """n minutes of a geometric random walk, prices on the tick, as a DataFrame."""
    decimals = len(tick.split(".")[1]) if "." in tick else 0
    t = float(tick)
    vol = daily_vol / np.sqrt(1440)
    # fat-ish tails: a normal step scaled by a slowly varying volatility regime
    regime = np.exp(np.repeat(rng.normal(0, 0.35, n // 240 + 1), 240)[:n])
    steps = rng.normal(0, vol, n) * regime
    close = start * np.exp(np.cumsum(steps))
    close = np.maximum(np.round(close / t) * t, t)
    open_ = np.concatenate(([np.round(start / t) * t], close[:-1]))
    wick = np.abs(rng.normal(0, vol * 0.6, (2, n))) * regime
    high = np.maximum(open_, close) * (1 + wick[0])
    low = np.minimum(open_, close) * (1 - wick[1])
    high = np.maximum(np.ceil(high / t) * t, np.maximum(open_, close))
    low = np.maximum(np.minimum(np.floor(low / t) * t, np.minimum(open_, close)), t)
    volume = np.round(rng.gamma(2.0, 5e4 / start, n) * regime, 3)
    return pd.DataFrame({
        "open": np.round(open_, decimals), "high": np.round(high, decimals),
        "low": np.round(low, decimals), "close": np.round(close, decimals),
        "volume": volume,
    })


def save(df, path):
    # as Freqtrade's FeatherDataHandler.ohlcv_store writes it
    df.reset_index(drop=True).to_feather(path, compression_level=9, compression="lz4")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", type=Path)
    p.add_argument("--symbols", type=int, default=18)
    p.add_argument("--start", default="2024-12-25")
    p.add_argument("--end", default="2026-01-01")
    p.add_argument("--seed", type=int, default=32)
    a = p.parse_args()
    out = a.dir / "futures"
    out.mkdir(parents=True, exist_ok=True)
    dates = pd.date_range(a.start, a.end, freq="1min", inclusive="left", tz="UTC")
    rng = np.random.default_rng(a.seed)
    for symbol, start, tick, _step, _lev, vol in SYMBOLS[: a.symbols]:
        base = symbol[:-4]
        df = walk(rng, len(dates), start, tick, vol)
        df.insert(0, "date", dates)
        save(df, out / f"{base}_USDT_USDT-1m-futures.feather")
        ohlcv = {"open": "first", "high": "max", "low": "min", "close": "last", "volume": "sum"}
        q = df.set_index("date").resample("15min").agg(ohlcv)
        save(q.reset_index(), out / f"{base}_USDT_USDT-15m-futures.feather")
        h = df.set_index("date").resample("1h").agg(ohlcv)
        save(h.reset_index(), out / f"{base}_USDT_USDT-1h-mark.feather")
        f = h.reset_index()[["date"]].assign(open=0.0, high=0.0, low=0.0, close=0.0, volume=0.0)
        save(f, out / f"{base}_USDT_USDT-1h-funding_rate.feather")
        print(f"{symbol}: {len(df)} minutes, {df.close.iloc[0]} -> {df.close.iloc[-1]}", flush=True)


if __name__ == "__main__":
    main()
