"""Store the side-by-side contracts as Signal Desk instruments (issue 32), offline.

A `--data bybit` backtest trades each symbol on its stored Bybit instrument and risk tiers,
which `signaldesk candles fetch` normally stores from Bybit. Offline, this writes markets.py's
contracts into the same tables (`instruments`, `instrument_risk_tiers`, migration 0018) of a
SQLite database that `signaldesk candles import` has already created:

    python3 tools/freqtrade_side_by_side/sd_instruments.py /tmp/ft-side/sd.db --symbols 18

Not part of `make test`.
"""

import argparse
import sqlite3
import time

from markets import MIN_NOTIONAL, SYMBOLS, risk_tiers


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("db")
    p.add_argument("--symbols", type=int, default=18)
    a = p.parse_args()
    db = sqlite3.connect(a.db)
    now = int(time.time() * 1000)
    with db:
        for symbol, _price, tick, step, lev, _vol in SYMBOLS[: a.symbols]:
            db.execute("DELETE FROM instrument_risk_tiers WHERE symbol = ?", (symbol,))
            db.execute(
                "INSERT OR REPLACE INTO instruments (symbol, tick_size, qty_step, min_qty,"
                " min_notional, max_leverage, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (symbol, tick, step, step, str(MIN_NOTIONAL), lev, now),
            )
            for n, (value, mm, ded, top) in enumerate(risk_tiers(lev), 1):
                db.execute(
                    "INSERT INTO instrument_risk_tiers (symbol, tier, risk_limit_value,"
                    " maintenance_margin_rate, mm_deduction, max_leverage)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (symbol, n, *(format(d, "f") for d in (value, mm, ded, top))),
                )
            print(f"{symbol}: tick {tick}, step {step}, {lev}x, {len(risk_tiers(lev))} tiers")


if __name__ == "__main__":
    main()
