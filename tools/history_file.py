#!/usr/bin/env python3
"""Writes a `signaldesk history import` file shaped like one made outside the project
(docs/history-import.md's format), for timing the import on files unlike the ordered,
chainless one `signaldesk-history-bench` writes (docs/benchmarks.md, "A long history").

    python3 tools/history_file.py TRADES OUT.json [chains|flat]

- TRADES closed trades over the two years before 2026-11-01, on ten symbols, in random order
  (not sorted by time), with fees, funding and close reasons;
- `chains` (the default): every trade in a martingale chain of 1 to 4 steps (about 40 % as
  many chains as trades, also in random order); `flat`: no chains;
- a balance snapshot a day.

The same arguments give the same file (a fixed seed).
"""

import datetime as dt
import json
import random
import sys

SYMBOLS = ["BTCUSDT", "ETHUSDT", "SOLUSDT", "XRPUSDT", "DOGEUSDT",
           "ADAUSDT", "BNBUSDT", "LTCUSDT", "AVAXUSDT", "LINKUSDT"]
END = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
START = END - dt.timedelta(days=730)


def iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def trade(symbol: str, opened: dt.datetime, closed: dt.datetime) -> dict:
    price = round(random.uniform(1, 60000), 2)
    return {
        "symbol": symbol,
        "side": random.choice(["long", "short"]),
        "leverage": random.randint(1, 50),
        "margin": str(round(random.uniform(5, 500), 2)),
        "qty": str(round(random.uniform(0.001, 5), 3)),
        "entry_price": str(price),
        "exit_price": str(round(price * random.uniform(0.97, 1.03), 2)),
        "pnl": str(round(random.uniform(-10, 10), 4)),
        "fees": str(round(random.uniform(0, 0.5), 4)),
        "funding": str(round(random.uniform(-0.1, 0.1), 4)),
        "opened_at": iso(opened),
        "closed_at": iso(closed),
        "close_reason": random.choice(["stop_loss", "take_profit", "trailing_stop", "manual"]),
    }


def history(count: int, with_chains: bool) -> dict:
    random.seed(7)
    span = (END - START).total_seconds()
    trades, chains = [], []
    while len(trades) < count:
        symbol = random.choice(SYMBOLS)
        created = START + dt.timedelta(seconds=random.random() * span)
        steps = random.randint(1, 4) if with_chains else 1
        key = f"c{len(chains)}" if with_chains else None
        at = created
        for step in range(1, steps + 1):
            closed = at + dt.timedelta(minutes=random.randint(1, 600))
            t = trade(symbol, at, closed)
            if key:
                t["chain"], t["chain_step"] = key, step
            trades.append(t)
            at = closed
        if key:
            chains.append({"key": key, "symbol": symbol, "status": "CLOSED",
                           "created_at": iso(created), "closed_at": iso(at)})
    trades = trades[:count]
    random.shuffle(trades)
    named = {t.get("chain") for t in trades}
    chains = [c for c in chains if c["key"] in named]
    random.shuffle(chains)
    snapshots = [{"taken_at": iso(START + dt.timedelta(days=d)), "equity": str(10000 + d),
                  "available_balance": str(9000 + d), "margin_balance": str(10000 + d)}
                 for d in range(730)]
    return {"chains": chains, "trades": trades, "balance_snapshots": snapshots}


def main() -> None:
    count, out = int(sys.argv[1]), sys.argv[2]
    shape = sys.argv[3] if len(sys.argv) > 3 else "chains"
    if shape not in ("chains", "flat"):
        sys.exit("the shape is chains or flat")
    data = history(count, shape == "chains")
    with open(out, "w", encoding="utf-8") as file:
        json.dump(data, file)
    print(f"{len(data['trades'])} trades, {len(data['chains'])} chains")


if __name__ == "__main__":
    main()
